// The program's pty without a debugger: output reaches the ring in order, and sync() answers only
// once everything written before it has arrived, without its mark ever showing in the output.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ProgramTerminal } from '../../../src/process/programTerminal.js';

const run = promisify(execFile);
const terminals: ProgramTerminal[] = [];

afterEach(() => {
  for (const t of terminals.splice(0)) t.close();
});

async function open(): Promise<ProgramTerminal> {
  const t = await ProgramTerminal.open();
  terminals.push(t);
  return t;
}

/** Another process writes `bytes` to the terminal, the way a debugged program would, and exits. */
async function writeFromChild(t: ProgramTerminal, bytes: string): Promise<void> {
  await run('/bin/sh', ['-c', 'printf "%s" "$1" > "$2"', 'sh', bytes, t.path], { timeout: 5000 });
}

const text = (t: ProgramTerminal): string => t.output.read(0, 1 << 20).data.toString('latin1');

describe('ProgramTerminal.sync', () => {
  it('after a writer has exited, sync() leaves all its bytes in the ring, and nothing else', async () => {
    const t = await open();
    for (let i = 0; i < 20; i++) {
      await writeFromChild(t, `line ${i}\n`);
      expect(await t.sync()).toBe(true);
      expect(text(t).endsWith(`line ${i}\n`)).toBe(true);
    }
    expect(text(t)).toBe(Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(''));
  });

  it('bytes that merely look like the start of a mark are held back only until the mark passes', async () => {
    const t = await open();
    // The per-terminal nonce cannot be guessed, so this is only ever a prefix of a real mark.
    await writeFromChild(t, 'abc\x1b_DBGMCP-');
    expect(await t.sync()).toBe(true);
    expect(text(t)).toBe('abc\x1b_DBGMCP-');
  });

  it('several syncs in a row all answer, in any interleaving, with no bytes leaking', async () => {
    const t = await open();
    const answers = await Promise.all([t.sync(), t.sync(), t.sync()]);
    expect(answers).toEqual([true, true, true]);
    expect(t.output.end).toBe(0);
  });

  it('a mark cut across two reads is still recognised and removed', async () => {
    const t = await open();
    // White-box: feed the receive path by hand, in 1-byte pieces, with a mark registered as pending.
    const inside = t as unknown as {
      receive(b: Buffer): void;
      marks: { bytes: Buffer; settle?: (seen: boolean) => void }[];
    };
    let seen: boolean | undefined;
    const mark = Buffer.from('\x1b_DBGMCP-TEST-1\x1b\\');
    inside.marks.push({ bytes: mark, settle: (v) => (seen = v) });
    const stream = Buffer.concat([Buffer.from('before\x1b'), mark, Buffer.from('after')]);
    for (const byte of stream) inside.receive(Buffer.from([byte]));
    expect(seen).toBe(true);
    expect(text(t)).toBe('before\x1bafter');
  });

  it('answers false once closed, and close answers pending syncs', async () => {
    const t = await open();
    t.close();
    expect(await t.sync()).toBe(false);
  });
});
