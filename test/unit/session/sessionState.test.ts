import { describe, expect, it } from 'vitest';
import type { Breakpoint, Library, StopEvent } from '../../../src/model/model.js';
import {
  initialSnapshot,
  isSettled,
  type SessionEvent,
  type SessionSnapshot,
  transition,
} from '../../../src/session/sessionState.js';

const stop = (line: number): StopEvent => ({ reason: 'breakpoint-hit', frame: { level: 0, line } });

const lib = (path: string, symbolsLoaded = true): Library => ({ path, symbolsLoaded, ranges: [] });

const bp = (number: string, hits = 0): Breakpoint => ({
  number,
  type: 'breakpoint',
  enabled: true,
  temporary: false,
  pending: false,
  hits,
  locations: [],
});

/** Applies events in order from the initial snapshot. */
function play(...events: SessionEvent[]): SessionSnapshot {
  return events.reduce(transition, initialSnapshot());
}

/** A deep copy that keeps Maps as Maps, to compare a snapshot with itself before a transition. */
function freeze(s: SessionSnapshot): unknown {
  return structuredClone(s);
}

const running: SessionEvent = { type: 'running', threadId: 'all' };

describe('transition: phases', () => {
  it('starts in starting with no stop and no resumes', () => {
    const s = initialSnapshot();
    expect(s.state).toEqual({ phase: 'starting' });
    expect(s.stopId).toBe(0);
    expect(s.epoch).toBe(0);
    expect(s.lastInferiorExit).toBeUndefined();
  });

  it('loaded moves starting to loaded and is ignored in any other phase', () => {
    expect(play({ type: 'loaded' }).state).toEqual({ phase: 'loaded' });
    const stopped = play({ type: 'loaded' }, running, { type: 'stopped', stop: stop(3) });
    expect(transition(stopped, { type: 'loaded' })).toBe(stopped);
  });

  it('a resume bumps the epoch once, however many *running records it reports', () => {
    const s = play({ type: 'loaded' }, running);
    expect(s.state).toEqual({ phase: 'running' });
    expect(s.epoch).toBe(1);
    const perThread = transition(s, { type: 'running', threadId: 2 });
    expect(perThread).toBe(s);
    expect(perThread.epoch).toBe(1);
  });

  it('each resume after a stop is a new epoch', () => {
    const s = play({ type: 'loaded' }, running, { type: 'stopped', stop: stop(1) }, running, running);
    expect(s.epoch).toBe(2);
  });

  it('a stop records the stop event and bumps stopId, leaving the epoch alone', () => {
    const s = play({ type: 'loaded' }, running, { type: 'stopped', stop: stop(5) });
    expect(s.state).toEqual({ phase: 'stopped', stop: stop(5) });
    expect(s.stopId).toBe(1);
    expect(s.epoch).toBe(1);
    const again = transition(s, { type: 'stopped', stop: stop(6) });
    expect(again.stopId).toBe(2);
    expect(again.state).toEqual({ phase: 'stopped', stop: stop(6) });
  });

  it('an exit keeps its own code and clears threads and inferiors', () => {
    const s = play(
      { type: 'loaded' },
      running,
      { type: 'inferior-started', group: 'i1', pid: 42 },
      { type: 'thread-created', id: 1, group: 'i1' },
      { type: 'exited', exit: { code: 3 } },
    );
    expect(s.state).toEqual({ phase: 'exited', exit: { code: 3 } });
    expect(s.threads.size).toBe(0);
    expect(s.inferiors.size).toBe(0);
  });

  it('an exit without a code or signal takes the code from the inferior-exited that came first', () => {
    const s = play(
      { type: 'loaded' },
      running,
      { type: 'inferior-exited', group: 'i1', code: 9 },
      { type: 'exited', exit: { group: 'i1' } },
    );
    expect(s.state).toEqual({ phase: 'exited', exit: { group: 'i1', code: 9 } });
  });

  it('an exit by signal is not given the inferior exit code', () => {
    const s = play(
      { type: 'loaded' },
      running,
      { type: 'inferior-exited', group: 'i1', code: 9 },
      { type: 'exited', exit: { signal: { name: 'SIGSEGV', meaning: 'Segmentation fault' } } },
    );
    expect(s.state).toEqual({ phase: 'exited', exit: { signal: { name: 'SIGSEGV', meaning: 'Segmentation fault' } } });
  });

  it('an exit with no code anywhere stays without a code', () => {
    const s = play({ type: 'loaded' }, running, { type: 'exited', exit: {} });
    expect(s.state).toEqual({ phase: 'exited', exit: {} });
  });

  it('killed is an exit marked killed, with threads and inferiors cleared', () => {
    const s = play(
      { type: 'loaded' },
      running,
      { type: 'inferior-started', group: 'i1', pid: 42 },
      { type: 'thread-created', id: 1, group: 'i1' },
      { type: 'stopped', stop: stop(1) },
      { type: 'killed' },
    );
    expect(s.state).toEqual({ phase: 'exited', exit: { killed: true } });
    expect(s.threads.size).toBe(0);
    expect(s.inferiors.size).toBe(0);
    expect(s.stopId).toBe(1);
  });

  it.each([
    ['died', { type: 'died', reason: 'gdb was killed by SIGKILL' }],
    ['lost', { type: 'lost', reason: 'the session was closed' }],
  ] as const)('%s makes the session dead with its reason', (_name, event) => {
    const s = play(
      { type: 'loaded' },
      running,
      { type: 'inferior-started', group: 'i1', pid: 42 },
      { type: 'thread-created', id: 1, group: 'i1' },
      event,
    );
    expect(s.state).toEqual({ phase: 'dead', reason: event.reason });
    expect(s.threads.size).toBe(0);
    expect(s.inferiors.size).toBe(0);
  });
});

describe('transition: dead is terminal', () => {
  const dead = play({ type: 'loaded' }, running, { type: 'died', reason: 'gone' });
  const later: SessionEvent[] = [
    { type: 'loaded' },
    running,
    { type: 'stopped', stop: stop(1) },
    { type: 'exited', exit: { code: 0 } },
    { type: 'killed' },
    { type: 'died', reason: 'again' },
    { type: 'lost', reason: 'again' },
    { type: 'thread-created', id: 1, group: 'i1' },
    { type: 'thread-exited', id: 1, group: 'i1' },
    { type: 'inferior-started', group: 'i1', pid: 1 },
    { type: 'inferior-exited', group: 'i1', code: 1 },
    { type: 'library-loaded', library: lib('/lib/libc.so.6') },
    { type: 'library-unloaded', path: '/lib/libc.so.6' },
    { type: 'breakpoint-changed', breakpoint: bp('1') },
    { type: 'breakpoint-deleted', number: '1' },
  ];
  it.each(later.map((e) => [e.type, e] as const))('ignores %s', (_type, event) => {
    expect(transition(dead, event)).toBe(dead);
  });
  it('keeps the first reason', () => {
    expect(dead.state).toEqual({ phase: 'dead', reason: 'gone' });
  });
});

describe('transition: threads, inferiors, libraries, breakpoints', () => {
  it('tracks threads by id with their inferior', () => {
    const s = play(
      { type: 'thread-created', id: 1, group: 'i1' },
      { type: 'thread-created', id: 2, group: 'i1' },
      { type: 'thread-created', id: 3, group: 'i2' },
      { type: 'thread-exited', id: 2, group: 'i1' },
    );
    expect([...s.threads]).toEqual([
      [1, 'i1'],
      [3, 'i2'],
    ]);
  });

  it('a thread-exited for an unknown id changes nothing visible', () => {
    const s = play({ type: 'thread-created', id: 1, group: 'i1' }, { type: 'thread-exited', id: 7, group: 'i1' });
    expect([...s.threads]).toEqual([[1, 'i1']]);
  });

  it('tracks inferiors by group; an inferior exit drops its pid and only its threads', () => {
    const s = play(
      { type: 'inferior-started', group: 'i1', pid: 100 },
      { type: 'inferior-started', group: 'i2', pid: 200 },
      { type: 'thread-created', id: 1, group: 'i1' },
      { type: 'thread-created', id: 2, group: 'i2' },
      { type: 'inferior-exited', group: 'i1', code: 4 },
    );
    expect([...s.inferiors]).toEqual([['i2', 200]]);
    expect([...s.threads]).toEqual([[2, 'i2']]);
    expect(s.lastInferiorExit).toEqual({ group: 'i1', code: 4 });
  });

  it('an inferior exit without a code records none', () => {
    const s = play({ type: 'inferior-exited', group: 'i1' });
    expect(s.lastInferiorExit).toEqual({ group: 'i1' });
    expect('code' in (s.lastInferiorExit ?? {})).toBe(false);
  });

  it('a later inferior exit replaces the earlier one', () => {
    const s = play(
      { type: 'inferior-exited', group: 'i1', code: 1 },
      { type: 'inferior-exited', group: 'i1', code: 2 },
    );
    expect(s.lastInferiorExit).toEqual({ group: 'i1', code: 2 });
  });

  it('a library loaded twice is kept once, the newest report winning; unloading removes it', () => {
    const s = play(
      { type: 'library-loaded', library: lib('/lib/a.so', false) },
      { type: 'library-loaded', library: lib('/lib/b.so') },
      { type: 'library-loaded', library: lib('/lib/a.so', true) },
    );
    expect(s.libraries).toEqual([lib('/lib/b.so'), lib('/lib/a.so', true)]);
    const after = transition(s, { type: 'library-unloaded', path: '/lib/b.so' });
    expect(after.libraries).toEqual([lib('/lib/a.so', true)]);
  });

  it('breakpoints are keyed by number; a change replaces, a delete removes', () => {
    const s = play(
      { type: 'breakpoint-changed', breakpoint: bp('1') },
      { type: 'breakpoint-changed', breakpoint: bp('2') },
      { type: 'breakpoint-changed', breakpoint: bp('1', 3) },
      { type: 'breakpoint-deleted', number: '2' },
    );
    expect([...s.breakpoints.keys()]).toEqual(['1']);
    expect(s.breakpoints.get('1')?.hits).toBe(3);
  });

  it('a stop at a temporary breakpoint drops it at once (GDB says so only after *stopped)', () => {
    const s = play(
      { type: 'breakpoint-changed', breakpoint: { ...bp('1'), temporary: true } },
      { type: 'breakpoint-changed', breakpoint: bp('2') },
      running,
      { type: 'stopped', stop: { reason: 'breakpoint-hit', breakpoint: '1', temporaryBreakpoint: true } },
    );
    expect([...s.breakpoints.keys()]).toEqual(['2']);
    // The late =breakpoint-deleted is then a no-op.
    expect([...transition(s, { type: 'breakpoint-deleted', number: '1' }).breakpoints.keys()]).toEqual(['2']);
  });

  it('a stop at an ordinary breakpoint keeps it', () => {
    const s = play({ type: 'breakpoint-changed', breakpoint: bp('1') }, running, {
      type: 'stopped',
      stop: { reason: 'breakpoint-hit', breakpoint: '1' },
    });
    expect([...s.breakpoints.keys()]).toEqual(['1']);
  });

  it('bookkeeping events leave the phase, stopId and epoch alone', () => {
    const base = play({ type: 'loaded' }, running, { type: 'stopped', stop: stop(1) });
    const events: SessionEvent[] = [
      { type: 'thread-created', id: 9, group: 'i1' },
      { type: 'inferior-started', group: 'i1', pid: 5 },
      { type: 'library-loaded', library: lib('/x.so') },
      { type: 'breakpoint-changed', breakpoint: bp('4') },
      { type: 'inferior-exited', group: 'i1', code: 0 },
    ];
    const s = events.reduce(transition, base);
    expect(s.state).toBe(base.state);
    expect(s.stopId).toBe(base.stopId);
    expect(s.epoch).toBe(base.epoch);
  });
});

describe('transition: immutability', () => {
  // A busy snapshot, so every map and list is non-empty when the events below hit it.
  const busy = (): SessionSnapshot =>
    play(
      { type: 'loaded' },
      running,
      { type: 'inferior-started', group: 'i1', pid: 42 },
      { type: 'thread-created', id: 1, group: 'i1' },
      { type: 'thread-created', id: 2, group: 'i1' },
      { type: 'library-loaded', library: lib('/lib/libc.so.6') },
      { type: 'breakpoint-changed', breakpoint: bp('1') },
      { type: 'stopped', stop: stop(7) },
    );

  const events: SessionEvent[] = [
    { type: 'loaded' },
    running,
    { type: 'stopped', stop: stop(8) },
    { type: 'stopped', stop: { reason: 'breakpoint-hit', breakpoint: '1', temporaryBreakpoint: true } },
    { type: 'exited', exit: {} },
    { type: 'killed' },
    { type: 'died', reason: 'x' },
    { type: 'lost', reason: 'y' },
    { type: 'thread-created', id: 3, group: 'i1' },
    { type: 'thread-exited', id: 1, group: 'i1' },
    { type: 'inferior-started', group: 'i2', pid: 43 },
    { type: 'inferior-exited', group: 'i1', code: 1 },
    { type: 'library-loaded', library: lib('/lib/libm.so.6') },
    { type: 'library-unloaded', path: '/lib/libc.so.6' },
    { type: 'breakpoint-changed', breakpoint: bp('1', 5) },
    { type: 'breakpoint-deleted', number: '1' },
  ];

  it.each(events.map((e, i) => [`${e.type} (#${i})`, e] as const))(
    '%s never mutates the input snapshot',
    (_type, event) => {
      const before = busy();
      const copy = freeze(before);
      const threads = before.threads;
      const libraries = before.libraries;
      const breakpoints = before.breakpoints;
      transition(before, event);
      expect(freeze(before)).toEqual(copy);
      // The collections the caller holds are not edited in place either.
      expect(before.threads).toBe(threads);
      expect(before.libraries).toBe(libraries);
      expect(before.breakpoints).toBe(breakpoints);
    },
  );
});

describe('isSettled', () => {
  it.each([
    [{ phase: 'starting' } as const, false],
    [{ phase: 'loaded' } as const, false],
    [{ phase: 'running' } as const, false],
    [{ phase: 'stopped', stop: stop(1) } as const, true],
    [{ phase: 'exited', exit: { code: 0 } } as const, true],
    [{ phase: 'dead', reason: 'x' } as const, true],
  ])('%o → %s', (state, settled) => {
    expect(isSettled(state)).toBe(settled);
  });
});
