// Attach: a process this server did not start is stopped where it is, every thread readable;
// closing detaches and leaves it running and untraced; a refusal is explained.
import { describe, expect, it } from 'vitest';
import { gatherView, type ThreadsViewData } from '../../../src/session/evidence.js';
import { expectStopped, failure, WAIT_MS } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { newManager, openTarget } from '../../helpers/sessions.js';
import { cpuTicks, printed, startProcess, traceState, waitUntil } from '../../helpers/targets.js';

function attach(pid: number, manager = newManager()) {
  return openTarget(manager, { kind: 'attach', pid, timeoutMs: WAIT_MS });
}

/** A process of its own that has printed `ready` (so every thread exists), and its pid. */
async function running(name: string, ready: string): Promise<number> {
  const child = startProcess(fixture(name));
  await printed(child, ready);
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  return child.pid;
}

describe('attach', () => {
  it('stops the process and shows where every thread waits', async () => {
    const pid = await running('threads', 'all started');
    const { session, outcome } = await attach(pid);
    expectStopped(outcome ?? { kind: 'running' }, 'the attach');
    expect(session.target).toMatchObject({ kind: 'attach', pid, program: fixture('threads') });
    const gdbPid = session.backend.info.pid;
    expect(traceState(pid)).toMatchObject({ tracerPid: gdbPid, state: 't' });
    const view = await session.query(['stopped'], 'threads', (b) =>
      gatherView(b, session.snapshot, { view: 'threads' }),
    );
    const threads = view.data as ThreadsViewData;
    expect(threads.total).toBe(4);
    expect(threads.threads.map((t) => t.waiting).sort()).toEqual(['join', 'sleep', 'sleep', 'sleep']);
    expect([...session.snapshot.inferiors.values()]).toEqual([pid]);
  });

  it('closing detaches: the process runs on, untraced', async () => {
    const pid = await running('spin', 'spinning');
    const { session } = await attach(pid);
    const stopped = cpuTicks(pid);
    await new Promise((r) => setTimeout(r, 200));
    expect(cpuTicks(pid)).toBe(stopped);
    await session.close();
    expect(traceState(pid)?.tracerPid).toBe(0);
    expect(traceState(pid)?.state).toBe('R');
    const after = cpuTicks(pid);
    await waitUntil(() => cpuTicks(pid) > after, 'the detached process to use the CPU again');
  });

  it('closing while the process runs detaches too', async () => {
    const pid = await running('spin', 'spinning');
    const { session } = await attach(pid);
    const outcome = await session.run({ action: 'continue', timeoutMs: 300, onTimeout: 'return' });
    expect(outcome.kind).toBe('running');
    await session.close();
    expect(traceState(pid)).toEqual({ tracerPid: 0, state: 'R' });
  });

  it('explains a process that another debugger traces', async () => {
    const pid = await running('spin', 'spinning');
    const first = await attach(pid);
    const f = await failure(attach(pid));
    expect(f.code).toBe('debugger_error');
    expect(f.message).toBe(
      `cannot attach to process ${pid}: it is already traced by process ${first.session.backend.info.pid} (gdb); a process has one tracer at a time: detach that debugger or strace first`,
    );
  });

  it('refuses a pid that names no process, and restart of an attached one', async () => {
    const gone = await failure(attach(4_194_000));
    expect(gone).toEqual({ code: 'invalid_argument', message: 'attach: no process 4194000 is running' });
    const pid = await running('spin', 'spinning');
    const { session } = await attach(pid);
    const restart = await failure(session.run({ action: 'restart' }));
    expect(restart.code).toBe('wrong_state');
    expect(restart.message).toContain(`this session did not start the program (it is attached to pid ${pid})`);
  });
});
