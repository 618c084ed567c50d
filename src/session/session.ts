// One debugging session: an actor around one backend. Tool calls go through a serial mailbox;
// the backend's events feed `transition`; interrupt and close take their own path, so they never
// wait behind a command that is waiting for the program.

import type {
  DebuggerBackend,
  LaunchSpec,
  LoadReport,
  ResumeAction,
  ResumeOptions,
  StartMode,
} from '../backends/debuggerBackend.js';
import type { ExitEvent, StopEvent } from '../model/model.js';
import { abortError } from '../util/deadline.js';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { Mailbox } from './mailbox.js';
import {
  initialSnapshot,
  isSettled,
  type Phase,
  type SessionEvent,
  type SessionSnapshot,
  transition,
} from './sessionState.js';
import { refusedRun } from './sessionTargets.js';

/** How a wait for the program ended. */
export type RunOutcome =
  | { kind: 'stopped'; stop: StopEvent; stopId: number }
  | { kind: 'exited'; exit: ExitEvent }
  /** The deadline came first: the program is still running. */
  | { kind: 'running' }
  | { kind: 'dead'; reason: string };

export const REVERSE_ACTIONS = [
  'reverse_continue',
  'reverse_step',
  'reverse_next',
  'reverse_stepi',
  'reverse_nexti',
  'reverse_finish',
] as const;
export type ReverseAction = (typeof REVERSE_ACTIONS)[number];

export type RunAction =
  | ResumeAction
  | ReverseAction
  | 'run'
  | 'restart'
  | 'kill'
  | 'interrupt'
  | 'wait'
  | 'record_start'
  | 'record_stop';

function isReverse(action: RunAction): action is ReverseAction {
  return (REVERSE_ACTIONS as readonly string[]).includes(action);
}

export interface RunRequest {
  action: RunAction;
  options?: ResumeOptions;
  /** For run/restart: where the fresh run stops first. */
  startMode?: StartMode;
  /** How long to wait for the program to stop; default 30 s. */
  timeoutMs?: number;
  /** At the deadline: return `running` (default) or interrupt and return where it stopped. */
  onTimeout?: 'return' | 'interrupt';
  /** Called while the wait goes on, about once a second. */
  onProgress?: (elapsedMs: number) => void;
}

/**
 * What the session debugs. `program` is the executable when known ('' when not), `remote` the
 * host:port of a gdbserver or QEMU stub the target lives behind.
 */
export type SessionTarget = { program: string; args: readonly string[]; remote?: string } & (
  | { kind: 'launch' }
  | { kind: 'core'; core: string }
  | { kind: 'attach'; pid: number }
  /** A program already started by the stub (`target remote`). */
  | { kind: 'remote' }
  /** An rr recording, replayed: runs forwards and backwards, deterministically. */
  | { kind: 'replay'; trace: string }
);

interface Waiter {
  check: (s: SessionSnapshot) => boolean;
  resolve: () => void;
}

const INTERRUPT_GRACE_MS = 5000;
/** How long each way of interrupting gets before the next, harder one (backend.forceInterrupt). */
const INTERRUPT_ESCALATE_MS = 1000;

export class Session {
  private snap: SessionSnapshot = initialSnapshot();
  private readonly mailbox = new Mailbox();
  private readonly waiters = new Set<Waiter>();
  private readonly unsubscribe: () => void;
  private closing: Promise<void> | undefined;
  readonly createdAt = Date.now();
  lastUsedAt = Date.now();
  /** The start mode of the first run, reused by restart. */
  private startMode: StartMode = 'none';
  private loadReport: LoadReport | undefined;
  /** Whether the target can always run backwards (an rr replay), recording or not. */
  reversible = false;
  private readonly cleanups: (() => Promise<void>)[] = [];

  /** Something to end when the session closes, after the debugger (a replay server, …). */
  addCleanup(fn: () => Promise<void>): void {
    this.cleanups.push(fn);
  }

  constructor(
    readonly id: string,
    readonly backend: DebuggerBackend,
    readonly target: SessionTarget,
  ) {
    this.unsubscribe = backend.subscribe((event) => this.apply(event));
  }

  get snapshot(): SessionSnapshot {
    return this.snap;
  }

  get phase(): Phase {
    return this.snap.state.phase;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  get warnings(): readonly string[] {
    return this.loadReport?.warnings ?? [];
  }

  /** Feed one event through the reducer and wake whoever waits for the new state. */
  apply(event: SessionEvent): void {
    const before = this.snap;
    this.snap = transition(this.snap, event);
    if (this.snap === before) return;
    if (this.snap.state.phase === 'dead' && before.state.phase !== 'dead') {
      log(this.closing ? 'debug' : 'warn', 'session debugger gone', {
        session: this.id,
        reason: this.snap.state.phase === 'dead' ? this.snap.state.reason : '',
      });
    }
    for (const w of [...this.waiters]) {
      if (w.check(this.snap)) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
  }

  /** Resolves when `check` holds (now or later), or false at the deadline / on abort. */
  private waitFor(check: (s: SessionSnapshot) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (check(this.snap)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = (value: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
        resolve(value);
      };
      const waiter: Waiter = { check, resolve: () => done(true) };
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      const onAbort = (): void => done(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  private outcome(): RunOutcome {
    const s = this.snap.state;
    switch (s.phase) {
      case 'stopped':
        return { kind: 'stopped', stop: s.stop, stopId: this.snap.stopId };
      case 'exited':
        return { kind: 'exited', exit: s.exit };
      case 'dead':
        return { kind: 'dead', reason: s.reason };
      default:
        return { kind: 'running' };
    }
  }

  private touch(): void {
    this.lastUsedAt = Date.now();
  }

  /** Throws `wrong_state` unless the session is in one of `phases`, with the next step named. */
  requirePhase(phases: readonly Phase[], doing: string): void {
    const s = this.snap.state;
    if (phases.includes(s.phase)) return;
    // A dead debugger is not a state the agent can change by calling something else first.
    if (s.phase === 'dead') {
      throw new DebuggerError('debugger_error', `cannot ${doing}: ${describeState(s.phase, s)}`, { state: s.phase });
    }
    throw new DebuggerError('wrong_state', `cannot ${doing}: ${describeState(s.phase, s)}`, { state: s.phase });
  }

  // ---- serial operations ------------------------------------------------------------------

  /**
   * Opens a target that is not launched here (a core, an attach, a remote stub) and waits up to
   * `timeoutMs` for the first stop it reports.
   */
  open(
    task: (backend: DebuggerBackend, signal: AbortSignal | undefined) => Promise<void>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<RunOutcome> {
    return this.post(async () => {
      this.requirePhase(['starting', 'loaded'], 'open the target');
      await task(this.backend, signal);
      if (await this.waitFor((s) => isSettled(s.state), timeoutMs, signal)) return this.outcome();
      throw new DebuggerError('timeout', `the target reported no stop within ${timeoutMs} ms`);
    }, signal);
  }

  /** Loads the program. The first operation of a launched session. */
  load(spec: LaunchSpec, signal?: AbortSignal): Promise<LoadReport> {
    return this.post(async () => {
      this.requirePhase(['starting'], 'load a program');
      this.loadReport = await this.backend.load(spec, signal);
      this.apply({ type: 'loaded' });
      return this.loadReport;
    }, signal);
  }

  /**
   * Runs `task` in the mailbox when the session is in one of `phases`. When `stopId` is given
   * the evidence must come from that stop; and it must still be the current stop when the task
   * ends, or the answer would mix two stops.
   */
  query<T>(
    phases: readonly Phase[],
    doing: string,
    task: (backend: DebuggerBackend, signal: AbortSignal | undefined) => Promise<T>,
    options: { stopId?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    return this.post(async () => {
      this.requirePhase(phases, doing);
      const at = this.snap.stopId;
      const epoch = this.snap.epoch;
      if (options.stopId !== undefined && options.stopId !== at) {
        throw new DebuggerError(
          'stale_context',
          `stop ${options.stopId} is gone: the program has moved on to stop ${at}. Read the evidence again at the current stop.`,
          { requestedStopId: options.stopId, stopId: at },
        );
      }
      const result = await task(this.backend, options.signal);
      if (this.snap.stopId !== at || this.snap.epoch !== epoch) {
        throw new DebuggerError('stale_context', `the program moved while ${doing}; ask again at the new stop`, {
          stopId: this.snap.stopId,
        });
      }
      return result;
    }, options.signal);
  }

  /** Like query, for operations that may change the target (breakpoints, writes, raw commands). */
  mutate<T>(
    phases: readonly Phase[],
    doing: string,
    task: (backend: DebuggerBackend, signal: AbortSignal | undefined) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.post(async () => {
      this.requirePhase(phases, doing);
      return task(this.backend, signal);
    }, signal);
  }

  private post<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.touch();
    return this.mailbox.post(async () => {
      if (signal?.aborted) throw abortError(signal);
      if (this.closing) throw new DebuggerError('no_session', `session ${this.id} is closed`);
      try {
        return await task();
      } finally {
        this.touch();
      }
    });
  }

  /**
   * Run control: resumes (or starts, restarts, kills) and waits for the next stop or exit, up to
   * the deadline. Never hangs: at the deadline the answer is `running` (or, with
   * onTimeout=interrupt, the stop the interrupt reached).
   */
  run(request: RunRequest, signal?: AbortSignal): Promise<RunOutcome> {
    if (request.action === 'interrupt') return this.interrupt();
    if (request.action === 'wait') return this.waitWhileRunning(request, signal);
    return this.post(() => this.runNow(request, signal), signal);
  }

  private async runNow(request: RunRequest, signal?: AbortSignal): Promise<RunOutcome> {
    const { action } = request;
    const timeoutMs = request.timeoutMs ?? 30_000;
    const refused = refusedRun(this.target, action);
    if (refused) throw refused;
    if (action === 'kill') {
      this.requirePhase(['stopped', 'running'], 'kill the program');
      await this.backend.kill(signal);
      this.apply({ type: 'killed' });
      return this.outcome();
    }
    if (action === 'run' || action === 'restart') {
      if (action === 'run') this.requirePhase(['loaded', 'exited'], 'start the program');
      else this.requirePhase(['loaded', 'stopped', 'exited', 'running'], 'restart the program');
      if (this.snap.state.phase === 'stopped' || this.snap.state.phase === 'running') {
        await this.backend.kill(signal);
        this.apply({ type: 'killed' });
      }
      if (request.startMode !== undefined) this.startMode = request.startMode;
      const epoch = this.snap.epoch;
      await this.backend.start(this.startMode, signal);
      return this.waitForStop(epoch, timeoutMs, request, signal);
    }
    if (action === 'record_start' || action === 'record_stop') {
      this.requirePhase(['stopped'], action === 'record_start' ? 'start recording' : 'stop recording');
      if (action === 'record_start') await this.backend.startRecording(signal);
      else await this.backend.stopRecording(signal);
      return this.outcome();
    }
    this.requirePhase(['stopped'], `${action}`);
    if (isReverse(action) && !this.snap.recording && !this.reversible) {
      throw new DebuggerError(
        'wrong_state',
        `cannot ${action}: nothing is recorded. Call dbg_run action=record_start at a stop (or dbg_start record=true) and move forward first; reverse execution covers what was recorded`,
        { state: this.snap.state.phase },
      );
    }
    const epoch = this.snap.epoch;
    const resume = isReverse(action) ? (action.slice('reverse_'.length) as ResumeAction) : (action as ResumeAction);
    await this.backend.resume(resume, { ...request.options, ...(isReverse(action) ? { reverse: true } : {}) }, signal);
    return this.waitForStop(epoch, timeoutMs, request, signal);
  }

  /** Waits until the program, resumed after `epoch`, stops, exits or the debugger dies. */
  private async waitForStop(
    epoch: number,
    timeoutMs: number,
    request: RunRequest,
    signal?: AbortSignal,
  ): Promise<RunOutcome> {
    const settled = (s: SessionSnapshot): boolean =>
      s.state.phase === 'dead' || (s.epoch > epoch && isSettled(s.state));
    const started = Date.now();
    let progress: NodeJS.Timeout | undefined;
    if (request.onProgress) {
      const report = request.onProgress;
      progress = setInterval(() => report(Date.now() - started), 1000);
      progress.unref();
    }
    try {
      const ok = await this.waitFor(settled, timeoutMs, signal);
      if (ok) return this.outcome();
      // Cancelled, or out of time: stop the program when asked to, and say where it stopped.
      if (signal?.aborted || request.onTimeout === 'interrupt') {
        return await this.interruptAndWait();
      }
      return this.outcome();
    } finally {
      if (progress) clearInterval(progress);
    }
  }

  /**
   * After an operation outside run() resumed the program (a raw command): waits, as a run does,
   * for the stop or exit that follows `epoch`, up to the deadline (then `running`).
   */
  waitForSettle(epoch: number, timeoutMs: number, signal?: AbortSignal): Promise<RunOutcome> {
    return this.waitForStop(epoch, timeoutMs, { action: 'continue', onTimeout: 'return' }, signal);
  }

  /**
   * Waits, without moving the program, until a running program stops or exits (up to the
   * deadline). Bypasses the mailbox: it sends nothing to the debugger.
   */
  async waitWhileRunning(request: Omit<RunRequest, 'action'>, signal?: AbortSignal): Promise<RunOutcome> {
    this.touch();
    if (this.closing) throw new DebuggerError('no_session', `session ${this.id} is closed`);
    this.requirePhase(['running', 'stopped', 'exited', 'dead'], 'wait for the program');
    if (this.snap.state.phase !== 'running') return this.outcome();
    return this.waitForStop(this.snap.epoch - 1, request.timeoutMs ?? 30_000, { action: 'wait', ...request }, signal);
  }

  /**
   * Stops a running program. Bypasses the mailbox: a run waiting in the mailbox is exactly what
   * this is for. If nothing runs, answers with the current state.
   */
  async interrupt(): Promise<RunOutcome> {
    this.touch();
    if (this.closing) throw new DebuggerError('no_session', `session ${this.id} is closed`);
    // Before the first run there is no stop to report, and outcome() would say `running`.
    this.requirePhase(['running', 'stopped', 'exited', 'dead'], 'interrupt');
    if (this.snap.state.phase !== 'running') return this.outcome();
    return this.interruptAndWait();
  }

  /** One interrupt at a time: two escalations would leave a second SIGSTOP pending. */
  private interrupting: Promise<RunOutcome> | undefined;

  private interruptAndWait(): Promise<RunOutcome> {
    this.interrupting ??= this.escalatingInterrupt().finally(() => {
      this.interrupting = undefined;
    });
    return this.interrupting;
  }

  private async escalatingInterrupt(): Promise<RunOutcome> {
    const epoch = this.snap.epoch;
    const stopped = (s: SessionSnapshot): boolean => s.epoch >= epoch && isSettled(s.state);
    const began = Date.now();
    // Not awaited: a debugger that does not read its input answers only at the command deadline.
    const sent = this.backend.interrupt().catch((e: unknown) => {
      if (this.snap.state.phase !== 'dead') log('warn', 'interrupt failed', { session: this.id, error: String(e) });
    });
    if (await this.waitFor(stopped, INTERRUPT_ESCALATE_MS)) {
      await sent;
      return this.outcome();
    }
    for (let step = 1; this.backend.forceInterrupt; step++) {
      if (this.snap.state.phase === 'dead') return this.outcome();
      const did = this.backend.forceInterrupt(step);
      if (did === undefined) break;
      log('warn', 'the program did not stop at the interrupt; trying harder', { session: this.id, did });
      if (await this.waitFor(stopped, INTERRUPT_ESCALATE_MS)) return this.outcome();
    }
    const left = INTERRUPT_GRACE_MS - (Date.now() - began);
    if (left > 0 && (await this.waitFor(stopped, left))) return this.outcome();
    if (this.snap.state.phase === 'dead') return this.outcome();
    throw new DebuggerError(
      'timeout',
      `the program did not stop within ${INTERRUPT_GRACE_MS} ms of the interrupt; call dbg_run action=kill or dbg_close`,
    );
  }

  /** Ends the session: the program is killed (or detached) and the debugger stops. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.mailbox.close(new DebuggerError('no_session', `session ${this.id} is closed`));
      try {
        await this.backend.close();
      } finally {
        // What the target needed beside the debugger (an rr replay server) goes after it.
        await Promise.allSettled(this.cleanups.map((fn) => fn()));
        this.unsubscribe();
        this.apply({ type: 'lost', reason: 'the session was closed' });
        for (const w of [...this.waiters]) w.resolve();
        this.waiters.clear();
      }
    })();
    return this.closing;
  }
}

export function describeState(phase: Phase, state?: { phase: Phase; reason?: string }): string {
  switch (phase) {
    case 'starting':
      return 'the session is still starting';
    case 'loaded':
      return 'the program is loaded but not started: call dbg_run with action=run';
    case 'stopped':
      return 'the program is stopped';
    case 'running':
      return 'the program is running: call dbg_run with action=interrupt first';
    case 'exited':
      return 'the program has exited: call dbg_run with action=restart to run it again';
    case 'dead':
      return `the debugger is gone (${state?.reason ?? 'unknown reason'}): call dbg_close, then dbg_start again`;
  }
}
