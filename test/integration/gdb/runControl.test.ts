// Run control through a real gdb: every resume action, every stop reason the fixtures can
// produce, exit codes, and where a fresh run stops first.
import { describe, expect, it } from 'vitest';
import { hardwareVerdicts } from '../../helpers/machine.js';
import {
  breakAt,
  expectExited,
  expectStopped,
  insertBreakpoint,
  programOutput,
  WAIT_MS,
} from '../../helpers/outcomes.js';
import { loaded } from '../../helpers/sessions.js';

// Lines of fixtures/c/loop.c the tests stop at.
const SQUARE_BODY = 7; // int r = v * v;
const SQUARE_RETURN = 8; // return r;
const LOOP_HEAD = 12; // for (int i = 0; i < 5; i++) {
const LOOP_BODY = 13; // total += square(i);
const PRINT = 15; // printf("total %d\n", total);
const RETURN = 16; // return 0;

const wait = { timeoutMs: WAIT_MS };

describe('run control', () => {
  it('breaks at a line, steps into square, nexts, finishes with the return value, and runs to the exit', async () => {
    const s = await loaded('loop');
    const bp = await breakAt(s, `loop.c:${LOOP_BODY}`);
    expect(bp.line).toBe(LOOP_BODY);

    const hit = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the line breakpoint');
    expect(hit.stop.reason).toBe('breakpoint-hit');
    expect(hit.stop.breakpoint).toBe(bp.number);
    expect(hit.stop.frame).toMatchObject({ function: 'main', file: 'loop.c', line: LOOP_BODY });
    expect(hit.stopId).toBe(1);
    expect(s.phase).toBe('stopped');

    const into = expectStopped(await s.run({ action: 'step', ...wait }), 'step into square');
    expect(into.stop.reason).toBe('end-stepping-range');
    expect(into.stop.frame).toMatchObject({ function: 'square', line: SQUARE_BODY });
    expect(into.stop.frame?.args).toEqual([{ name: 'v', value: '0' }]);

    const next = expectStopped(await s.run({ action: 'next', ...wait }), 'next inside square');
    expect(next.stop.reason).toBe('end-stepping-range');
    expect(next.stop.frame).toMatchObject({ function: 'square', line: SQUARE_RETURN });

    const finished = expectStopped(await s.run({ action: 'finish', ...wait }), 'finish out of square');
    expect(finished.stop.reason).toBe('function-finished');
    expect(finished.stop.frame).toMatchObject({ function: 'main', line: LOOP_BODY });
    expect(finished.stop.returnValue).toBe('0');
    expect(finished.stop.returnVariable).toMatch(/^\$\d+$/);

    // Every stop got the next id, and every resume a new epoch.
    expect([hit.stopId, into.stopId, next.stopId, finished.stopId]).toEqual([1, 2, 3, 4]);
    expect(s.snapshot.epoch).toBe(4);

    await s.mutate(['stopped'], 'delete a breakpoint', (b) =>
      b.changeBreakpoints({ op: 'delete', numbers: [bp.number] }),
    );
    const exit = expectExited(await s.run({ action: 'continue', ...wait }), 'continue to the end');
    expect(exit.code).toBe(0);
    expect(s.phase).toBe('exited');
    expect(programOutput(s)).toContain('total 30\n');
  });

  it('breaks at a function once per call, with the argument of each call, and counts the hits', async () => {
    const s = await loaded('loop');
    const bp = await breakAt(s, 'square');
    const seen: string[] = [];
    let outcome = await s.run({ action: 'run', startMode: 'none', ...wait });
    while (outcome.kind === 'stopped') {
      expect(outcome.stop).toMatchObject({ reason: 'breakpoint-hit', breakpoint: bp.number });
      expect(outcome.stop.frame).toMatchObject({ function: 'square', line: SQUARE_BODY });
      seen.push(outcome.stop.frame?.args?.[0]?.value ?? '?');
      if (seen.length > 5) break;
      outcome = await s.run({ action: 'continue', ...wait });
    }
    expect(seen).toEqual(['0', '1', '2', '3', '4']);
    expect(expectExited(outcome, 'the run after the last hit').code).toBe(0);
    expect(s.snapshot.breakpoints.get(bp.number)?.hits).toBe(5);
  });

  it('next steps over square, and until leaves the loop at the line after it', async () => {
    const s = await loaded('loop');
    expectStopped(await s.run({ action: 'run', startMode: 'main', ...wait }), 'run to main');
    const overBody = expectStopped(await s.run({ action: 'next', ...wait }), 'next to the loop body');
    expect(overBody.stop.frame?.line).toBe(LOOP_BODY);
    const back = expectStopped(await s.run({ action: 'next', ...wait }), 'next over square');
    expect(back.stop).toMatchObject({ reason: 'end-stepping-range', frame: { function: 'main', line: LOOP_HEAD } });
    expect(await s.query(['stopped'], 'evaluate', (b) => b.evaluate('total', {}))).toBe('0');

    // At the loop's jump back, plain `until` runs the remaining iterations and stops past the loop.
    const after = expectStopped(await s.run({ action: 'until', ...wait }), 'until past the loop');
    expect(after.stop.reason).toBe('end-stepping-range');
    expect(after.stop.frame).toMatchObject({ function: 'main', line: PRINT });
    expect(await s.query(['stopped'], 'evaluate', (b) => b.evaluate('total', {}))).toBe('30');
  });

  it('until and advance with a location stop there with location-reached', async () => {
    const s = await loaded('loop');
    await breakAt(s, 'square', true);
    expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to square');

    // From inside square, `until LOCATION` also stops when the current frame returns.
    const returned = expectStopped(
      await s.run({ action: 'until', options: { location: { file: 'loop.c', line: PRINT } }, ...wait }),
      'until a line in the caller',
    );
    expect(returned.stop.reason).toBe('location-reached');
    expect(returned.stop.frame).toMatchObject({ function: 'main', line: LOOP_BODY });

    const advanced = expectStopped(
      await s.run({ action: 'advance', options: { location: { spec: String(RETURN) } }, ...wait }),
      'advance to the return',
    );
    expect(advanced.stop.reason).toBe('location-reached');
    expect(advanced.stop.frame).toMatchObject({ function: 'main', line: RETURN });
    expect(programOutput(s)).toContain('total 30');

    expect(expectExited(await s.run({ action: 'continue', ...wait }), 'continue to the end').code).toBe(0);
  });

  it('a watchpoint on total reports the expression with its old and new values', async (ctx) => {
    // Where hardware watchpoints never fire (some VMs), the watchpoint is a software one.
    const hardware = await hardwareVerdicts();
    if (hardware.watchpoints === 'unknown') ctx.skip(`the hardware probe could not tell: ${hardware.detail}`);
    const s = await loaded('loop');
    expectStopped(await s.run({ action: 'run', startMode: 'main', ...wait }), 'run to main');
    const wp = await insertBreakpoint(s, { kind: 'watchpoint', expression: 'total' });
    expect(wp.type).toBe(hardware.watchpoints === 'dead' ? 'watchpoint' : 'hw watchpoint');

    // square(0) adds 0, which is no change: the first trigger is 0 → 1, then 1 → 5, 5 → 14.
    const values: [string | undefined, string | undefined][] = [];
    for (let i = 0; i < 3; i++) {
      const t = expectStopped(await s.run({ action: 'continue', ...wait }), `continue to trigger ${i + 1}`);
      expect(t.stop.reason).toBe('watchpoint-trigger');
      expect(t.stop.breakpoint).toBe(wp.number);
      expect(t.stop.watch?.expression).toBe('total');
      expect(t.stop.frame?.function).toBe('main');
      values.push([t.stop.watch?.old, t.stop.watch?.new]);
    }
    expect(values).toEqual([
      ['0', '1'],
      ['1', '5'],
      ['5', '14'],
    ]);
  });

  it('a temporary breakpoint stops once, is reported as temporary, and is gone after the stop', async () => {
    const s = await loaded('loop');
    const bp = await breakAt(s, 'square', true);
    expect(bp.temporary).toBe(true);
    const hit = expectStopped(
      await s.run({ action: 'run', startMode: 'none', ...wait }),
      'run to the temporary breakpoint',
    );
    expect(hit.stop).toMatchObject({ reason: 'breakpoint-hit', breakpoint: bp.number, temporaryBreakpoint: true });
    // GDB deletes it at the stop; the session's view must agree as soon as the stop is returned.
    expect(s.snapshot.breakpoints.has(bp.number)).toBe(false);
    expect(await s.query(['stopped'], 'list breakpoints', (b) => b.listBreakpoints())).toEqual([]);
    expect(
      expectExited(await s.run({ action: 'continue', ...wait }), 'continue past the deleted breakpoint').code,
    ).toBe(0);
  });

  it('a fatal signal stops with signal-received; continuing ends the program by that signal', async () => {
    const s = await loaded('crash', ['segv']);
    const crash = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the crash');
    expect(crash.stop.reason).toBe('signal-received');
    expect(crash.stop.signal).toEqual({ name: 'SIGSEGV', meaning: 'Segmentation fault' });
    const exit = expectExited(await s.run({ action: 'continue', ...wait }), 'continue into the signal');
    expect(exit.signal?.name).toBe('SIGSEGV');
    expect(exit.code).toBeUndefined();
    expect(s.snapshot.inferiors.size).toBe(0);
  });

  it.each([
    [['0'], 0],
    [['7'], 7],
    [[], 7],
    [['255'], 255],
  ])('exitcode %j exits with code %i', async (args, code) => {
    const s = await loaded('exitcode', args);
    const exit = expectExited(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the exit');
    expect(exit.code).toBe(code);
    expect(exit.signal).toBeUndefined();
    expect(s.phase).toBe('exited');
  });

  it('startMode main stops at main on a temporary breakpoint', async () => {
    const s = await loaded('hello');
    const first = expectStopped(await s.run({ action: 'run', startMode: 'main', ...wait }), 'run to main');
    expect(first.stop).toMatchObject({ reason: 'breakpoint-hit', temporaryBreakpoint: true });
    expect(first.stop.frame).toMatchObject({ function: 'main', file: 'hello.c' });
    expect(programOutput(s)).toBe('');
    expect(expectExited(await s.run({ action: 'continue', ...wait }), 'continue to the end').code).toBe(0);
    expect(programOutput(s)).toBe('hello 5\n');
  });

  it('startMode entry stops at the first instruction, before main', async () => {
    const s = await loaded('hello');
    const first = expectStopped(await s.run({ action: 'run', startMode: 'entry', ...wait }), 'run to the entry');
    // `starti` stops in the dynamic loader's _start, with no source line of the program.
    expect(first.stop.frame?.function).not.toBe('main');
    expect(first.stop.frame?.file).not.toBe('hello.c');
    expect(first.stop.signal).toBeUndefined();
    const main = await breakAt(s, 'main');
    const atMain = expectStopped(await s.run({ action: 'continue', ...wait }), 'continue from the entry to main');
    expect(atMain.stop).toMatchObject({
      reason: 'breakpoint-hit',
      breakpoint: main.number,
      frame: { function: 'main' },
    });
    expect(programOutput(s)).toBe('');
  });

  it('startMode none runs until the program ends by itself', async () => {
    const s = await loaded('hello');
    const exit = expectExited(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the end');
    expect(exit.code).toBe(0);
    expect(programOutput(s)).toBe('hello 5\n');
  });

  it('kill ends a stopped program and reports it killed', async () => {
    const s = await loaded('loop');
    expectStopped(await s.run({ action: 'run', startMode: 'main', ...wait }), 'run to main');
    const pid = [...s.snapshot.inferiors.values()][0];
    expect(pid).toBeGreaterThan(0);
    expect(expectExited(await s.run({ action: 'kill', ...wait }), 'kill')).toEqual({ killed: true });
    expect(s.snapshot.inferiors.size).toBe(0);
  });

  it('resuming is refused before the program runs, naming the next step', async () => {
    const s = await loaded('loop');
    await expect(s.run({ action: 'next', ...wait })).rejects.toMatchObject({
      code: 'wrong_state',
      message: expect.stringContaining('action=run'),
    });
  });
});
