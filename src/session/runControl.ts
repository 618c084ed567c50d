// A session's run control: start, resume, step, kill, record, and the waits that follow — each
// with a deadline, never hanging, never desynchronised. Interrupt and `wait` bypass the mailbox
// (they send the debugger nothing it would queue behind a run), everything else goes through it.

import type { DebuggerBackend, ResumeAction, ResumeOptions, StartMode } from '../backends/debuggerBackend.js';
import type { ExitEvent, StopEvent } from '../model/model.js';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { isSettled, type Phase, type SessionEvent, type SessionSnapshot } from './sessionState.js';

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

/** Actions that set the program running (when they are accepted). */
function setsRunning(action: RunAction): boolean {
  return action !== 'kill' && action !== 'interrupt' && action !== 'wait' && !action.startsWith('record_');
}

/**
 * How long an interrupt waits for a run posted before it to set the program running (it may be
 * queued behind other work on the session). Past that, the interrupt answers the state as it is.
 */
const RESUME_START_WAIT_MS = 30_000;

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

/** What run control needs of its session. */
export interface RunHost {
  id: string;
  backend: DebuggerBackend;
  snapshot(): SessionSnapshot;
  apply(event: SessionEvent): void;
  requirePhase(phases: readonly Phase[], doing: string): void;
  closed(): boolean;
  touch(): void;
  post<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Why the target cannot take this action (a core does not run), or undefined. */
  refused(action: RunAction): DebuggerError | undefined;
  /** Whether the target runs backwards without recording (a replay). */
  reversible(): boolean;
}

interface Waiter {
  check: (s: SessionSnapshot) => boolean;
  resolve: () => void;
}

const INTERRUPT_GRACE_MS = 8000;
/**
 * How long each way of interrupting gets before the next, harder one (backend.forceInterrupt).
 * GDB's own SIGINT lands within milliseconds on an idle machine; on a loaded one (load 18 on 2
 * cores, measured) gdb itself may not run for a second, so the harder way waits longer than that.
 */
const INTERRUPT_ESCALATE_MS = 2500;

export class RunControl {
  private readonly waiters = new Set<Waiter>();
  /** The start mode of the first run, reused by restart. */
  startMode: StartMode = 'none';
  /** One interrupt at a time: two escalations would leave a second SIGSTOP pending. */
  private interrupting: Promise<RunOutcome> | undefined;
  /**
   * After an interrupt that had to try harder, the signal that lost the race (gdb's SIGINT, or
   * the SIGSTOP sent after it) may still be pending in the program: the next resume would stop
   * at once on it. That stop is the interrupt's leftover, not news: the resume is repeated once.
   */
  private strayStopPossible = false;
  /**
   * Runs posted and not answered yet that set the program running. An interrupt that overtakes
   * one (it came while the run was still queued, or before gdb said `running`) waits for the
   * program to run and stops it, instead of answering the old stop and letting the run go on.
   */
  private readonly pendingRuns = new Set<Promise<RunOutcome>>();

  constructor(private readonly host: RunHost) {}

  private get snap(): SessionSnapshot {
    return this.host.snapshot();
  }

  /** Wakes the waits the new state satisfies. */
  wake(snap: SessionSnapshot): void {
    for (const w of [...this.waiters]) {
      if (w.check(snap)) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
  }

  /** Ends every wait (the session closed). */
  releaseAll(): void {
    for (const w of [...this.waiters]) w.resolve();
    this.waiters.clear();
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

  outcome(): RunOutcome {
    const snap = this.snap;
    const s = snap.state;
    switch (s.phase) {
      case 'stopped':
        return { kind: 'stopped', stop: s.stop, stopId: snap.stopId };
      case 'exited':
        return { kind: 'exited', exit: s.exit };
      case 'dead':
        return { kind: 'dead', reason: s.reason };
      default:
        return { kind: 'running' };
    }
  }

  /** A target that reports its first stop (a core, an attach, a stub): wait for it. */
  async awaitFirstStop(timeoutMs: number, signal?: AbortSignal): Promise<RunOutcome> {
    if (await this.waitFor((s) => isSettled(s.state), timeoutMs, signal)) return this.outcome();
    throw new DebuggerError('timeout', `the target reported no stop within ${timeoutMs} ms`);
  }

  run(request: RunRequest, signal?: AbortSignal): Promise<RunOutcome> {
    if (request.action === 'interrupt') return this.interrupt();
    if (request.action === 'wait') return this.waitWhileRunning(request, signal);
    const posted = this.host.post(() => this.runNow(request, signal), signal);
    if (setsRunning(request.action)) {
      this.pendingRuns.add(posted);
      const drop = (): void => {
        this.pendingRuns.delete(posted);
      };
      posted.then(drop, drop);
    }
    return posted;
  }

  private async runNow(request: RunRequest, signal?: AbortSignal): Promise<RunOutcome> {
    const { action } = request;
    const host = this.host;
    const backend = host.backend;
    const timeoutMs = request.timeoutMs ?? 30_000;
    const refused = host.refused(action);
    if (refused) throw refused;
    if (action === 'kill') {
      host.requirePhase(['stopped', 'running'], 'kill the program');
      await backend.kill(signal);
      host.apply({ type: 'killed' });
      return this.outcome();
    }
    if (action === 'run' || action === 'restart') {
      if (action === 'run') host.requirePhase(['loaded', 'exited'], 'start the program');
      else host.requirePhase(['loaded', 'stopped', 'exited', 'running'], 'restart the program');
      if (this.snap.state.phase === 'stopped' || this.snap.state.phase === 'running') {
        await backend.kill(signal);
        host.apply({ type: 'killed' });
      }
      if (request.startMode !== undefined) this.startMode = request.startMode;
      const epoch = this.snap.epoch;
      await backend.start(this.startMode, signal);
      return this.waitForStop(epoch, timeoutMs, request, signal);
    }
    if (action === 'record_start' || action === 'record_stop') {
      host.requirePhase(['stopped'], action === 'record_start' ? 'start recording' : 'stop recording');
      const change = action === 'record_start' ? backend.startRecording : backend.stopRecording;
      if (!backend.capabilities.record || !change) {
        throw new DebuggerError(
          'backend_unavailable',
          `cannot ${action === 'record_start' ? 'start' : 'stop'} recording: the ${backend.info.kind} backend does not record execution`,
        );
      }
      await change.call(backend, signal);
      return this.outcome();
    }
    host.requirePhase(['stopped'], `${action}`);
    if (isReverse(action) && !this.snap.recording && !host.reversible()) {
      if (backend.capabilities.reverse === 'none') {
        throw new DebuggerError(
          'backend_unavailable',
          `cannot ${action}: the ${backend.info.kind} backend cannot run backwards (the gdb backend can, with record=true)`,
        );
      }
      throw new DebuggerError(
        'wrong_state',
        `cannot ${action}: nothing is recorded. Call dbg_run action=record_start at a stop (or dbg_start record=true) and move forward first; reverse execution covers what was recorded`,
        { state: this.snap.state.phase },
      );
    }
    const resume = isReverse(action) ? (action.slice('reverse_'.length) as ResumeAction) : (action as ResumeAction);
    const options = { ...request.options, ...(isReverse(action) ? { reverse: true } : {}) };
    const stray = this.strayStopPossible;
    this.strayStopPossible = false;
    let epoch = this.snap.epoch;
    await backend.resume(resume, options, signal);
    const outcome = await this.waitForStop(epoch, timeoutMs, request, signal);
    if (!stray || !isInterruptLeftover(outcome)) return outcome;
    log('info', "the interrupt's leftover signal stopped the program again; resuming", { session: host.id });
    epoch = this.snap.epoch;
    await backend.resume(resume, options, signal);
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
  private async waitWhileRunning(request: Omit<RunRequest, 'action'>, signal?: AbortSignal): Promise<RunOutcome> {
    this.host.touch();
    if (this.host.closed()) throw new DebuggerError('no_session', `session ${this.host.id} is closed`);
    this.host.requirePhase(['running', 'stopped', 'exited', 'dead'], 'wait for the program');
    if (this.snap.state.phase !== 'running') return this.outcome();
    return this.waitForStop(this.snap.epoch - 1, request.timeoutMs ?? 30_000, { action: 'wait', ...request }, signal);
  }

  /**
   * Stops a running program. Bypasses the mailbox: a run waiting in the mailbox is exactly what
   * this is for. If nothing runs, answers with the current state.
   */
  async interrupt(): Promise<RunOutcome> {
    this.host.touch();
    if (this.host.closed()) throw new DebuggerError('no_session', `session ${this.host.id} is closed`);
    if (this.snap.state.phase !== 'running' && this.pendingRuns.size > 0) {
      await this.runStarted();
      if (this.host.closed()) throw new DebuggerError('no_session', `session ${this.host.id} is closed`);
    }
    // Before the first run there is no stop to report, and outcome() would say `running`.
    this.host.requirePhase(['running', 'stopped', 'exited', 'dead'], 'interrupt');
    if (this.snap.state.phase !== 'running') return this.outcome();
    return this.interruptAndWait();
  }

  /** Until the program runs, or every run posted so far has answered (refused, or settled again). */
  private async runStarted(): Promise<void> {
    const answered = new AbortController();
    void Promise.allSettled([...this.pendingRuns]).then(() => answered.abort());
    await this.waitFor((s) => s.state.phase === 'running', RESUME_START_WAIT_MS, answered.signal);
  }

  private interruptAndWait(): Promise<RunOutcome> {
    // A stop asked for now is not a leftover of an earlier interrupt.
    this.strayStopPossible = false;
    this.interrupting ??= this.escalatingInterrupt().finally(() => {
      this.interrupting = undefined;
    });
    return this.interrupting;
  }

  private async escalatingInterrupt(): Promise<RunOutcome> {
    const backend = this.host.backend;
    const epoch = this.snap.epoch;
    const stopped = (s: SessionSnapshot): boolean => s.epoch >= epoch && isSettled(s.state);
    const began = Date.now();
    // Not awaited: a debugger that does not read its input answers only at the command deadline.
    const sent = backend.interrupt().catch((e: unknown) => {
      if (this.snap.state.phase !== 'dead')
        log('warn', 'interrupt failed', { session: this.host.id, error: String(e) });
    });
    if (await this.waitFor(stopped, INTERRUPT_ESCALATE_MS)) {
      await sent;
      return this.outcome();
    }
    for (let step = 1; backend.forceInterrupt; step++) {
      if (this.snap.state.phase === 'dead') return this.outcome();
      const did = backend.forceInterrupt(step);
      if (did === undefined) break;
      log('warn', 'the program did not stop at the interrupt; trying harder', { session: this.host.id, did });
      this.strayStopPossible = true;
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
}

/** A stop by SIGINT or SIGSTOP: what an interrupt that tried harder may leave pending. */
function isInterruptLeftover(outcome: RunOutcome): boolean {
  if (outcome.kind !== 'stopped') return false;
  const { reason, signal } = outcome.stop;
  return reason === 'signal-received' && (signal?.name === 'SIGINT' || signal?.name === 'SIGSTOP');
}
