// Reverse execution with GDB's process record, through the server: from a crash back to the
// write that caused it. Where the machine probe saw process record fail to run backwards (an AMX
// CPU under GDB 13), recording is refused up front with the probe's reason, and that is asserted.
import { describe, expect, it } from 'vitest';
import { RECORD_ENVIRONMENT } from '../../src/backends/gdb/gdbRecord.js';
import { recordVerdict } from '../helpers/machine.js';
import { lineOf } from '../helpers/markers.js';
import { startServer } from '../helpers/mcp.js';
import { saw } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';

/** Skips a test that runs backwards where the probe did not see reverse execution work. */
async function needsReverse(ctx: { skip(note: string): never }): Promise<void> {
  const record = await recordVerdict();
  if (record.reverse === 'broken') ctx.skip(`GDB's process record cannot run backwards here: ${record.detail}`);
  if (record.reverse === 'unknown')
    ctx.skip(`the machine probe could not tell whether reverse execution works: ${record.detail}`);
}

describe('reverse execution (record full)', () => {
  it('is refused up front, with the reason, where process record cannot run backwards', async (ctx) => {
    const record = await recordVerdict();
    if (record.reverse !== 'broken')
      ctx.skip(`reverse execution is not known to fail here (${record.reverse}: ${record.detail})`);
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('corrupt'), record: true });
    expect(start).toMatchObject({ isError: true, code: 'backend_unavailable' });
    const message: string = start.data.error.message;
    expect(message).toContain(`dbg_start record=true is refused: ${record.detail}`);
    expect(message).toMatch(/Instead: rr records .*dbg_record/);
    // Nothing was left behind, and the same program starts without recording, to its crash.
    const listed = await h.call('dbg_sessions', {});
    expect(listed.data.sessions).toEqual([]);
    const plain = await h.call('dbg_start', { program: fixture('corrupt') });
    expect(plain.data.outcome).toMatchObject({ signal: 'SIGSEGV', frame: { line: lineOf('corrupt.c', '@crash') } });
    // record_start at a stop is refused the same way, and the session goes on.
    const id = plain.data.session_id;
    const rec = await h.call('dbg_run', { session_id: id, action: 'record_start' });
    expect(rec).toMatchObject({ isError: true, code: 'backend_unavailable' });
    expect(rec.data.error.message).toContain(`recording is not started: ${record.detail}`);
    const where = await h.call('dbg_inspect', { session_id: id, view: 'stack' });
    expect(where.isError).toBe(false);
  });

  it('runs to the crash recorded, then a watchpoint run backwards finds the corrupting write', async (ctx) => {
    await needsReverse(ctx);
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('corrupt'), record: true });
    expect(start.data.outcome).toMatchObject({
      kind: 'stopped',
      signal: 'SIGSEGV',
      frame: { line: lineOf('corrupt.c', '@crash') },
    });
    expect(start.data.session.recording).toBe(true);
    expect(start.data.warnings.join('\n')).toMatch(/GLIBC_TUNABLES/);
    const id = start.data.session_id;
    const watch = await h.call('dbg_breakpoints', {
      session_id: id,
      action: 'set',
      kind: 'watchpoint',
      expression: 'state.guard',
    });
    expect(watch.isError).toBe(false);
    const back = await h.call('dbg_run', { session_id: id, action: 'reverse_continue' });
    expect(back.data.outcome).toMatchObject({
      reason: 'watchpoint-trigger',
      replaying: true,
      frame: { function: 'fill', line: lineOf('corrupt.c', '@write') },
      // In the program's own order: the guard held 42 and the write made it 40.
      watch: { expression: 'state.guard', old: '42', new: '40' },
    });
    const locals = await h.call('dbg_inspect', { session_id: id, view: 'locals' });
    expect(locals.data.data.variables).toContainEqual({ name: 'i', value: '4', type: 'int' });
  });

  it('steps back into a call, finishes backwards out of it, and reports the ends of history', async (ctx) => {
    await needsReverse(ctx);
    const h = await startServer();
    const start = await h.call('dbg_start', {
      program: fixture('corrupt'),
      record: true,
      breakpoints: [{ location: `corrupt.c:${lineOf('corrupt.c', '@after')}` }],
    });
    const id = start.data.session_id;
    expect(start.data.outcome).toMatchObject({ reason: 'breakpoint-hit', frame: { function: 'main' } });
    // Stepping backwards from after fill(4) enters fill at its end, then the last call of scale.
    const intoFill = await h.call('dbg_run', { session_id: id, action: 'reverse_step' });
    expect(intoFill.data.outcome).toMatchObject({ replaying: true, frame: { function: 'fill' } });
    const intoScale = await h.call('dbg_run', { session_id: id, action: 'reverse_step', count: 2 });
    expect(intoScale.data.outcome.frame).toMatchObject({ function: 'scale', args: [{ name: 'v', value: '4' }] });
    const out = await h.call('dbg_run', { session_id: id, action: 'reverse_finish' });
    expect(out.data.outcome.frame).toMatchObject({ function: 'fill', line: lineOf('corrupt.c', '@write') });
    const origin = await h.call('dbg_run', { session_id: id, action: 'reverse_continue' });
    expect(origin.data.outcome).toMatchObject({ history: 'start', frame: { function: 'main' } });
    expect(origin.text).toMatch(/start of the recorded history/);
    const end = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(end.data.outcome).toMatchObject({ history: 'end', frame: { line: lineOf('corrupt.c', '@after') } });
    const live = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(live.data.outcome).toMatchObject({ signal: 'SIGSEGV', frame: { line: lineOf('corrupt.c', '@crash') } });
  });

  it('refuses to run backwards when nothing is recorded, and records from a stop on request', async (ctx) => {
    // Probed (and kept for the boot) before the server starts, which then reads the same verdict.
    const record = await recordVerdict();
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('corrupt'), stop: 'main' });
    const id = start.data.session_id;
    const refused = await h.call('dbg_run', { session_id: id, action: 'reverse_step' });
    expect(refused).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(refused.data.error.message).toMatch(/record_start/);
    const rec = await h.call('dbg_run', { session_id: id, action: 'record_start' });
    if (record.reverse === 'broken') {
      expect(rec).toMatchObject({ isError: true, code: 'backend_unavailable' });
      expect(rec.data.error.message).toContain(record.detail);
      await saw(ctx, `record_start refused: process record cannot run backwards here (${record.detail})`);
      return;
    }
    expect(rec.data.session.recording).toBe(true);
    // Without record=true glibc's vector routines run, and record full stops on them, saying so; on
    // a CPU without those instructions glibc takes other routines and the recording runs through
    // to the crash. Either is right; the test says which it saw.
    const run = await h.call('dbg_run', { session_id: id, action: 'continue' });
    const note: string = run.data.outcome.record_note ?? '';
    if (note) {
      expect(note).toMatch(/cannot step instruction .* record=true/);
      await saw(ctx, `record full stopped on an instruction it cannot record: ${note}`);
    } else {
      expect(run.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
      await saw(ctx, 'the recording ran through to the crash (no vector routine it cannot record)');
    }
    const stopped = await h.call('dbg_run', { session_id: id, action: 'record_stop' });
    expect(stopped.data.session.recording).toBeUndefined();
  });

  it("a run backwards gdb cannot carry out ends, with gdb's reason, instead of looping to its deadline", async (ctx) => {
    // Recording begun with a raw command (--raw full) is not refused: it is the way into gdb's
    // own failure, which on an AMX CPU under GDB 13 is an error printed for ever with no stop.
    const record = await recordVerdict();
    if (record.reverse === 'unknown')
      ctx.skip(`the machine probe could not tell whether reverse execution works: ${record.detail}`);
    const h = await startServer(['--raw', 'full']);
    // The environment record=true gives the program: glibc's SSE2 routines, which record full steps.
    const start = await h.call('dbg_start', { program: fixture('corrupt'), stop: 'main', env: RECORD_ENVIRONMENT });
    const id = start.data.session_id;
    expect((await h.call('dbg_command', { session_id: id, command: 'record full' })).isError).toBe(false);
    const crash = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(crash.data.outcome).toMatchObject({ signal: 'SIGSEGV', frame: { line: lineOf('corrupt.c', '@crash') } });
    // printf's SSE2 routines wrote vector registers: going back over them is what fails where
    // reverse execution is broken.
    const back = await h.call('dbg_run', { session_id: id, action: 'reverse_continue', timeout_ms: 60_000 });
    if (record.reverse === 'work') {
      // Back to where recording began (or to an instruction it could not record): a stop in history.
      expect(back.data.outcome).toMatchObject({ kind: 'stopped', replaying: true });
      await saw(
        ctx,
        `reverse execution works here: the run back stopped (${JSON.stringify(back.data.outcome.history ?? back.data.outcome.reason)})`,
      );
      return;
    }
    await saw(ctx, `reverse execution broken here (${record.detail}): the run back ends as a kill with gdb's words`);
    expect(back.data.outcome).toMatchObject({
      kind: 'exited',
      killed: true,
      reason: expect.stringMatching(
        /printed "Couldn't write extended state status: Bad address\." .*reverse execution does not work here/,
      ),
    });
    expect(back.text).toMatch(/the program was killed: gdb could not carry out this run/);
    // The interrupt answers at once, and the session goes on: the program starts again.
    const interrupted = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect(interrupted.data.outcome).toMatchObject({ kind: 'exited', killed: true });
    const again = await h.call('dbg_run', { session_id: id, action: 'restart' });
    expect(again.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'main' } });
    // A step back over printf ends the same way.
    expect((await h.call('dbg_command', { session_id: id, command: 'record full' })).isError).toBe(false);
    const over = await h.call('dbg_run', { session_id: id, action: 'next' });
    expect(over.data.outcome).toMatchObject({ kind: 'stopped', frame: { line: lineOf('corrupt.c', '@fill') } });
    const stepBack = await h.call('dbg_run', { session_id: id, action: 'reverse_next', timeout_ms: 60_000 });
    expect(stepBack.data.outcome).toMatchObject({
      kind: 'exited',
      killed: true,
      reason: expect.stringMatching(/extended state status/),
    });
  });
});
