// dbg_memory end to end: hex dumps, reads that run into unmapped memory, writes read back and
// seen by the program, and the refusals.
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/inProcess.js';
import { at } from '../helpers/markers.js';
import { fixture } from '../helpers/paths.js';

async function atReport() {
  const h = await startInProcess();
  const r = await h.call('dbg_start', {
    program: fixture('data'),
    breakpoints: [{ location: at('data.c', '@report') }],
    inspect: ['none'],
  });
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped' });
  const id = r.data.session_id as string;
  const memory = (args: Record<string, unknown>) => h.call('dbg_memory', { session_id: id, ...args });
  return { h, id, memory };
}

const hexOf = (s: string) => Buffer.from(s, 'latin1').toString('hex');

describe('dbg_memory', () => {
  it('reads bytes as hex and a classic dump', async () => {
    const { h, id, memory } = await atReport();
    const r = await memory({ address: '&greeting', length: 20 });
    expect(r.isError).toBe(false);
    expect(r.data.length).toBe(20);
    expect(r.data.hex).toBe(`${hexOf('Hi, memory!')}0000000000${'0a000000'}`);
    expect(r.data.unreadable).toBeUndefined();
    const where = await h.call('dbg_evaluate', { session_id: id, expressions: ['(long)&greeting'] });
    expect(BigInt(r.data.address)).toBe(BigInt(where.data.results[0].value));
    const lines = r.text.split('\n');
    expect(lines[1]).toBe(`20 bytes at ${r.data.address}:`);
    const addr = r.data.address.slice(2);
    expect(lines[2]).toBe(`${addr}  48 69 2c 20 6d 65 6d 6f  72 79 21 00 00 00 00 00  |Hi, memory!.....|`);
    expect(lines[3]).toBe(`${(BigInt(r.data.address) + 16n).toString(16)}  0a 00 00 00${' '.repeat(37)}  |....|`);
  });

  it('reads a struct through a pointer expression, 64 bytes by default', async () => {
    const { memory } = await atReport();
    const r = await memory({ address: '(char *)&rec' });
    expect(r.data.length).toBe(64);
    expect(r.data.hex.slice(0, 8)).toBe('07000000');
    // The state line, the heading, 4 rows of 16 bytes, the observation it is kept as.
    expect(r.text.split('\n')).toHaveLength(2 + 4 + 1);
    expect(r.text).toContain('seven');
  });

  it('reads the most allowed, dumping the first half in the text', async () => {
    const { memory } = await atReport();
    // The stack is mapped well below the stack pointer.
    const r = await memory({ address: '$sp - 4096', length: 4096 });
    expect(r.data.length).toBe(4096);
    expect(r.data.hex).toHaveLength(8192);
    expect(r.text).toContain('… 2048 more bytes in the structured hex');
  });

  it('a range that runs into unmapped memory returns what could be read', async () => {
    const { memory } = await atReport();
    const r = await memory({ address: 'edge', length: 32 });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ length: 8, hex: hexOf('EDGE1234'), unreadable: 24 });
    expect(r.text).toContain('the next 24 are unreadable');
    expect(r.text).toContain('|EDGE1234|');
    const past = await memory({ address: 'edge + 8', length: 4 });
    expect(past).toMatchObject({ isError: true, code: 'debugger_error' });
  });

  it('an address with nothing mapped is a clear error', async () => {
    const { memory } = await atReport();
    const r = await memory({ address: '0', length: 16 });
    expect(r).toMatchObject({ isError: true, code: 'debugger_error' });
    expect(r.data.error.message).toMatch(/^cannot read memory at 0x0: nothing is mapped there/);
    const bad = await memory({ address: 'no_such_symbol' });
    expect(bad.data.error.message).toMatch(/No symbol "no_such_symbol"/);
  });

  it('writes bytes, reads them back, and the program sees them', async () => {
    const { h, id, memory } = await atReport();
    const w = await memory({ action: 'write', address: '&greeting', bytes: '4a 4a' });
    expect(w.isError, w.text).toBe(false);
    expect(w.data).toMatchObject({ written: 2, length: 2, hex: '4a4a' });
    expect(w.text).toContain('wrote 2 bytes; read back:');
    const back = await memory({ address: 'greeting', length: 11 });
    expect(back.data.hex).toBe(hexOf('JJ, memory!'));
    const seen = await h.call('dbg_evaluate', { session_id: id, expressions: ['greeting'] });
    expect(seen.data.results[0].value).toMatch(/^"JJ, memory!/);
    const end = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(end.data.output.text).toContain('JJ, memory! counter=5');
  });

  it('a write to unmapped memory fails and changes nothing', async () => {
    const { memory } = await atReport();
    const r = await memory({ action: 'write', address: '0', bytes: '00' });
    expect(r).toMatchObject({ isError: true, code: 'debugger_error' });
  });

  it('a stop_id from an earlier stop is refused with stale_context', async () => {
    const { h, id, memory } = await atReport();
    await h.call('dbg_run', { session_id: id, action: 'next' });
    const r = await memory({ address: '&greeting', stop_id: 1 });
    expect(r).toMatchObject({ isError: true, code: 'stale_context' });
    const w = await memory({ action: 'write', address: '&greeting', bytes: '00', stop_id: 1 });
    expect(w).toMatchObject({ isError: true, code: 'stale_context' });
    expect((await memory({ address: 'greeting', length: 2 })).data.hex).toBe('4869');
  });

  it('refuses bad arguments with invalid_argument', async () => {
    const { memory } = await atReport();
    const cases: Record<string, unknown>[] = [
      { address: '&greeting', length: 0 },
      { address: '&greeting', length: 4097 },
      { address: '&greeting', length: 1.5 },
      { address: '&greeting\n' },
      { action: 'write', address: '&greeting', bytes: 'xyz' },
      { action: 'write', address: '&greeting', bytes: '4' },
      { action: 'write', address: '&greeting' },
      { action: 'write', address: '&greeting', bytes: '00'.repeat(4097) },
      { action: 'write', address: '&greeting', bytes: '00', length: 1 },
      { action: 'read', address: '&greeting', bytes: '00' },
      { action: 'peek', address: '&greeting' },
      { length: 4 },
    ];
    for (const args of cases) {
      const r = await memory(args);
      expect(r, JSON.stringify(args).slice(0, 80)).toMatchObject({ isError: true, code: 'invalid_argument' });
    }
  });

  it('needs a stopped program', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('data'), stop: 'no-run' });
    const m = await h.call('dbg_memory', { session_id: r.data.session_id, address: '&greeting' });
    expect(m).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(m.data.error.message).toMatch(/action=run/);
  });
});
