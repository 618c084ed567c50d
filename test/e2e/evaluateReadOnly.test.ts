// Issue 11, item 7: dbg_batch (read-only, idempotent) and dbg_evaluate without assign wrote memory
// (`x = 1`, `x++`). An evaluation only reads now: writing expressions are refused, each as its own
// error, and the value is unchanged; assign still writes. With --inferior-calls on the answer says
// that a call may have changed the program. An evaluation that runs past the command deadline (a
// catastrophic $_regex) says that it blocked its session.
import { describe, expect, it } from 'vitest';
import { inferiorCallVerdict } from '../helpers/machine.js';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { saw } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';

async function inScale(flags: string[] = []): Promise<{ h: McpHarness; id: string }> {
  const h = await startServer(flags);
  const r = await h.call('dbg_start', { program: fixture('data'), breakpoints: [{ location: 'scale' }] });
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped', frame: { function: 'scale' } });
  return { h, id: r.data.session_id as string };
}

const WRITES = [
  'reads = 1',
  'reads++',
  '++reads',
  'reads--',
  'reads += 2',
  'numbers[1] = 7',
  '(reads = 1) == 1',
  '$rax = 0',
];

describe('evaluation only reads', () => {
  it('dbg_evaluate refuses every writing expression, and nothing changed', async () => {
    const { h, id } = await inScale();
    const r = await h.call('dbg_evaluate', { session_id: id, expressions: [...WRITES, 'reads == 0', 'v <= 5'] });
    expect(r.isError, r.text).toBe(false);
    WRITES.forEach((expression, i) => {
      expect(r.data.results[i], expression).toMatchObject({
        expression,
        error: expect.stringMatching(/writes .*evaluating only reads; to change a value use assign/),
      });
    });
    expect(r.data.results.slice(WRITES.length)).toEqual([
      { expression: 'reads == 0', value: '1' },
      { expression: 'v <= 5', value: '1' },
    ]);
    const after = await h.call('dbg_evaluate', { session_id: id, expressions: ['reads', 'numbers[1]'] });
    expect(after.data.results.map((x: { value: string }) => x.value)).toEqual(['0', '20']);
    // assign is the way to write, and says so.
    const assigned = await h.call('dbg_evaluate', {
      session_id: id,
      assign: { target: 'reads', value: '4' },
      expressions: ['reads'],
    });
    expect(assigned.data).toMatchObject({
      assigned: { target: 'reads', old: '0', new: '4' },
      results: [{ value: '4' }],
    });
  });

  it('dbg_batch, read-only and idempotent, cannot write either', async () => {
    const { h, id } = await inScale();
    const r = await h.call('dbg_batch', {
      session_id: id,
      operations: [
        { op: 'evaluate', expressions: ['reads = 5', 'reads++'] },
        { op: 'evaluate', expressions: ['reads'] },
      ],
    });
    expect(r.data.results[0].results.map((x: { error?: string }) => x.error !== undefined)).toEqual([true, true]);
    expect(r.data.results[1].results[0].value).toBe('0');
  });

  it('convenience functions that are not known to be read-only are refused', async () => {
    const { h, id } = await inScale();
    const r = await h.call('dbg_evaluate', { session_id: id, expressions: ['$_shell("id")', '$_strlen(greeting)'] });
    expect(r.data.results[0].error).toMatch(/\$_shell\(…\)` is not one of GDB's read-only convenience functions/);
    expect(r.data.results[1].value).toBe('11');
  });

  it('with --inferior-calls on, a call is answered with the warning that it may have changed the program', async (ctx) => {
    const calls = await inferiorCallVerdict();
    if (calls.inferiorCalls === 'unknown')
      ctx.skip(`the machine probe could not tell whether calls work: ${calls.detail}`);
    const { h, id } = await inScale(['--inferior-calls', 'on']);
    const r = await h.call('dbg_evaluate', { session_id: id, expressions: ['peek()'] });
    if (calls.inferiorCalls === 'broken') {
      // This CPU (AMX under GDB 13): the call cannot work, and the answer says why plainly.
      await saw(ctx, `inferior calls broken here (${calls.detail}): the call is refused with the reason`);
      expect(r.data.results[0].error).toMatch(/extended register state/);
    } else {
      expect(r.data.results[0].value).toBe('20');
    }
    expect(r.data.warnings).toEqual([expect.stringMatching(/^inferior calls are on .* may have changed it/)]);
    const plain = await h.call('dbg_evaluate', { session_id: id, expressions: ['sizeof(rec)', 'v * 2'] });
    expect(plain.data.warnings).toBeUndefined();
    const batch = await h.call('dbg_batch', {
      session_id: id,
      operations: [{ op: 'evaluate', expressions: ['peek()'] }],
    });
    expect(batch.data.warnings).toEqual([expect.stringMatching(/^inferior calls are on/)]);
  });

  it('a catastrophic $_regex past the command deadline: the answer says it blocked the session, which then answers', async () => {
    const { h, id } = await inScale(['--command-timeout', '1500']);
    const r = await h.call('dbg_evaluate', { session_id: id, expressions: ['$_regex(long_text, "^(x+x+)+y$")'] });
    expect(r).toMatchObject({ isError: true, code: 'timeout' });
    expect(r.data.error.message).toMatch(
      /ran past the 1500 ms command deadline and blocked this session meanwhile.*\$_regex/,
    );
    // GDB was interrupted: the session answers again (the interrupted Python may take a moment).
    let again = await h.call('dbg_evaluate', { session_id: id, expressions: ['v'] });
    for (let i = 0; i < 20 && again.isError; i++)
      again = await h.call('dbg_evaluate', { session_id: id, expressions: ['v'] });
    expect(again.data.results[0], again.text).toMatchObject({ value: '5' });
  }, 60_000);
});
