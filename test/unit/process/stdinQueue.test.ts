// The stdin queue over a fake terminal whose room the test controls: order, counts, the retry when
// room appears, the queue's bound, and what close and a write error do to queued bytes.
import { describe, expect, it } from 'vitest';
import { STDIN_QUEUE_MAX, StdinQueue } from '../../../src/process/stdinQueue.js';

/** A terminal with `room` bytes free; the test frees more as a reading program would. */
function fakeTerminal(room: number) {
  const state = { room, received: [] as Buffer[], calls: 0, fail: false };
  const writeSome = (bytes: Buffer): number => {
    state.calls++;
    if (state.fail) throw Object.assign(new Error('EIO'), { code: 'EIO' });
    const n = Math.min(state.room, bytes.length);
    state.room -= n;
    if (n > 0) state.received.push(Buffer.from(bytes.subarray(0, n)));
    return n;
  };
  return { state, writeSome, text: () => Buffer.concat(state.received).toString() };
}

describe('StdinQueue', () => {
  it('takes what fits at once and answers at the deadline with the rest waiting', async () => {
    const term = fakeTerminal(4);
    const q = new StdinQueue(term.writeSome);
    expect(await q.push(Buffer.from('abcdefgh'), { timeoutMs: 20 })).toEqual({ taken: 4, waiting: 4, dropped: 0 });
    expect(q.waiting).toBe(4);
    expect(term.text()).toBe('abcd');
    q.close();
  });

  it('retries on its own when room appears, keeping the order of writes', async () => {
    const term = fakeTerminal(2);
    const q = new StdinQueue(term.writeSome);
    const first = q.push(Buffer.from('one\n'), { timeoutMs: 5000 });
    const second = q.push(Buffer.from('two\n'), { timeoutMs: 5000 });
    setTimeout(() => {
      term.state.room = 100;
    }, 30);
    expect(await first).toEqual({ taken: 4, waiting: 0, dropped: 0 });
    expect(await second).toEqual({ taken: 4, waiting: 0, dropped: 0 });
    expect(term.text()).toBe('one\ntwo\n');
    expect(q.waiting).toBe(0);
  });

  it('backs off while the terminal stays full: bounded attempts, not a spin', async () => {
    const term = fakeTerminal(0);
    const q = new StdinQueue(term.writeSome);
    await q.push(Buffer.from('x'), { timeoutMs: 500 });
    // 1, 2, 4, … 50 ms apart: about 15 attempts in 500 ms. A spin would make hundreds of thousands.
    expect(term.state.calls).toBeGreaterThan(2);
    expect(term.state.calls).toBeLessThan(100);
    q.close();
  });

  it('refuses a write that would pass the queue bound, and queues nothing of it', async () => {
    const term = fakeTerminal(0);
    const q = new StdinQueue(term.writeSome);
    await q.push(Buffer.alloc(STDIN_QUEUE_MAX - 10), { timeoutMs: 0 });
    await expect(q.push(Buffer.alloc(11), { timeoutMs: 0 })).rejects.toMatchObject({ code: 'limit_exceeded' });
    expect(q.waiting).toBe(STDIN_QUEUE_MAX - 10);
    await expect(q.push(Buffer.alloc(10), { timeoutMs: 0 })).resolves.toMatchObject({ waiting: 10 });
    q.close();
  });

  it('close drops the queue: waiters answer with dropped bytes, later pushes are refused', async () => {
    const term = fakeTerminal(3);
    const q = new StdinQueue(term.writeSome);
    const pending = q.push(Buffer.from('abcdef'), { timeoutMs: 60_000 });
    setTimeout(() => q.close(), 10);
    expect(await pending).toEqual({ taken: 3, waiting: 0, dropped: 3 });
    expect(q.waiting).toBe(0);
    await expect(q.push(Buffer.from('x'))).rejects.toMatchObject({ code: 'wrong_state' });
  });

  it('a write error drops what was queued and the queue goes on with later writes', async () => {
    const term = fakeTerminal(0);
    const q = new StdinQueue(term.writeSome);
    const pending = q.push(Buffer.from('lost'), { timeoutMs: 60_000 });
    term.state.fail = true;
    expect(await pending).toEqual({ taken: 0, waiting: 0, dropped: 4 });
    term.state.fail = false;
    term.state.room = 10;
    expect(await q.push(Buffer.from('kept'), { timeoutMs: 1000 })).toEqual({ taken: 4, waiting: 0, dropped: 0 });
    expect(term.text()).toBe('kept');
  });

  it('an already aborted signal queues nothing', async () => {
    const q = new StdinQueue(fakeTerminal(10).writeSome);
    await expect(q.push(Buffer.from('x'), { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'timeout',
    });
    expect(q.waiting).toBe(0);
  });
});
