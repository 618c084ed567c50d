// Issue 15: debuggers started ahead of the next dbg_start (--warm). A second session takes the gdb
// the pool started after the first; a pooled gdb that died is replaced, never handed out; --warm 0
// starts none; and however the server ends, no pooled gdb outlives it. The in-process harness
// checks after each test that no gdb it started is left (pooled ones included).
import { describe, expect, it } from 'vitest';
import { findLldbDap } from '../../src/backends/lldb/lldbPath.js';
import { startInProcess } from '../helpers/inProcess.js';
import { startServer } from '../helpers/mcp.js';
import { HANG_MS, HANG_TEST_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';
import { alive, descendants, killQuietly, until } from '../helpers/procfs.js';

type Caller = Awaited<ReturnType<typeof startInProcess>>;

/** The product's default, one warm gdb: test servers start with none unless asked (helpers/paths.ts). */
const POOLED = ['--warm', '1'];

/** A session stopped at main of hello; answers its id and its debugger's pid. */
async function startHello(
  h: Pick<Caller, 'call'>,
  backend: 'gdb' | 'lldb' = 'gdb',
): Promise<{ id: string; debuggerPid: number }> {
  const r = await h.call('dbg_start', { program: fixture('hello'), stop: 'main', backend }, { timeoutMs: HANG_MS });
  expect(r.isError, r.text).toBe(false);
  expect(r.data.session.state).toBe('stopped');
  const id = r.data.session_id as string;
  const listed = await h.call('dbg_sessions', {});
  const mine = (listed.data.sessions as { id: string; debugger_pid: number }[]).find((s) => s.id === id);
  expect(mine?.debugger_pid, 'the session lists its debugger').toBeTypeOf('number');
  return { id, debuggerPid: mine?.debugger_pid as number };
}

/** Waits until the pool of `h` holds a ready debugger of `kind` (gdb: the only kind there); answers its pid. */
async function pooledGdb(h: Caller, kind: 'gdb' | 'lldb' = 'gdb'): Promise<number> {
  const sessions = h.created.sessions;
  await until(() => (sessions.poolStats().ready[kind] ?? 0) >= 1, `a pooled ${kind} to be ready`, HANG_MS);
  const [pid] = sessions.pooledPids();
  expect(pid).toBeTypeOf('number');
  return pid as number;
}

describe('the warm debugger pool', { timeout: HANG_TEST_MS }, () => {
  it('a second dbg_start takes the gdb the pool started after the first', async () => {
    const h = await startInProcess(POOLED);
    expect(h.created.sessions.poolStats().prepared, 'nothing is started before a session asks').toBe(0);
    const first = await startHello(h);
    const pooled = await pooledGdb(h);
    expect(pooled).not.toBe(first.debuggerPid);
    await h.call('dbg_close', { session_id: first.id });
    const second = await startHello(h);
    expect(second.debuggerPid, 'the second session runs on the pooled gdb').toBe(pooled);
    expect(h.created.sessions.poolStats()).toMatchObject({ taken: 1 });
    // Refilled in the background: a new one, not the one handed out.
    const next = await pooledGdb(h);
    expect(next).not.toBe(pooled);
  });

  it('the refill starts as soon as the dbg_start that took from the pool has answered', async () => {
    const h = await startInProcess(POOLED);
    const first = await startHello(h);
    await pooledGdb(h);
    await h.call('dbg_close', { session_id: first.id });
    await startHello(h);
    const taken = h.created.sessions.poolStats();
    expect(taken.taken).toBe(1);
    // The server refills on the turn after it answered (not after the fallback delay of 1.5 s, unless
    // the call itself took that long): one more turn of the event loop, and a gdb is starting.
    await new Promise((resolve) => setImmediate(resolve));
    const after = h.created.sessions.poolStats();
    expect((after.starting.gdb ?? 0) + (after.ready.gdb ?? 0), JSON.stringify(after)).toBe(1);
    await pooledGdb(h);
  });

  it.skipIf(findLldbDap() === undefined)(
    'LLDB too: a second dbg_start takes the lldb-dap the pool started and initialized after the first',
    async () => {
      const h = await startInProcess(POOLED);
      const first = await startHello(h, 'lldb');
      const pooled = await pooledGdb(h, 'lldb');
      expect(pooled).not.toBe(first.debuggerPid);
      await h.call('dbg_close', { session_id: first.id });
      const second = await startHello(h, 'lldb');
      expect(second.debuggerPid, 'the second session runs on the pooled lldb-dap').toBe(pooled);
      expect(h.created.sessions.poolStats()).toMatchObject({ taken: 1 });
      // The pooled adapter serves the session in full: a breakpoint, a run, a read.
      const bp = await h.call('dbg_breakpoints', { session_id: second.id, action: 'set', location: 'add' });
      expect(bp.isError, bp.text).toBe(false);
      const ran = await h.call('dbg_run', { session_id: second.id, action: 'continue' });
      expect(ran.data.outcome, ran.text).toMatchObject({ kind: 'stopped', reason: 'breakpoint-hit' });
    },
  );

  it('a pooled gdb that was killed is not handed out, and is replaced', async () => {
    const h = await startInProcess(POOLED);
    await startHello(h);
    const pooled = await pooledGdb(h);
    killQuietly(pooled);
    const second = await startHello(h);
    expect(second.debuggerPid).not.toBe(pooled);
    expect(alive(second.debuggerPid)).toBe(true);
    expect(h.created.sessions.poolStats().discarded, 'the dead one was dropped').toBeGreaterThanOrEqual(1);
    const replacement = await pooledGdb(h);
    expect(replacement).not.toBe(pooled);
  });

  it('a pooled gdb that dies after it was handed out: the session opens on a fresh gdb', async () => {
    const h = await startInProcess(POOLED);
    await startHello(h);
    const pooled = await pooledGdb(h);
    // Stopped, the pooled gdb passes the liveness check and is handed out, then answers nothing;
    // killed once taken, it dies in the middle of its session's open.
    process.kill(pooled, 'SIGSTOP');
    const before = h.created.sessions.poolStats();
    const second = startHello(h);
    await until(() => h.created.sessions.poolStats().taken > before.taken, 'the stopped gdb to be handed out', HANG_MS);
    killQuietly(pooled);
    const { debuggerPid } = await second;
    expect(debuggerPid).not.toBe(pooled);
    expect(alive(debuggerPid)).toBe(true);
    expect(h.created.sessions.poolStats().discarded, 'the dead one was counted').toBe(before.discarded + 1);
  });

  it('--warm 0 starts no debugger ahead of a session', async () => {
    const h = await startInProcess(['--warm', '0']);
    const first = await startHello(h);
    await h.call('dbg_close', { session_id: first.id });
    await startHello(h);
    expect(h.created.sessions.poolStats()).toMatchObject({ prepared: 0, taken: 0, ready: {}, starting: {} });
    expect(h.created.sessions.pooledPids()).toEqual([]);
  });

  for (const end of ['SIGKILL of the server', 'the client hanging up'] as const) {
    it(`no pooled gdb outlives the server: ${end}`, async () => {
      const h = await startServer(POOLED);
      const serverPid = h.transport.pid as number;
      const session = await startHello(h);
      // The pool's gdb: a gdb child of the server that is not the session's.
      let pooled: number | undefined;
      await until(
        () => {
          pooled = descendants(serverPid).find(
            (p) => p.comm === 'gdb' && p.ppid === serverPid && p.pid !== session.debuggerPid,
          )?.pid;
          return pooled !== undefined;
        },
        'a pooled gdb under the server',
        HANG_MS,
      );
      if (end === 'SIGKILL of the server') process.kill(serverPid, 'SIGKILL');
      else await h.close();
      await until(() => !alive(pooled as number), `pooled gdb ${pooled} to be gone after ${end}`, HANG_MS);
      await until(() => !alive(session.debuggerPid), "the session's gdb to be gone", HANG_MS);
    });
  }
});
