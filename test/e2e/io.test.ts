// dbg_io end to end: typing into the program's own terminal while it runs or is stopped, end of
// input, reading its output by cursor (and what the ring dropped), and untrusted bytes that are
// escaped in the text view but kept, decoded, in the structured answer.
import { describe, expect, it } from 'vitest';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';

/** Starts stdin_echo, which blocks reading its stdin: the short deadline answers `running`. */
async function reading(h: McpHarness): Promise<string> {
  const r = await h.call('dbg_start', {
    program: fixture('stdin_echo'),
    stop: 'none',
    stdin_eof: false,
    on_timeout: 'return',
    timeout_ms: 300,
  });
  expect(r.data.outcome).toEqual({ kind: 'running' });
  return r.data.session_id as string;
}

/** Polls dbg_sessions until the session reaches `state` (bounded, naming what it saw). */
async function waitForState(h: McpHarness, id: string, state: string): Promise<Record<string, any>> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const r = await h.call('dbg_sessions', {});
    const s = r.data.sessions.find((x: { id: string }) => x.id === id);
    if (s?.state === state) return s;
    if (Date.now() > deadline) throw new Error(`session ${id} never reached ${state}: ${JSON.stringify(s)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('dbg_io: the program terminal', () => {
  it('writes lines to a running and a stopped program, reads by cursor, and ends input with eof', async () => {
    const h = await startServer();
    const id = await reading(h);

    const w = await h.call('dbg_io', { session_id: id, action: 'write', data: 'one\ntwo\n' });
    expect(w.isError).toBe(false);
    expect(w.data.bytes).toBe(8);
    expect(w.text).toMatch(/wrote 8 bytes \(2 lines\); the program is running/);

    const first = await h.call('dbg_io', { session_id: id, action: 'read', wait_ms: 5000 });
    expect(first.data).toMatchObject({ cursor: 0, dropped: 0, more: false });
    // The two lines may arrive in two writes of the program: read until both are there.
    let seen = first.data.text as string;
    while (!seen.includes('got:two\n')) {
      const r = await h.call('dbg_io', { session_id: id, action: 'read', wait_ms: 5000 });
      expect(r.data.text.length).toBeGreaterThan(0);
      seen += r.data.text;
    }
    expect(seen).toBe('got:one\ngot:two\n');

    // Stopped: the input waits in the terminal until the program runs again.
    const stopped = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect(stopped.data.outcome.kind).toBe('stopped');
    const w2 = await h.call('dbg_io', { session_id: id, action: 'write', data: 'three\n' });
    expect(w2.text).toMatch(/stopped: it reads this once resumed/);
    const none = await h.call('dbg_io', { session_id: id, action: 'read', wait_ms: 200 });
    expect(none.data).toMatchObject({ text: '', cursor: 16, next: 16, more: false });
    expect(none.text).toContain('(nothing new)');

    const resumed = await h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: 300 });
    expect(resumed.data.outcome).toEqual({ kind: 'running' });
    const third = await h.call('dbg_io', { session_id: id, action: 'read', wait_ms: 5000 });
    expect(third.data).toMatchObject({ text: 'got:three\n', cursor: 16, next: 26 });

    // An explicit cursor re-reads; 0 is the oldest byte kept.
    const again = await h.call('dbg_io', { session_id: id, action: 'read', cursor: 8, max_bytes: 8 });
    expect(again.data).toMatchObject({ text: 'got:two\n', cursor: 8, next: 16, more: true });
    expect(again.text).toContain('more: read again (cursor=16)');

    const eof = await h.call('dbg_io', { session_id: id, action: 'eof' });
    expect(eof.isError).toBe(false);
    const exited = await waitForState(h, id, 'exited');
    expect(exited.summary).toBe('the program exited with code 0');
    // The default cursor goes on from the last read (16 after the explicit re-read).
    const rest = await h.call('dbg_io', { session_id: id, action: 'read' });
    expect(rest.data.text).toBe('got:three\neof after 3 lines\n');
    expect(rest.data.next).toBe(rest.data.cursor + rest.data.text.length);
  });

  it('holds input typed before the program starts until it runs', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('stdin_echo'), stop: 'no-run' });
    const id = r.data.session_id;
    const w = await h.call('dbg_io', { session_id: id, action: 'write', data: 'early\n' });
    expect(w.text).toMatch(/no program is running: the terminal holds it for the next run/);
    await h.call('dbg_io', { session_id: id, action: 'eof' });
    const run = await h.call('dbg_run', { session_id: id, action: 'run' });
    expect(run.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(run.data.output.text).toBe('got:early\neof after 1 lines\n');
  });

  it('refuses a write without data and input to the debugger stream', async () => {
    const h = await startServer();
    const id = await reading(h);
    const empty = await h.call('dbg_io', { session_id: id, action: 'write' });
    expect(empty).toMatchObject({ isError: true, code: 'invalid_argument' });
    const toDebugger = await h.call('dbg_io', { session_id: id, action: 'write', stream: 'debugger', data: 'x\n' });
    expect(toDebugger).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(toDebugger.data.error.message).toMatch(/dbg_command/);
    const big = await h.call('dbg_io', { session_id: id, action: 'write', data: 'x'.repeat(64 * 1024 + 1) });
    expect(big).toMatchObject({ isError: true, code: 'invalid_argument' });
    const unknown = await h.call('dbg_io', { session_id: '0badc0de', action: 'read' });
    expect(unknown).toMatchObject({ isError: true, code: 'no_session' });
  });

  it('escapes escape sequences and NUL in the text view and keeps them decoded in the structured text', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('noisy') });
    expect(r.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    const io = await h.call('dbg_io', { session_id: r.data.session_id, action: 'read', cursor: 0 });
    expect(io.data.text).toBe('\x1b[31mred\x1b[0m\nnul:\0:end\nbad:\ufffd\ufffd:end\neuro:\u20ac\ndone\n');
    expect(io.text).toContain('\\x1b[31mred\\x1b[0m');
    expect(io.text).toContain('nul:\\x00:end');
    expect(io.text).toContain('euro:\u20ac');
    expect(io.text).not.toMatch(/[\x00\x1b]/);
  });

  it('never cuts a character in two when a read is capped', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('noisy') });
    const id = r.data.session_id;
    // "euro:" starts at byte 34; a cap ending inside the three-byte euro sign stops before it.
    const head = await h.call('dbg_io', { session_id: id, action: 'read', cursor: 34, max_bytes: 6 });
    expect(head.data).toMatchObject({ text: 'euro:', cursor: 34, next: 39, more: true });
    const tail = await h.call('dbg_io', { session_id: id, action: 'read', max_bytes: 4 });
    expect(tail.data).toMatchObject({ text: '\u20ac\n', cursor: 39, next: 43 });
  });

  it('counts the bytes the ring dropped when the program printed more than it keeps', async () => {
    const h = await startServer();
    // 1.5 MB of filler through a 1 MiB ring.
    const r = await h.call('dbg_start', { program: fixture('noisy'), args: ['1500000'] });
    expect(r.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    const id = r.data.session_id;
    const first = await h.call('dbg_io', { session_id: id, action: 'read', cursor: 0, max_bytes: 65536 });
    // 43 bytes of escapes and odd characters, 64-byte filler lines, then "done\n".
    const total = 43 + Math.ceil(1_500_000 / 64) * 64 + 5;
    expect(first.data.dropped).toBe(total - 1024 * 1024);
    expect(first.data.cursor).toBe(first.data.dropped);
    expect(first.data.next).toBe(first.data.cursor + 65536);
    expect(first.data.more).toBe(true);
    expect(first.text).toMatch(/\d+ bytes before were dropped/);
    // Going on from the default cursor drops nothing more, and the last page ends with "done".
    const second = await h.call('dbg_io', { session_id: id, action: 'read', max_bytes: 65536 });
    expect(second.data).toMatchObject({ cursor: first.data.next, dropped: 0 });
    const last = await h.call('dbg_io', { session_id: id, action: 'read', cursor: total - 70, max_bytes: 100 });
    expect(last.data.text.endsWith(` ${'0'.repeat(52)}\ndone\n`)).toBe(true);
    expect(last.data).toMatchObject({ next: total, more: false, dropped: 0 });
  });

  it("keeps the program's MI-looking output out of the debugger's stream", async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('fake_mi') });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    const id = r.data.session_id;
    const program = await h.call('dbg_io', { session_id: id, action: 'read' });
    expect(program.data.text).toContain('*stopped,reason="exited-normally"\n');
    expect(program.data.text).toContain('1^error,msg="fake"\n');
    const dbg = await h.call('dbg_io', { session_id: id, action: 'read', stream: 'debugger', cursor: 0 });
    expect(dbg.isError).toBe(false);
    expect(dbg.data.text).not.toContain('^done');
    expect(dbg.data.text).not.toContain('msg="fake"');
    expect(dbg.data.text).not.toContain('exited-normally');
    // What the debugger said unasked is there.
    expect(dbg.data.text).toContain('Program received signal SIGSEGV');
  });
});
