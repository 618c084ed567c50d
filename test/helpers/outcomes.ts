// Waiting for and unwrapping what a real session does, with every wait bounded at half the test
// timeout (vitest.config.ts: 30 s) so a failing wait names itself instead of the test timing out.

import type { BreakpointSpec } from '../../src/backends/debuggerBackend.js';
import type { Breakpoint, ExitEvent, StopEvent } from '../../src/model/model.js';
import { parseLocation } from '../../src/server/locations.js';
import type { RunOutcome, Session } from '../../src/session/session.js';
import type { Phase } from '../../src/session/sessionState.js';

/** Half of the default test timeout: the longest any single wait in a test may take (a loaded machine is slow, never this slow). */
export const WAIT_MS = 60_000;

/**
 * A deadline that only catches a hang, for what must happen "at once" or "within N s": how soon is
 * the bench's to measure (bench/shutdownBench.mjs), since a loaded machine stretches any bound a
 * test could keep. A test whose waits use it gets HANG_TEST_MS, so the failing wait names itself.
 */
export const HANG_MS = 120_000;
export const HANG_TEST_MS = 2 * HANG_MS + 60_000;

/**
 * Records which of two legitimate outcomes a test saw, as a test annotation of type `outcome`
 * (the summary reporter lists them), so a run says what it proved instead of passing silently.
 */
export async function saw(ctx: { annotate(message: string, type?: string): Promise<unknown> }, what: string) {
  await ctx.annotate(what, 'outcome');
}

function describeOutcome(o: RunOutcome): string {
  return JSON.stringify(o);
}

/** The stop of a run outcome; anything else fails with the outcome it got. */
export function expectStopped(o: RunOutcome, what = 'the run'): { stop: StopEvent; stopId: number } {
  if (o.kind !== 'stopped') throw new Error(`expected ${what} to stop, got ${describeOutcome(o)}`);
  return { stop: o.stop, stopId: o.stopId };
}

/** The exit of a run outcome; anything else fails with the outcome it got. */
export function expectExited(o: RunOutcome, what = 'the run'): ExitEvent {
  if (o.kind !== 'exited') throw new Error(`expected ${what} to exit, got ${describeOutcome(o)}`);
  return o.exit;
}

export async function insertBreakpoint(session: Session, spec: BreakpointSpec): Promise<Breakpoint> {
  const set = await session.mutate(['loaded', 'stopped'], 'set a breakpoint', (b) => b.insertBreakpoint(spec));
  return set.breakpoint;
}

/** A breakpoint at a location written as an agent writes it (`file.c:42`, `main`, `*0x401000`). */
export function breakAt(session: Session, location: string, temporary = false): Promise<Breakpoint> {
  return insertBreakpoint(session, { kind: 'breakpoint', location: parseLocation(location), temporary });
}

/** The program's terminal output so far, decoded. */
export function programOutput(session: Session): string {
  const ring = session.backend.output;
  if (!ring) throw new Error('the session has no program terminal');
  return ring.read(0, 1 << 20).data.toString('utf8');
}

/**
 * Resolves once the program has printed `text`. The output ring has no change event, so this
 * polls it every 10 ms; the deadline names the text and shows what did arrive.
 */
export async function waitForOutput(session: Session, text: string, ms = WAIT_MS): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const out = programOutput(session);
    if (out.includes(text)) return out;
    if (Date.now() > deadline) {
      throw new Error(
        `waited ${ms} ms for the program to print ${JSON.stringify(text)}; it printed ${JSON.stringify(out)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Resolves once the session is in one of `phases`, driven by the backend's events (the session
 * subscribed first, so it has applied each event before this listener sees it).
 */
export function waitForPhase(session: Session, phases: readonly Phase[], ms = WAIT_MS): Promise<void> {
  if (phases.includes(session.phase)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: Error): void => {
      clearTimeout(timer);
      unsubscribe();
      if (error) reject(error);
      else resolve();
    };
    const unsubscribe = session.backend.subscribe(() => {
      if (phases.includes(session.phase)) done();
    });
    const timer = setTimeout(
      () => done(new Error(`waited ${ms} ms for the session to be ${phases.join(' or ')}; it is ${session.phase}`)),
      ms,
    );
  });
}

/** The message and code of a rejected call, for asserting on both at once. */
export async function failure(p: Promise<unknown>): Promise<{ code: string | undefined; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code?: string }).code, message: (e as Error).message };
  }
  throw new Error('expected the call to fail, but it succeeded');
}
