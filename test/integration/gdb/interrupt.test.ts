// Deadlines and interrupts on a program that never stops by itself (spin): a deadline answers
// `running` and never desyncs the session; an interrupt stops it, also while a run is waiting.
import { describe, expect, it } from 'vitest';
import { breakAt, expectStopped, failure, WAIT_MS, waitForOutput, waitForPhase } from '../../helpers/outcomes.js';
import { loaded } from '../../helpers/sessions.js';

const evaluateCounter = (s: Awaited<ReturnType<typeof loaded>>, stopId?: number) =>
  s.query(['stopped'], 'evaluate', (b) => b.evaluate('counter', {}), stopId === undefined ? {} : { stopId });

describe('interrupt', () => {
  it('a deadline answers running; interrupt then stops the program in spin with SIGINT', async () => {
    const s = await loaded('spin');
    const started = Date.now();
    const first = await s.run({ action: 'run', startMode: 'none', timeoutMs: 300 });
    expect(first).toEqual({ kind: 'running' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(s.phase).toBe('running');
    // The deadline says nothing about progress: under load the program may still be in the
    // dynamic loader. It prints "spinning" just before entering spin().
    await waitForOutput(s, 'spinning\n');

    const { stop, stopId } = expectStopped(await s.interrupt(), 'the interrupt');
    expect(stop.reason).toBe('signal-received');
    expect(stop.signal?.name).toBe('SIGINT');
    expect(stop.frame).toMatchObject({ function: 'spin', file: 'spin.c' });
    expect(stopId).toBe(1);
    expect(s.phase).toBe('stopped');
  });

  it("onTimeout 'interrupt' answers with the stop in the same call", async () => {
    const s = await loaded('spin');
    // From a fresh run: a stop comes back in the one call (where depends on how far it got).
    const first = await s.run({ action: 'run', startMode: 'none', timeoutMs: 300, onTimeout: 'interrupt' });
    expect(expectStopped(first, 'the run with onTimeout=interrupt').stop.signal?.name).toBe('SIGINT');

    // From inside spin(), which never returns, the interrupt can only land in spin.
    await breakAt(s, 'spin', true);
    const atSpin = expectStopped(await s.run({ action: 'restart', timeoutMs: WAIT_MS }), 'restart to spin');
    expect(atSpin.stop.frame?.function).toBe('spin');
    const started = Date.now();
    const out = await s.run({ action: 'continue', timeoutMs: 300, onTimeout: 'interrupt' });
    const { stop } = expectStopped(out, 'continue with onTimeout=interrupt');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(stop).toMatchObject({ reason: 'signal-received', signal: { name: 'SIGINT' }, frame: { function: 'spin' } });
  });

  it('an interrupt reaches a run that is waiting in the mailbox, and both answer with the same stop', async () => {
    const s = await loaded('spin');
    expectStopped(
      await s.run({ action: 'run', startMode: 'none', timeoutMs: 200, onTimeout: 'interrupt' }),
      'first stop',
    );
    const waiting = s.run({ action: 'continue', timeoutMs: 20_000 });
    // The run is in its wait once the program runs; the interrupt must not queue behind it (if it
    // did, the run would answer `running` at its deadline, not the interrupt's stop).
    await waitForPhase(s, ['running']);
    const interrupted = await s.interrupt();
    const resumed = await waiting;
    const a = expectStopped(interrupted, 'the interrupt');
    const b = expectStopped(resumed, 'the waiting run');
    expect(a.stopId).toBe(2);
    expect(b).toEqual(a);
    expect(a.stop.signal?.name).toBe('SIGINT');
  });

  it('a query while the program runs fails with wrong_state and names interrupt as the next step', async () => {
    const s = await loaded('spin');
    expect((await s.run({ action: 'run', startMode: 'none', timeoutMs: 100 })).kind).toBe('running');
    const f = await failure(evaluateCounter(s));
    expect(f.code).toBe('wrong_state');
    expect(f.message).toMatch(/running/);
    expect(f.message).toMatch(/interrupt/);
    const b = await failure(s.mutate(['loaded', 'stopped'], 'set a breakpoint', (x) => x.listBreakpoints()));
    expect(b.code).toBe('wrong_state');
    // Resuming a running program is refused the same way.
    expect((await failure(s.run({ action: 'continue', timeoutMs: 100 }))).code).toBe('wrong_state');
    expect(s.phase).toBe('running');
  });

  it('a stop that lands after a deadline never confuses later calls', async () => {
    const s = await loaded('spin');
    expect((await s.run({ action: 'run', startMode: 'none', timeoutMs: 100 })).kind).toBe('running');
    await waitForOutput(s, 'spinning\n');
    const first = expectStopped(await s.interrupt(), 'the first interrupt');
    const value = await evaluateCounter(s);
    expect(value).toMatch(/^\d+$/);

    // Around again: a deadline, an interrupt, and the evidence comes from the new stop.
    expect((await s.run({ action: 'continue', timeoutMs: 100 })).kind).toBe('running');
    const second = expectStopped(await s.interrupt(), 'the second interrupt');
    expect(second.stopId).toBe(first.stopId + 1);
    const later = await evaluateCounter(s, second.stopId);
    expect(BigInt(later)).toBeGreaterThan(BigInt(value));
    // Evidence bound to the first stop is refused, never re-read at the second.
    expect((await failure(evaluateCounter(s, first.stopId))).code).toBe('stale_context');
    // And plain commands still get their own answers.
    expect(await s.query(['stopped'], 'evaluate', (b) => b.evaluate('2 * 21', {}))).toBe('42');
  });

  it('interrupt when nothing runs answers the current state and changes nothing', async () => {
    const s = await loaded('spin');
    // Loaded but never started: there is nothing to stop, and saying `running` would be false.
    const early = await failure(s.interrupt());
    expect(early.code).toBe('wrong_state');
    expect(early.message).toMatch(/action=run/);
    expect(s.phase).toBe('loaded');
    const stopped = expectStopped(await s.run({ action: 'run', startMode: 'main', timeoutMs: WAIT_MS }), 'run to main');
    const again = expectStopped(await s.interrupt(), 'interrupt at a stop');
    expect(again).toEqual(stopped);
  });
});
