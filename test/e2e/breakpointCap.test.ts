// Issue 11, item 7: 10,000 breakpoints had no cap, and each set re-listed the whole table (1,000
// took 31 s). A session now holds at most --max-breakpoints (256 by default) of every kind, and a
// set costs the same debugger commands whatever the table holds; its answer lists the table only
// while it is small.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

const transcripts = mkdtempSync(join(tmpdir(), 'dbg-mcp-bpcap-'));
afterAll(() => rmSync(transcripts, { recursive: true, force: true }));

async function atMain(h: McpHarness): Promise<string> {
  const r = await h.call('dbg_start', { program: fixture('hello'), stop: 'main' });
  expect(r.data.outcome?.kind, r.text).toBe('stopped');
  return r.data.session_id as string;
}

function set(h: McpHarness, id: string, extra: Record<string, unknown> = { location: 'add' }) {
  return h.call('dbg_breakpoints', { session_id: id, action: 'set', ...extra });
}

describe('breakpoints: a cap, and sets that do not re-list the table', () => {
  it('the default cap is 256 breakpoints a session; the next is limit_exceeded, a delete makes room', async () => {
    const h = await startServer();
    const id = await atMain(h);
    for (let i = 0; i < 256; i++) {
      const r = await set(h, id);
      expect(r.isError, `set ${i + 1}: ${r.text}`).toBe(false);
    }
    const over = await set(h, id);
    expect(over).toMatchObject({ isError: true, code: 'limit_exceeded' });
    expect(over.data.error.message).toMatch(
      /^256 breakpoints are set, the most a session may hold \(--max-breakpoints\)/,
    );
    const catchOver = await set(h, id, { kind: 'catchpoint', event: 'syscall', filter: 'write' });
    expect(catchOver.code).toBe('limit_exceeded');
    const listed = await h.call('dbg_breakpoints', { session_id: id, action: 'list' });
    expect(listed.data.breakpoints).toHaveLength(100);
    expect(listed.data.more).toBe(156);
    await h.call('dbg_breakpoints', { session_id: id, action: 'delete', numbers: ['2'] });
    expect((await set(h, id)).isError).toBe(false);
  }, 180_000);

  it('--max-breakpoints counts every kind, and a set answers with the table only while it is small', async () => {
    const h = await startServer(['--max-breakpoints', '20', '--transcript-dir', transcripts]);
    const id = await atMain(h);
    const kinds: Record<string, unknown>[] = [
      { location: 'add' },
      { kind: 'dprintf', location: 'add', format: 'a=%d\\n', format_args: ['a'] },
      { kind: 'catchpoint', event: 'syscall', filter: 'write' },
      { kind: 'watchpoint', expression: 'x' },
    ];
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await set(h, id, kinds[i % kinds.length]));
    for (const a of answers) expect(a.isError, a.text).toBe(false);
    // Small: the table comes with the set. Past 16: the new one and the count.
    expect(answers[15]?.data.breakpoints).toHaveLength(16);
    expect(answers[16]?.data.breakpoints).toEqual([]);
    expect(answers[16]?.data.more).toBe(17);
    expect(answers[16]?.text).toMatch(/\n17 breakpoints in all \(action=list shows them\)/);
    expect(answers[16]?.data.breakpoint.number).toBe('18');
    const over = await set(h, id, kinds[1]);
    expect(over).toMatchObject({ isError: true, code: 'limit_exceeded' });
    // No set re-listed the whole table: in the transcript, -break-list is never sent.
    const [file] = readdirSync(transcripts);
    const sent = readFileSync(join(transcripts, file as string), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('> '));
    expect(sent.filter((l) => /-break-list\b/.test(l))).toEqual([]);
    expect(sent.filter((l) => /-break-info\b/.test(l)).length).toBeGreaterThan(0);
  }, 120_000);
});
