// The debugger killed from outside: the session turns dead with the reason, whatever was waiting
// on gdb answers at once, the program does not outlive it, and the next session is unaffected.
import { describe, expect, it } from 'vitest';
import type { GdbBackend } from '../../../src/backends/gdb/gdbBackend.js';
import { expectStopped, failure, WAIT_MS, waitForPhase } from '../../helpers/outcomes.js';
import { alive, until } from '../../helpers/procfs.js';
import { loaded } from '../../helpers/sessions.js';

type Session = Awaited<ReturnType<typeof loaded>>;

const gdbOf = (s: Session): GdbBackend => s.backend as GdbBackend;

const gone = async (pid: number): Promise<void> => {
  await until(() => !alive(pid), `process ${pid} to be gone`, WAIT_MS);
};

function programPid(s: Session): number {
  const pid = [...s.snapshot.inferiors.values()][0];
  if (pid === undefined) throw new Error('no program pid in the snapshot');
  return pid;
}

/** Checks everything a dead session must say, for both cases below. */
async function expectDeadSession(s: Session): Promise<void> {
  await waitForPhase(s, ['dead']);
  const state = s.snapshot.state;
  expect(state.phase).toBe('dead');
  expect(state.phase === 'dead' ? state.reason : '').toMatch(/SIGKILL/);
  expect(s.snapshot.threads.size).toBe(0);
  expect(s.snapshot.inferiors.size).toBe(0);
  // Later calls are refused with the reason and the next step, without reaching gdb.
  const next = await failure(s.run({ action: 'next', timeoutMs: WAIT_MS }));
  expect(next.code).toBe('debugger_error');
  expect(next.message).toMatch(/SIGKILL/);
  expect(next.message).toMatch(/dbg_close/);
  expect((await failure(s.query(['stopped'], 'evaluate', (b) => b.evaluate('1', {})))).code).toBe('debugger_error');
  expect(await s.interrupt()).toEqual({ kind: 'dead', reason: expect.stringMatching(/SIGKILL/) });
  // gdb's own children die with its group, but may still be
  // awaiting their reaper when the death is reported; close() sweeps the group.
  await s.close();
  await s.close();
  await until(() => !gdbOf(s).groupAlive, "gdb's process group to be gone", WAIT_MS);
}

describe('the debugger dies', () => {
  it('killed while stopped: a command in flight fails at once with debugger_error, and the session is dead', async () => {
    const s = await loaded('loop');
    expectStopped(await s.run({ action: 'run', startMode: 'main', timeoutMs: WAIT_MS }), 'run to main');
    const program = programPid(s);

    // A command gdb is busy with (a 10 s sleep in its Python) when it is killed.
    let sent!: () => void;
    const inFlight = new Promise<void>((r) => {
      sent = r;
    });
    const pending = s.query(['stopped'], 'run a slow command', (b) => {
      const answer = b.command('python import time; time.sleep(10)', { policy: 'full' });
      sent();
      return answer;
    });
    await inFlight;
    expect(gdbOf(s).signalDebugger('SIGKILL')).toBe(true);
    // Failed by the death, with its reason: not after the sleep, nor at the command's deadline
    // (that would be code timeout). How soon is bench/shutdownBench.mjs's to measure.
    const f = await failure(pending);
    expect(f.code).toBe('debugger_error');
    expect(f.message).toMatch(/SIGKILL/);

    await expectDeadSession(s);
    // PTRACE_O_EXITKILL: the traced program dies with its debugger.
    await gone(program);
  });

  it('killed while running: the waiting run answers dead at once, queued calls are refused with the reason', async () => {
    const s = await loaded('spin');
    expectStopped(
      await s.run({ action: 'run', startMode: 'none', timeoutMs: 200, onTimeout: 'interrupt' }),
      'first stop',
    );
    const program = programPid(s);
    const waiting = s.run({ action: 'continue', timeoutMs: 20_000 });
    await waitForPhase(s, ['running']);
    // Posted behind the waiting run, so it reaches the mailbox only after gdb is gone.
    const queued = failure(s.query(['stopped', 'running'], 'evaluate', (b) => b.evaluate('counter', {})));

    expect(gdbOf(s).signalDebugger('SIGKILL')).toBe(true);
    // `dead`, not `running` at the run's 20 s deadline: the death ended the wait.
    const outcome = await waiting;
    expect(outcome).toEqual({ kind: 'dead', reason: expect.stringMatching(/SIGKILL/) });
    const q = await queued;
    expect(q.code).toBe('debugger_error');
    expect(q.message).toMatch(/gone.*SIGKILL/);

    await expectDeadSession(s);
    await gone(program);
  });

  it('a new session works after one died', async () => {
    const dead = await loaded('spin');
    expect((await dead.run({ action: 'run', startMode: 'none', timeoutMs: 100 })).kind).toBe('running');
    gdbOf(dead).signalDebugger('SIGKILL');
    await waitForPhase(dead, ['dead']);

    const s = await loaded('loop');
    const { stop } = expectStopped(
      await s.run({ action: 'run', startMode: 'main', timeoutMs: WAIT_MS }),
      'run to main',
    );
    expect(stop.frame?.function).toBe('main');
    expect(await s.query(['stopped'], 'evaluate', (b) => b.evaluate('total', {}))).toBe('0');
  });
});
