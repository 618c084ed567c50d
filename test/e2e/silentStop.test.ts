// Issue 11, item 7: a dprintf whose argument calls a function, with calls off (the default), made
// GDB stop the program without a *stopped record: the server said `running` and an interrupt
// timed out. The session now follows GDB: the stop is reported, with GDB's words for it, and the
// program goes on from there.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';

describe('a stop GDB does not announce', () => {
  it('a dprintf calling a function with calls off: the run stops there, says why, and goes on', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('data'), stop: 'main' });
    const id = start.data.session_id as string;
    const set = await h.call('dbg_breakpoints', {
      session_id: id,
      action: 'set',
      kind: 'dprintf',
      location: 'data.c:41',
      format: 'seen=%d\\n',
      format_args: ['peek()'],
    });
    expect(set.isError, set.text).toBe(false);
    const run = await h.call('dbg_run', {
      session_id: id,
      action: 'continue',
      timeout_ms: WAIT_MS,
      on_timeout: 'return',
    });
    expect(run.data.outcome, run.text).toMatchObject({ kind: 'stopped', frame: { function: 'main', line: 41 } });
    expect(run.data.outcome.raw_reason).toMatch(/may-call-functions is off/);
    expect(run.text).toMatch(
      /^stop 2: stopped in main at data\.c:41 \(GDB stopped the program .*may-call-functions is off\.\)$/m,
    );
    expect(run.data.session.state).toBe('stopped');
    // The session and GDB agree: reads work at this stop, and the program runs on to its end.
    const value = await h.call('dbg_evaluate', { session_id: id, expressions: ['seen'] });
    expect(value.isError, value.text).toBe(false);
    const rest = await h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: WAIT_MS });
    expect(rest.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
  });
});
