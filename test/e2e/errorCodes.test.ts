// The error codes an agent acts on, each from a real situation (the others are pinned where the
// situation lives: invalid_argument, no_session, wrong_state, stale_context, backend_unavailable
// in start/run tests; debugger_error with a dead gdb in the integration tests).
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

describe('error codes', () => {
  it('limit_exceeded: more sessions than --max-sessions', async () => {
    const h = await startServer(['--max-sessions', '1']);
    const first = await h.call('dbg_start', { program: fixture('hello'), stop: 'no-run' });
    expect(first.isError).toBe(false);
    const second = await h.call('dbg_start', { program: fixture('hello'), stop: 'no-run' });
    expect(second).toMatchObject({ isError: true, code: 'limit_exceeded' });
    expect(second.data.error.message).toMatch(/dbg_close/);
    await h.call('dbg_close', { session_id: first.data.session_id });
    const third = await h.call('dbg_start', { program: fixture('hello'), stop: 'no-run' });
    expect(third.isError).toBe(false);
  });

  it('timeout: a debugger command that outlives its deadline, and the session still answers', async () => {
    const h = await startServer(['--raw', 'full']);
    const s = await h.call('dbg_start', { program: fixture('hello'), stop: 'main' });
    const id = s.data.session_id;
    const slow = await h.call('dbg_command', {
      session_id: id,
      command: 'python import time; time.sleep(3)',
      timeout_ms: 300,
    });
    expect(slow).toMatchObject({ isError: true, code: 'timeout' });
    // The late answer is dropped by its token; the next command gets its own answer.
    const next = await h.call('dbg_evaluate', { session_id: id, expressions: ['1 + 2'] });
    expect(next.data.results[0].value).toBe('3');
  });

  it('debugger_error: what gdb refuses comes back with its message', async () => {
    const h = await startServer();
    const s = await h.call('dbg_start', { program: fixture('hello'), stop: 'main' });
    const r = await h.call('dbg_run', { session_id: s.data.session_id, action: 'jump', location: 'no_such_place' });
    expect(r).toMatchObject({ isError: true, code: 'debugger_error' });
    expect(r.data.error.message).toMatch(/no_such_place/);
  });
});
