import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../../src/session/mailbox.js';

/** A promise whose settling the test controls. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void; fail: (e: Error) => void } {
  let open!: (value: T) => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe('Mailbox', () => {
  it('runs tasks one at a time, in the order they were posted', async () => {
    const box = new Mailbox();
    const log: string[] = [];
    const first = gate();
    const a = box.post(async () => {
      log.push('a start');
      await first.promise;
      log.push('a end');
      return 'a';
    });
    const b = box.post(async () => {
      log.push('b');
      return 'b';
    });
    const c = box.post(async () => {
      log.push('c');
      return 'c';
    });
    // Let the microtask queue run: b must not start while a is still waiting.
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['a start']);
    expect(box.depth).toBe(3);
    first.open();
    expect(await Promise.all([a, b, c])).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b', 'c']);
    expect(box.depth).toBe(0);
  });

  it('a failing task rejects its own caller and does not block the next', async () => {
    const box = new Mailbox();
    const bad = box.post(async () => {
      throw new Error('boom');
    });
    const thrown = box.post(() => {
      throw new Error('sync boom');
    });
    const good = box.post(async () => 42);
    await expect(bad).rejects.toThrow('boom');
    await expect(thrown).rejects.toThrow('sync boom');
    await expect(good).resolves.toBe(42);
  });

  it('close rejects queued tasks with the close reason, without running them, and lets the current one finish', async () => {
    const box = new Mailbox();
    const running = gate<string>();
    const started = gate();
    let ranQueued = false;
    const current = box.post(() => {
      started.open();
      return running.promise;
    });
    const queued = box.post(async () => {
      ranQueued = true;
    });
    await started.promise;
    const reason = new Error('closed for test');
    box.close(reason);
    running.open('done');
    await expect(current).resolves.toBe('done');
    await expect(queued).rejects.toBe(reason);
    expect(ranQueued).toBe(false);
  });

  it('a task posted but not yet started when the box closes is rejected too', async () => {
    const box = new Mailbox();
    let ran = false;
    const p = box.post(async () => {
      ran = true;
    });
    box.close(new Error('closed early'));
    await expect(p).rejects.toThrow('closed early');
    expect(ran).toBe(false);
  });

  it('close rejects new posts at once and keeps the first reason', async () => {
    const box = new Mailbox();
    const first = new Error('first');
    box.close(first);
    box.close(new Error('second'));
    let ran = false;
    await expect(
      box.post(async () => {
        ran = true;
      }),
    ).rejects.toBe(first);
    expect(ran).toBe(false);
    expect(box.depth).toBe(0);
  });

  it('drained resolves once everything posted so far has finished, failures included', async () => {
    const box = new Mailbox();
    const g = gate();
    let finished = false;
    box.post(() => g.promise).catch(() => {});
    box
      .post(async () => {
        finished = true;
        throw new Error('x');
      })
      .catch(() => {});
    const drained = box.drained();
    g.open();
    await drained;
    expect(finished).toBe(true);
  });
});
