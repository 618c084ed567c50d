// gdb SIGKILLed at chosen moments of a command, a run and a close. Each time: the session turns
// dead with the reason, what was pending fails with debugger_error and the death as its cause (not
// at its own deadline: that would say timeout), a bystander session is untouched, the next session
// works, and no gdb, program or shell is left. A trial hits the fault at another moment than the
// one before (helpers/chaos.ts spreads them). How soon all this happens is bench/shutdownBench.mjs's
// to measure: the waits here only catch a hang (HANG_MS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/session.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { chaosTrials, sleep, spread } from '../helpers/chaos.js';
import { expectStopped, HANG_MS, HANG_TEST_MS, saw, WAIT_MS, waitForPhase } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';
import { alive, allProcs, descendants, describeProcs, until } from '../helpers/procfs.js';

const TRIALS = chaosTrials();
/** A test's time: a hang caught by its wait, plus generous trials (a few seconds each, unloaded). */
const TEST_MS = HANG_TEST_MS + TRIALS * 60_000;

let manager: SessionManager;
let bystander: Session;
let bystanderStop: number;

beforeAll(async () => {
  // One manager for the whole file: the bystander lives across the tests.
  manager = new SessionManager({ idleTimeoutMs: 0 });
  bystander = (await manager.launch({ program: fixture('loop'), args: [] })).session;
  bystanderStop = expectStopped(
    await bystander.run({ action: 'run', startMode: 'main', timeoutMs: WAIT_MS }),
    'the bystander run',
  ).stopId;
});

afterAll(async () => {
  await manager.closeAll();
});

const gdbPid = (s: Session): number => s.backend.info.pid ?? -1;
const programPid = (s: Session): number => [...s.snapshot.inferiors.values()][0] ?? -1;

/** The debugger alone, not its process group: whatever it leaves is the server's to clean. */
const killGdb = (s: Session): void => {
  process.kill(gdbPid(s), 'SIGKILL');
};

async function fresh(program: string, runTo: 'main' | 'running'): Promise<Session> {
  const { session } = await manager.launch({ program: fixture(program), args: [] });
  if (runTo === 'main') {
    expectStopped(await session.run({ action: 'run', startMode: 'main', timeoutMs: WAIT_MS }), 'run to main');
  } else {
    expectStopped(await session.run({ action: 'run', startMode: 'none', timeoutMs: 100, onTimeout: 'interrupt' }));
  }
  return session;
}

async function failureOf(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code?: string }).code, message: (e as Error).message };
  }
  throw new Error('expected the call to fail');
}

/** After the session is closed: its gdb, its program and anything gdb started are gone. */
async function expectNothingLeft(s: Session, program: number): Promise<void> {
  const gdb = gdbPid(s);
  await until(() => !alive(gdb) && !alive(program), `gdb ${gdb} and program ${program} to be gone`, HANG_MS);
  // What gdb started was killed with its group; a killed process
  // may take a moment to die under load. Zombies do not count: init reaps orphans on its own
  // schedule (measured here: up to 1.5 s).
  const live = () => allProcs().filter((p) => p.pgrp === gdb && p.state !== 'Z');
  await until(() => live().length === 0, `gdb's group to die: ${describeProcs(live()).join('; ')}`, HANG_MS);
}

/** The bystander still answers from the same stop, and a new session runs. */
async function expectOthersFine(): Promise<void> {
  expect(bystander.phase).toBe('stopped');
  expect(await bystander.query(['stopped'], 'read', (b) => b.evaluate('total', {}), { stopId: bystanderStop })).toBe(
    '0',
  );
}

describe(`gdb SIGKILLed (${TRIALS} trials each)`, () => {
  it(
    'in the middle of a command',
    async () => {
      for (let i = 0; i < TRIALS; i++) {
        const s = await fresh('loop', 'main');
        const program = programPid(s);
        // A command GDB is busy with, and one queued behind it in the mailbox.
        const busy = failureOf(
          s.query(['stopped'], 'run a slow command', (b) =>
            b.command('python import time; time.sleep(10)', { policy: 'full' }),
          ),
        );
        const queued = failureOf(s.query(['stopped'], 'evaluate', (b) => b.evaluate('total', {})));
        await sleep(spread(i, TRIALS, 40));
        killGdb(s);
        const [a, b] = await Promise.all([busy, queued]);
        // Failed by the death (its reason), not by the 30 s command deadline nor after the sleep.
        for (const f of [a, b]) {
          expect(f.code, `trial ${i}: ${f.message}`).toBe('debugger_error');
          expect(f.message).toMatch(/SIGKILL/);
        }
        await waitForPhase(s, ['dead']);
        expect(s.snapshot.state).toMatchObject({ phase: 'dead', reason: expect.stringMatching(/SIGKILL/) });
        await manager.close(s.id);
        await expectNothingLeft(s, program);
        await expectOthersFine();
      }
    },
    TEST_MS,
  );

  it(
    'in the middle of a run',
    async (ctx) => {
      for (let i = 0; i < TRIALS; i++) {
        const s = await fresh('spin', 'running');
        const program = programPid(s);
        // Its own deadline only catches a hang: before it, the run can end only by the death.
        const waiting = s.run({ action: 'continue', timeoutMs: HANG_MS });
        const queued = failureOf(s.query(['stopped', 'running'], 'evaluate', (b) => b.evaluate('counter', {})));
        await sleep(spread(i, TRIALS, 60));
        killGdb(s);
        // Killed while -exec-continue was in flight, the run fails with debugger_error; killed once
        // the program runs, the wait answers dead. Either way with the reason; which one, it says.
        const outcome = await waiting.catch((e: { code?: string; message: string }) => ({
          kind: 'failed',
          code: e.code,
          reason: e.message,
        }));
        expect(outcome, `trial ${i}`).toEqual(
          outcome.kind === 'failed'
            ? { kind: 'failed', code: 'debugger_error', reason: expect.stringMatching(/SIGKILL/) }
            : { kind: 'dead', reason: expect.stringMatching(/SIGKILL/) },
        );
        await saw(
          ctx,
          `trial ${i}, killed ${spread(i, TRIALS, 60)} ms into the run: ${
            outcome.kind === 'failed' ? 'the continue was in flight (debugger_error)' : 'the program ran (dead)'
          }`,
        );
        const q = await queued;
        expect(q.code).toBe('debugger_error');
        // An interrupt now answers with the death instead of waiting.
        expect(await s.interrupt()).toMatchObject({ kind: 'dead' });
        await manager.close(s.id);
        await expectNothingLeft(s, program);
        await expectOthersFine();
      }
    },
    TEST_MS,
  );

  it(
    'in the middle of a close',
    async (ctx) => {
      for (let i = 0; i < TRIALS; i++) {
        const s = await fresh(i % 2 === 0 ? 'spin' : 'loop', i % 2 === 0 ? 'running' : 'main');
        const program = programPid(s);
        const closing = manager.close(s.id);
        await sleep(spread(i, TRIALS, 30));
        const killed = alive(gdbPid(s));
        if (killed) killGdb(s);
        expect(await closing, `trial ${i}`).toBe(true);
        await saw(
          ctx,
          `trial ${i}: ${killed ? 'gdb killed in the middle of the close' : 'the close had ended gdb first'}`,
        );
        expect(s.phase).toBe('dead');
        await expectNothingLeft(s, program);
        await expectOthersFine();
      }
    },
    TEST_MS,
  );

  it('leaves nothing but the bystander behind, and a new session works', async () => {
    const s = await fresh('loop', 'main');
    expect(await s.query(['stopped'], 'read', (b) => b.evaluate('total', {}))).toBe('0');
    await manager.close(s.id);
    const mine = new Set([gdbPid(bystander), programPid(bystander)]);
    const left = descendants().filter((p) => !mine.has(p.pid));
    expect(describeProcs(left)).toEqual([]);
  });
});
