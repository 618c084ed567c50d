// Observations end to end: every gathered answer names an observation_id; dbg_inspect gives it
// back as it was, with its stop, after the program moved on and after dbg_close, and sends no
// debugger command for it (every MI command the in-process server sends is counted); the same
// view asked again at the same stop is served from its observation.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MiConnection } from '../../src/protocols/mi/miConnection.js';
import { startInProcess } from '../helpers/inProcess.js';
import { fixture } from '../helpers/paths.js';

/** Every MI command sent from now on, by operation. */
function countMi() {
  const spy = vi.spyOn(MiConnection.prototype, 'send');
  return {
    get sent(): string[] {
      return spy.mock.calls.map((c) => c[0]);
    },
    reset: () => spy.mockClear(),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('observations', () => {
  it('the crash view at dbg_start is kept: asked again at the same stop, and by its id, without a debugger command', async () => {
    const h = await startInProcess(['--warm', '0']);
    const mi = countMi();
    const start = await h.call('dbg_start', { program: fixture('crash'), args: ['segv'] });
    const id = start.data.session_id as string;
    const crashObs = start.data.observations?.crash as string;
    expect(crashObs, start.text).toMatch(/^o\d+$/);
    expect(start.text).toContain(`observation ${crashObs}`);
    expect(mi.sent.length).toBeGreaterThan(0);

    mi.reset();
    const again = await h.call('dbg_inspect', { session_id: id, view: 'crash' });
    expect(again.isError, again.text).toBe(false);
    expect(again.data.observation_id, `${JSON.stringify(start.data.failures)} ${again.text}`).toBe(crashObs);
    expect(again.data.data).toEqual(start.data.views.crash);
    expect(again.text).toContain('no debugger command');
    const byId = await h.call('dbg_inspect', { session_id: id, observation_id: crashObs });
    expect(byId.isError, byId.text).toBe(false);
    expect(byId.data).toMatchObject({ view: 'crash', observation: { id: crashObs, kind: 'crash', stop_id: 1 } });
    expect(byId.data.data).toEqual(start.data.views.crash);
    expect(mi.sent, 'MI commands sent for served observations').toEqual([]);

    // The crash view read the whole stack: the stack view is made of it, as gdb would give it.
    const stack = await h.call('dbg_inspect', { session_id: id, view: 'stack' });
    expect(stack.isError, stack.text).toBe(false);
    expect(stack.data.observation_id).not.toBe(crashObs);
    expect(mi.sent, 'MI commands sent for the stack of a crash view').toEqual([]);
    const fresh = await h.call('dbg_start', { program: fixture('crash'), args: ['segv'], inspect: ['stack'] });
    expect(mi.sent.length, 'the second session gathers its stack from gdb').toBeGreaterThan(0);
    expect(stack.data.data).toEqual(fresh.data.views.stack);

    // A different view is gathered: the counter does count.
    mi.reset();
    const registers = await h.call('dbg_inspect', { session_id: id, view: 'registers' });
    expect(registers.data.observation_id).toMatch(/^o\d+$/);
    expect(mi.sent.length).toBeGreaterThan(0);
  });

  it('ids survive continue and dbg_close; evaluations, memory and batch parts are kept with their answers', async () => {
    const h = await startInProcess(['--warm', '0']);
    const mi = countMi();
    const start = await h.call('dbg_start', {
      program: fixture('loop'),
      breakpoints: [{ location: 'square' }],
      inspect: ['none'],
    });
    expect(start.data.outcome, start.text).toMatchObject({ kind: 'stopped' });
    const id = start.data.session_id as string;
    const locals = await h.call('dbg_inspect', { session_id: id, view: 'args' });
    const value = await h.call('dbg_evaluate', { session_id: id, expressions: ['v * 10'] });
    const memory = await h.call('dbg_memory', { session_id: id, action: 'read', address: '&total', length: 4 });
    const batch = await h.call('dbg_batch', {
      session_id: id,
      operations: [
        { op: 'inspect', view: 'stack', stack_depth: 2 },
        { op: 'evaluate', expressions: ['total'] },
      ],
    });
    for (const r of [locals, value, memory]) expect(r.data.observation_id, r.text).toMatch(/^o\d+$/);
    const [stackPart, evalPart] = batch.data.results as { observation_id: string }[];
    expect(stackPart?.observation_id).toMatch(/^o\d+$/);
    expect(evalPart?.observation_id).toMatch(/^o\d+$/);
    const ids = [locals, value, memory].map((r) => r.data.observation_id as string);
    expect(new Set([...ids, stackPart?.observation_id, evalPart?.observation_id]).size).toBe(5);

    // The program moves on: the next call to square, stop 2.
    const next = await h.call('dbg_run', { session_id: id, action: 'continue', inspect: ['none'] });
    expect(next.data.outcome, next.text).toMatchObject({ kind: 'stopped', stop_id: 2 });
    const stale = await h.call('dbg_inspect', { session_id: id, view: 'args', stop_id: 1 });
    expect(stale.data.error?.code).toBe('stale_context');

    const check = async (when: string) => {
      mi.reset();
      const a = await h.call('dbg_inspect', { session_id: id, observation_id: ids[0] });
      expect(a.isError, `${when}: ${a.text}`).toBe(false);
      expect(a.data.observation).toMatchObject({ kind: 'args', stop_id: 1 });
      expect(a.data.data).toEqual(locals.data.data);
      const v = await h.call('dbg_inspect', { session_id: id, observation_id: ids[1] });
      expect(v.data.observation).toMatchObject({ kind: 'evaluate', stop_id: 1 });
      expect(v.data.observation.answer.results).toEqual(value.data.results);
      expect(v.text).toContain('v * 10 = 0');
      const m = await h.call('dbg_inspect', { session_id: id, observation_id: ids[2] });
      expect(m.data.observation.answer.hex).toBe(memory.data.hex);
      const b = await h.call('dbg_inspect', { session_id: id, observation_id: evalPart?.observation_id });
      expect(b.data.observation.answer.results).toEqual((batch.data.results[1] as { results: unknown }).results);
      expect(mi.sent, `${when}: MI commands sent for kept observations`).toEqual([]);
    };
    await check('after continue');
    const closed = await h.call('dbg_close', { session_id: id });
    expect(closed.isError, closed.text).toBe(false);
    await check('after dbg_close');

    const unknown = await h.call('dbg_inspect', { session_id: id, observation_id: 'o999' });
    expect(unknown.data.error?.code).toBe('invalid_argument');
    expect(unknown.text).toContain('has no observation o999');
    const mixed = await h.call('dbg_inspect', { session_id: id, observation_id: ids[0], view: 'stack' });
    expect(mixed.data.error?.code).toBe('invalid_argument');
    const other = await h.call('dbg_inspect', { session_id: '0badf00d', observation_id: ids[0] });
    expect(other.data.error?.code).toBe('no_session');
  });

  it('an assignment at the same stop is not hidden by a kept view: the view is gathered again', async () => {
    const h = await startInProcess(['--warm', '0']);
    const start = await h.call('dbg_start', {
      program: fixture('loop'),
      breakpoints: [{ location: 'square' }],
      inspect: ['none'],
    });
    const id = start.data.session_id as string;
    const before = await h.call('dbg_inspect', { session_id: id, view: 'args' });
    const assign = await h.call('dbg_evaluate', { session_id: id, assign: { target: 'v', value: '7' } });
    expect(assign.isError, assign.text).toBe(false);
    const after = await h.call('dbg_inspect', { session_id: id, view: 'args' });
    expect(after.data.observation_id).not.toBe(before.data.observation_id);
    expect(JSON.stringify(after.data.data)).toContain('"7"');
  });

  it('dbg_sessions history: calls, stops and observations in order, env values redacted, paged, kept after close', async () => {
    const h = await startInProcess(['--warm', '0']);
    const start = await h.call('dbg_start', {
      program: fixture('loop'),
      breakpoints: [{ location: 'square' }],
      env: { SECRET_TOKEN: 'hunter2-do-not-show' },
    });
    const id = start.data.session_id as string;
    const args = await h.call('dbg_inspect', { session_id: id, view: 'args' });
    await h.call('dbg_run', { session_id: id, action: 'continue' });
    await h.call('dbg_inspect', { session_id: id, view: 'nosuch' });
    await h.call('dbg_close', { session_id: id });

    const r = await h.call('dbg_sessions', { session_id: id, history: true });
    expect(r.isError, r.text).toBe(false);
    const entries = r.data.history.entries as {
      seq: number;
      kind: string;
      tool?: string;
      outcome?: string;
      id?: string;
      stop_id?: number;
    }[];
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    const calls = entries.filter((e) => e.kind === 'call');
    expect(calls.map((e) => `${e.tool} ${e.outcome}`)).toEqual([
      'dbg_start ok',
      'dbg_inspect ok',
      'dbg_run ok',
      'dbg_inspect error:invalid_argument',
      'dbg_close ok',
    ]);
    expect(entries.filter((e) => e.kind === 'stop').map((e) => e.stop_id)).toEqual([1, 2]);
    const observed = entries.filter((e) => e.kind === 'observation').map((e) => e.id);
    expect(observed).toContain(args.data.observation_id);
    expect(observed).toContain(start.data.observations.stop);
    // The start's call, then its stop, then what it gathered there.
    expect(entries.slice(0, 3).map((e) => e.kind)).toEqual(['call', 'stop', 'observation']);
    expect(JSON.stringify(r.data)).not.toContain('hunter2');
    expect(r.text).not.toContain('hunter2');
    expect(JSON.stringify(r.data)).toContain('SECRET_TOKEN');

    const first = await h.call('dbg_sessions', { session_id: id, history: true, limit: 2 });
    expect(first.data.history.entries).toHaveLength(2);
    expect(first.data.history.next).toBe(3);
    const second = await h.call('dbg_sessions', { session_id: id, history: true, from: 3, limit: 2 });
    expect(second.data.history.entries.map((e: { seq: number }) => e.seq)).toEqual([3, 4]);
    const last = await h.call('dbg_sessions', { session_id: id, history: true, from: entries.length });
    expect(last.data.history.next).toBeUndefined();

    const missing = await h.call('dbg_sessions', { history: true });
    expect(missing.data.error?.code).toBe('invalid_argument');
    const other = await h.call('dbg_sessions', { session_id: '0badf00d', history: true });
    expect(other.data.error?.code).toBe('no_session');
  });
});

describe('dbg_inspect view=diff', () => {
  it('a loop variable that changed between two stops, by observation and by stop id; the same stop: an empty diff', async () => {
    const h = await startInProcess(['--warm', '0']);
    const mi = countMi();
    const start = await h.call('dbg_start', {
      program: fixture('loop'),
      breakpoints: [{ location: 'square' }],
      inspect: ['none'],
    });
    const id = start.data.session_id as string;
    const first = await h.call('dbg_inspect', { session_id: id, view: 'args' });
    await h.call('dbg_run', { session_id: id, action: 'continue', inspect: ['none'] });
    await h.call('dbg_run', { session_id: id, action: 'continue', inspect: ['none'] });
    const third = await h.call('dbg_inspect', { session_id: id, view: 'args' });
    mi.reset();
    const d = await h.call('dbg_inspect', {
      session_id: id,
      view: 'diff',
      from: first.data.observation_id,
      to: third.data.observation_id,
    });
    expect(d.isError, d.text).toBe(false);
    expect(d.data.diff.empty).toBe(false);
    expect(d.data.diff.variables).toEqual([{ name: '#0 square: v', from: '0', to: '2' }]);
    expect(d.text).toContain('#0 square: v: 0 → 2');
    const byStop = await h.call('dbg_inspect', { session_id: id, view: 'diff', from: 1, to: 3 });
    expect(byStop.data.diff.variables, byStop.text).toEqual([{ name: '#0 square: v', from: '0', to: '2' }]);
    const same = await h.call('dbg_inspect', { session_id: id, view: 'diff', from: 3, to: third.data.observation_id });
    expect(same.data.diff.empty, same.text).toBe(true);
    expect(same.text).toContain('no difference');
    expect(same.text.split('\n')).toHaveLength(1);
    expect(mi.sent, 'a diff sends no debugger command').toEqual([]);
    const nothing = await h.call('dbg_inspect', { session_id: id, view: 'diff', from: 2, to: 3 });
    expect(nothing.data.error?.code).toBe('invalid_argument');
    expect(nothing.text).toContain('nothing was gathered at stop 2');
  });

  it('a frame that returned: the stack in square, then back in main after finish', async () => {
    const h = await startInProcess(['--warm', '0']);
    const start = await h.call('dbg_start', {
      program: fixture('loop'),
      breakpoints: [{ location: 'square' }],
      inspect: ['none'],
    });
    const id = start.data.session_id as string;
    const inSquare = await h.call('dbg_inspect', { session_id: id, view: 'stack' });
    const fin = await h.call('dbg_run', { session_id: id, action: 'finish', inspect: ['none'] });
    expect(fin.data.outcome, fin.text).toMatchObject({ kind: 'stopped', stop_id: 2 });
    const inMain = await h.call('dbg_inspect', { session_id: id, view: 'stack' });
    const d = await h.call('dbg_inspect', {
      session_id: id,
      view: 'diff',
      from: inSquare.data.observation_id,
      to: inMain.data.observation_id,
    });
    expect(d.data.diff.frames, d.text).toMatchObject({ base: 1, called: [] });
    expect(d.data.diff.frames.returned).toEqual([expect.stringMatching(/^square at .*loop\.c:\d+$/)]);
    expect(d.text).toMatch(/frames returned: square at/);
    // After dbg_close the two stacks are still there to compare.
    await h.call('dbg_close', { session_id: id });
    const again = await h.call('dbg_inspect', { session_id: id, view: 'diff', from: 1, to: 2 });
    expect(again.data.diff.frames.returned, again.text).toEqual(d.data.diff.frames.returned);
  });

  it('a thread that appeared: the threads at main, then at a worker', async () => {
    const h = await startInProcess(['--warm', '0']);
    const start = await h.call('dbg_start', { program: fixture('threads'), stop: 'main', inspect: ['threads'] });
    expect(start.data.outcome, start.text).toMatchObject({ kind: 'stopped' });
    const id = start.data.session_id as string;
    await h.call('dbg_breakpoints', { session_id: id, action: 'set', location: 'worker' });
    const atWorker = await h.call('dbg_run', { session_id: id, action: 'continue', inspect: ['threads'] });
    expect(atWorker.data.outcome, atWorker.text).toMatchObject({ kind: 'stopped' });
    const d = await h.call('dbg_inspect', {
      session_id: id,
      view: 'diff',
      from: start.data.observations.threads,
      to: atWorker.data.observations.threads,
    });
    expect(d.isError, d.text).toBe(false);
    const added = d.data.diff.threads?.added as string[];
    expect(added.length, d.text).toBeGreaterThanOrEqual(1);
    expect(
      added.some((t) => /worker/.test(t)),
      d.text,
    ).toBe(true);
    expect(d.data.diff.threads.gone).toEqual([]);
    expect(d.text).toMatch(/threads new: .*worker/);
  });
});
