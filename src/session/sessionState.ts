// A session's state: one discriminated union for where the program is, plus what the debugger
// has told us about threads, inferiors, libraries and breakpoints. It changes only through the
// pure `transition` below, so every rule is testable without a debugger.

import type { BackendEvent } from '../backends/debuggerBackend.js';
import type { Breakpoint, ExitEvent, Library, StopEvent } from '../model/model.js';

export type Phase = 'starting' | 'loaded' | 'stopped' | 'running' | 'exited' | 'dead';

export type SessionState =
  | { phase: 'starting' }
  /** The program is loaded; nothing runs yet (or it ran and was restarted from scratch). */
  | { phase: 'loaded' }
  | { phase: 'stopped'; stop: StopEvent }
  | { phase: 'running' }
  | { phase: 'exited'; exit: ExitEvent }
  /** The debugger itself is gone. */
  | { phase: 'dead'; reason: string };

export interface SessionSnapshot {
  readonly state: SessionState;
  /** Number of the latest stop; 0 before the first. Evidence is bound to it. */
  readonly stopId: number;
  /** Number of resumes so far; a resume makes everything read before it stale. */
  readonly epoch: number;
  /** Live threads: id → inferior. */
  readonly threads: ReadonlyMap<number, string>;
  /** Running inferiors: group → pid. */
  readonly inferiors: ReadonlyMap<string, number>;
  /** The first process the debugger reported: the program itself, not a child it forked. */
  readonly primaryGroup: string | undefined;
  readonly libraries: readonly Library[];
  readonly breakpoints: ReadonlyMap<string, Breakpoint>;
  /** Whether execution is being recorded (reverse execution is possible). */
  readonly recording: boolean;
  /** Exit codes reported per inferior (=thread-group-exited), for the exit evidence. */
  readonly lastInferiorExit: { group: string; code?: number } | undefined;
}

export type SessionEvent =
  | BackendEvent
  | { type: 'loaded' }
  /** The program was killed on request. */
  | { type: 'killed' }
  /** Something outside the event stream found the debugger gone (a failed write, a close). */
  | { type: 'lost'; reason: string };

export function initialSnapshot(): SessionSnapshot {
  return {
    state: { phase: 'starting' },
    stopId: 0,
    epoch: 0,
    threads: new Map(),
    inferiors: new Map(),
    primaryGroup: undefined,
    libraries: [],
    breakpoints: new Map(),
    recording: false,
    lastInferiorExit: undefined,
  };
}

function withMap<K, V>(map: ReadonlyMap<K, V>, key: K, value: V | undefined): ReadonlyMap<K, V> {
  const next = new Map(map);
  if (value === undefined) next.delete(key);
  else next.set(key, value);
  return next;
}

/**
 * Names the process of a stop when it is not the only or the first one: with forks followed, a
 * crash in a child is reported with the child's pid.
 */
function withPid(s: SessionSnapshot, stop: StopEvent): StopEvent {
  const group = stop.threadId === undefined ? undefined : s.threads.get(stop.threadId);
  const pid = group === undefined ? undefined : s.inferiors.get(group);
  if (pid === undefined || stop.pid !== undefined || (s.inferiors.size < 2 && group === s.primaryGroup)) return stop;
  return { ...stop, pid };
}

export function transition(s: SessionSnapshot, e: SessionEvent): SessionSnapshot {
  // Nothing revives a dead session: its debugger is gone.
  if (s.state.phase === 'dead') return s;
  switch (e.type) {
    case 'loaded':
      return s.state.phase === 'starting' ? { ...s, state: { phase: 'loaded' } } : s;
    case 'running':
      // One resume can report several *running records (one per thread); it is one epoch.
      if (s.state.phase === 'running') return s;
      return { ...s, state: { phase: 'running' }, epoch: s.epoch + 1 };
    case 'stopped': {
      // GDB deletes a temporary breakpoint at the stop it causes, but its =breakpoint-deleted
      // comes after the *stopped record: drop it here so the stop never shows it alive.
      const spent = e.stop.temporaryBreakpoint ? e.stop.breakpoint : undefined;
      const breakpoints = spent === undefined ? s.breakpoints : withMap(s.breakpoints, spent, undefined);
      return { ...s, state: { phase: 'stopped', stop: withPid(s, e.stop) }, stopId: s.stopId + 1, breakpoints };
    }
    case 'exited': {
      const exit =
        e.exit.code === undefined && e.exit.signal === undefined && s.lastInferiorExit?.code !== undefined
          ? { ...e.exit, code: s.lastInferiorExit.code }
          : e.exit;
      return { ...s, state: { phase: 'exited', exit }, threads: new Map(), inferiors: new Map(), recording: false };
    }
    case 'killed':
      return {
        ...s,
        state: { phase: 'exited', exit: { killed: true } },
        threads: new Map(),
        inferiors: new Map(),
        recording: false,
      };
    case 'died':
    case 'lost':
      return { ...s, state: { phase: 'dead', reason: e.reason }, threads: new Map(), inferiors: new Map() };
    case 'thread-created':
      return { ...s, threads: withMap(s.threads, e.id, e.group) };
    case 'thread-exited':
      return { ...s, threads: withMap(s.threads, e.id, undefined) };
    case 'inferior-started':
      return { ...s, inferiors: withMap(s.inferiors, e.group, e.pid), primaryGroup: s.primaryGroup ?? e.group };
    case 'inferior-exited': {
      const threads = new Map([...s.threads].filter(([, group]) => group !== e.group));
      return {
        ...s,
        inferiors: withMap(s.inferiors, e.group, undefined),
        threads,
        lastInferiorExit: { group: e.group, ...(e.code === undefined ? {} : { code: e.code }) },
      };
    }
    case 'library-loaded':
      return { ...s, libraries: [...s.libraries.filter((l) => l.path !== e.library.path), e.library] };
    case 'library-unloaded':
      return { ...s, libraries: s.libraries.filter((l) => l.path !== e.path) };
    case 'breakpoint-changed':
      return { ...s, breakpoints: withMap(s.breakpoints, e.breakpoint.number, e.breakpoint) };
    case 'record-started':
    case 'record-stopped':
      return { ...s, recording: e.type === 'record-started' };
    case 'breakpoint-deleted':
      return { ...s, breakpoints: withMap(s.breakpoints, e.number, undefined) };
  }
}

/** True once the program is not running: a stop, an exit, or a dead debugger. */
export function isSettled(state: SessionState): boolean {
  return state.phase === 'stopped' || state.phase === 'exited' || state.phase === 'dead';
}
