// The session manager with clients, on real gdb: the per-client quota taken at the reservation
// (a burst of opens cannot pass it), what the observer hears (an idle close by its client, a
// debugger that died, not one a close ended), and what calls waiting on a session are told when
// it closes: why it closed, not that gdb exited.
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../../src/session/sessionManager.js';
import type { SessionObserver } from '../../../src/session/sessionObserver.js';
import { WAIT_MS } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { alive, until } from '../../helpers/procfs.js';

const managers: SessionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.closeAll()));
});

function heard(): SessionObserver & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    debuggerDied: (kind) => events.push(`died ${kind}`),
    reaped: (client) => events.push(`reaped ${client}`),
    sweep: (count) => events.push(`sweep ${count}`),
  };
}

function manager(options: ConstructorParameters<typeof SessionManager>[0]): SessionManager {
  const m = new SessionManager(options);
  managers.push(m);
  return m;
}

const hello = { kind: 'launch', program: { program: fixture('hello'), args: [] } } as const;

describe('SessionManager with clients', () => {
  it('takes each client quota at the reservation: of a burst of five, two open', async () => {
    const m = manager({ idleTimeoutMs: 0, clientSessions: 2 });
    const burst = await Promise.allSettled(
      Array.from({ length: 5 }, () => m.open('gdb', hello, { timeoutMs: WAIT_MS, client: 'alice' })),
    );
    expect(burst.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = burst.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(refused.map((e) => [e.code, e.details.refusal])).toEqual(
      Array.from({ length: 3 }, () => ['limit_exceeded', 'client_session_limit']),
    );
    const bobs = await m.open('gdb', hello, { timeoutMs: WAIT_MS, client: 'bob' });
    expect(m.list('alice')).toHaveLength(2);
    expect(m.list('bob').map((s) => s.id)).toEqual([bobs.session.id]);
    expect(m.holderOf(bobs.session.id)).toBe('bob');
  });

  it('without --client-sessions a network client holds at most half of --max-sessions (issue 22)', async () => {
    const m = manager({ idleTimeoutMs: 0, maxSessions: 4 });
    const alices = await Promise.allSettled(
      Array.from({ length: 3 }, () => m.open('gdb', hello, { timeoutMs: WAIT_MS, client: 'alice' })),
    );
    expect(alices.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = alices.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.details.refusal).toBe('client_session_limit');
    expect(refused.reason.message).toMatch(/--client-sessions/);
    // Bob still has his share.
    await m.open('gdb', hello, { timeoutMs: WAIT_MS, client: 'bob' });
    expect(m.list('bob')).toHaveLength(1);
  });

  it('tells the observer of an idle close by its client, and of a death nobody asked for', async () => {
    const observer = heard();
    const m = manager({ idleTimeoutMs: 60_000, observer });
    const idle = await m.open('gdb', hello, { timeoutMs: WAIT_MS, client: 'alice' });
    await m.reapIdle(Date.now() + 120_000);
    expect(m.size).toBe(0);
    expect(m.reapedSessions('alice').map((r) => r.id)).toEqual([idle.session.id]);
    expect(m.reapedSessions('bob')).toEqual([]);
    // An orderly close: gdb reported `died` as it went, and that is no death.
    // (The sweep after each close is networkMetrics.test.ts's.)
    const heardHere = () => observer.events.filter((e) => !e.startsWith('sweep '));
    expect(heardHere()).toEqual(['reaped alice']);
    const { session } = await m.open('gdb', hello, { timeoutMs: WAIT_MS, client: 'alice' });
    const gdb = session.debugger.pid as number;
    process.kill(gdb, 'SIGKILL');
    await until(() => session.phase === 'dead', 'the session to see its debugger die', WAIT_MS);
    expect(heardHere()).toEqual(['reaped alice', 'died gdb']);
    await m.close(session.id);
  });

  it('answers a run waiting on a session that closes with the reason it closed', async () => {
    const m = manager({ idleTimeoutMs: 0 });
    const spin = { kind: 'launch', program: { program: fixture('spin'), args: [] } } as const;
    const closed = (await m.open('gdb', spin, { timeoutMs: WAIT_MS })).session;
    const shut = (await m.open('gdb', spin, { timeoutMs: WAIT_MS })).session;
    const waits = [closed, shut].map((s) => s.run({ action: 'run', startMode: 'none', timeoutMs: 120_000 }));
    for (const w of waits) w.catch(() => {});
    await until(() => closed.phase === 'running' && shut.phase === 'running', 'both programs to run', WAIT_MS);
    const program = [...closed.snapshot.inferiors.values()][0] as number;
    await m.close(closed.id, 'dbg_close ended it');
    await expect(waits[0]).rejects.toMatchObject({
      code: 'no_session',
      message: `session ${closed.id} is closed: dbg_close ended it`,
    });
    expect(alive(program)).toBe(false);
    await m.closeAll();
    await expect(waits[1]).rejects.toMatchObject({
      code: 'no_session',
      message: `session ${shut.id} is closed: the server is shutting down`,
    });
  });
});
