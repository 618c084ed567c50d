// Over stdio there is one client: it holds every session, a handoff has nobody to go to, and the
// answers it gets when a session closes under a call say why. In process (helpers/inProcess.ts).
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/inProcess.js';
import { fixture } from '../helpers/paths.js';
import { until } from '../helpers/procfs.js';

describe('the stdio client', { timeout: 60_000 }, () => {
  it('cannot hand a session off: there is nobody else', async () => {
    const h = await startInProcess();
    const id = (await h.call('dbg_start', { program: fixture('hello'), stop: 'no-run' })).data.session_id;
    const r = await h.call('dbg_close', { session_id: id, handoff_to: 'bob' });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toBe(
      'handoff_to: over stdio this server has one client: nobody else could take the session',
    );
    expect(h.created.sessions.offeredTo('bob')).toEqual([]);
    expect(h.created.sessions.holderOf(id)).toBe('stdio');
  });

  it('is told a dbg_run was ended by dbg_close, not that gdb exited', async () => {
    const h = await startInProcess();
    const id = (await h.call('dbg_start', { program: fixture('spin'), stop: 'main' })).data.session_id as string;
    const pending = h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: 120_000 });
    await until(() => h.created.sessions.get(id).phase === 'running', 'the program to run', 15_000);
    expect((await h.call('dbg_close', { session_id: id })).data.closed).toBe(true);
    const r = await pending;
    expect(r).toMatchObject({ isError: true, code: 'no_session' });
    expect(r.data.error.message).toBe(`session ${id} is closed: dbg_close ended it`);
  });
});
