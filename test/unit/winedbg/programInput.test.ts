// A Windows program's stdin (programInput.ts) on real pipes of real processes: writes never
// block, say what the kernel took and what waits, refuse past the queue's cap, and end of input
// comes after every byte queued before it.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ProgramInput } from '../../../src/backends/winedbg/programInput.js';
import { STDIN_QUEUE_MAX } from '../../../src/process/stdinQueue.js';

const children: ChildProcess[] = [];
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

function child(command: string, args: string[]): ChildProcess {
  const c = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  children.push(c);
  return c;
}

function output(c: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    c.stdout?.on('data', (d: Buffer) => {
      text += d.toString();
    });
    // 'close', not 'exit': the process may exit before its last output is read.
    c.once('close', () => resolve(text));
  });
}

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('ProgramInput', () => {
  it('a program that does not read: the kernel takes what it holds, the rest waits, past the cap is refused', async () => {
    const input = new ProgramInput(child('sleep', ['600']).stdin as NonNullable<ChildProcess['stdin']>);
    let taken = 0;
    let waiting = 0;
    let writes = 0;
    // 64 KiB at a time until the pipe is full (a socket pair holds about 230 KB here).
    while (waiting === 0 && writes < 64) {
      const r = await input.write(CHUNK, Date.now() + 50);
      expect(r.taken + r.waiting).toBe(CHUNK.length);
      taken += r.taken;
      waiting += r.waiting;
      writes++;
    }
    expect(waiting, `the pipe took ${taken} bytes in ${writes} writes`).toBeGreaterThan(0);
    expect(input.waiting).toBe(waiting);
    // Then the queue fills up to its cap, and the next write is refused with the reason.
    let refusal: unknown;
    for (let i = 0; i < 64 && refusal === undefined; i++) {
      try {
        const r = await input.write(CHUNK, Date.now());
        expect(r).toEqual({ taken: 0, waiting: CHUNK.length });
      } catch (e) {
        refusal = e;
      }
    }
    expect(refusal).toMatchObject({ code: 'limit_exceeded', message: expect.stringMatching(/resume the program/) });
    expect(input.waiting).toBeLessThanOrEqual(STDIN_QUEUE_MAX);
    expect(input.waiting + CHUNK.length).toBeGreaterThan(STDIN_QUEUE_MAX);
    // End of input waits behind the queued bytes: said, and further writes refused.
    expect(await input.end(Date.now())).toEqual({ taken: 0, waiting: 1 });
    await expect(input.write('x', Date.now())).rejects.toMatchObject({ code: 'wrong_state' });
    input.close();
    expect(input.waiting).toBe(0);
  });

  it('a reader gets every byte in order and then end of input', async () => {
    const wc = child('wc', ['-c']);
    const counted = output(wc);
    const input = new ProgramInput(wc.stdin as NonNullable<ChildProcess['stdin']>);
    let total = 0;
    for (let i = 0; i < 6; i++) {
      const r = await input.write(CHUNK, Date.now());
      expect(r.taken + r.waiting).toBe(CHUNK.length);
      total += CHUNK.length;
    }
    const end = await input.end(Date.now() + 60_000);
    expect(end).toEqual({ taken: 0, waiting: 0 });
    expect((await counted).trim()).toBe(String(total));
  });

  it('end of input with nothing queued closes the pipe at once', async () => {
    const cat = child('cat', []);
    const said = output(cat);
    const input = new ProgramInput(cat.stdin as NonNullable<ChildProcess['stdin']>);
    expect(await input.write('line\n', Date.now() + 60_000)).toEqual({ taken: 5, waiting: 0 });
    expect(await input.end(Date.now())).toEqual({ taken: 0, waiting: 0 });
    expect(await said).toBe('line\n');
  });

  it('the program gone: queued bytes are dropped and nothing is written to a reused fd', async () => {
    const sleeper = child('sleep', ['600']);
    const input = new ProgramInput(sleeper.stdin as NonNullable<ChildProcess['stdin']>);
    let waiting = 0;
    for (let i = 0; i < 64 && waiting === 0; i++) waiting = (await input.write(CHUNK, Date.now())).waiting;
    expect(waiting).toBeGreaterThan(0);
    const exited = new Promise((resolve) => sleeper.once('exit', resolve));
    sleeper.kill('SIGKILL');
    await exited;
    // Node destroyed the stream at the exit: the next attempt drops the queue instead of writing.
    for (let i = 0; i < 100 && input.waiting > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(input.waiting).toBe(0);
  });
});
