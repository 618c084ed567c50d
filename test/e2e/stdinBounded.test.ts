// Issue 11, item 1: a stdin write of about 16 KB or more to a program that is not reading froze
// the whole server (its main thread spun on EAGAIN). Writes now answer by their deadline with what
// the terminal took and what waits, other calls are answered meanwhile, and the rest reaches the
// program, in order, once it reads. A line the terminal would cut is refused with the reason.
import { describe, expect, it } from 'vitest';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';

/** 64 KiB of 100-byte lines (655 whole lines and a partial one). */
const BIG = `${'a'.repeat(99)}\n`.repeat(656).slice(0, 65536);
const BIG_LINES = 655;

/** Reads the program's output until `until` holds (bounded by calls). */
async function readUntil(h: McpHarness, id: string, until: (text: string) => boolean): Promise<string> {
  let got = '';
  for (let i = 0; i < 400 && !until(got); i++) {
    const r = await h.call('dbg_io', { session_id: id, action: 'read', wait_ms: 500 });
    got += r.data.text as string;
  }
  return got;
}

describe('stdin writes are bounded', () => {
  it('dbg_io write of 64 KiB to a stopped program: taken and waiting, the server answers meanwhile, all read later', async () => {
    const h = await startServer();
    const started = await h.call('dbg_start', { program: fixture('stdin_echo'), stop: 'main' });
    const id = started.data.session_id as string;
    expect(started.data.session.state).toBe('stopped');
    const order: string[] = [];
    const write = h.call('dbg_io', { session_id: id, action: 'write', data: BIG }).then((r) => {
      order.push('write');
      return r;
    });
    const sessions = await h.call('dbg_sessions', {});
    order.push('sessions');
    const w = await write;
    // The other call was answered while the write waited for its deadline (it froze the server before).
    expect(order).toEqual(['sessions', 'write']);
    expect(sessions.isError).toBe(false);
    expect(w.isError, w.text).toBe(false);
    expect(w.data.bytes).toBe(65536);
    expect(w.data.taken + w.data.waiting).toBe(65536);
    expect(w.data.waiting).toBeGreaterThan(0);
    expect(w.text).toMatch(/the terminal took \d+ bytes, \d+ wait here and go in as the program reads/);
    await h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: 500, on_timeout: 'return' });
    const got = await readUntil(h, id, (t) => (t.match(/got:/g) ?? []).length >= BIG_LINES);
    expect((got.match(/got:/g) ?? []).length).toBe(BIG_LINES);
    await h.call('dbg_close', { session_id: id });
  });

  it('dbg_start stdin of 64 KiB with stop=main answers, and the program reads it all once resumed', async () => {
    const h = await startServer();
    const started = await h.call('dbg_start', {
      program: fixture('stdin_echo'),
      stop: 'main',
      stdin: BIG.slice(0, BIG_LINES * 100),
      stdin_eof: true,
    });
    expect(started.isError, started.text).toBe(false);
    const id = started.data.session_id as string;
    expect(started.data.session.state).toBe('stopped');
    // The answer says how much the terminal took and how much waits for the program.
    expect(started.data.warnings).toEqual([
      expect.stringMatching(
        /^stdin: the terminal took \d+ bytes at once; \d+ more wait here and go in as the program reads/,
      ),
    ]);
    const run = await h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: WAIT_MS });
    expect(run.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    const text = await readUntil(h, id, (t) => t.includes('eof after'));
    expect((text.match(/got:/g) ?? []).length).toBe(BIG_LINES);
    // EOF came after the queued lines, not before them.
    expect(text.endsWith(`eof after ${BIG_LINES} lines\n`)).toBe(true);
  });

  it('a line past the canonical limit is refused with the reason, nothing written', async () => {
    const h = await startServer();
    const started = await h.call('dbg_start', { program: fixture('stdin_echo'), stop: 'main' });
    const id = started.data.session_id as string;
    const long = await h.call('dbg_io', { session_id: id, action: 'write', data: `ok\n${'b'.repeat(5000)}\n` });
    expect(long).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(long.data.error.message).toMatch(
      /a line of 5000 bytes .*\(4095 bytes in canonical mode\).*Nothing was written/,
    );
    // 4,095 bytes and the newline pass whole.
    const edge = await h.call('dbg_io', { session_id: id, action: 'write', data: `${'c'.repeat(4095)}\n` });
    expect(edge.isError, edge.text).toBe(false);
    await h.call('dbg_io', { session_id: id, action: 'eof' });
    const run = await h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: WAIT_MS });
    expect(run.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    // fgets reads 255 bytes at a time: the 4,096-byte line arrives as 17 pieces, "ok" never did.
    const all = await h.call('dbg_io', { session_id: id, action: 'read', cursor: 0, max_bytes: 65536 });
    expect(all.data.text).not.toContain('got:ok');
    expect(all.data.text).toContain('eof after 17 lines');
  });

  it('dbg_start refuses stdin with a line past the limit before anything starts', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('stdin_echo'), stdin: `${'d'.repeat(4096)}\n` });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toMatch(/a line of 4096 bytes/);
    expect(r.data.error.details.fields).toEqual(['stdin']);
    expect((await h.call('dbg_sessions', {})).data.sessions).toEqual([]);
  });
});
