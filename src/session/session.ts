// One debugging session: an actor around one backend. Tool calls go through a serial mailbox;
// the backend's events feed `transition`; interrupt and close take their own path, so they never
// wait behind a command that is waiting for the program. The layers above talk to a session
// through its methods (gather, evaluate, setBreakpoint, writeStdin, …), never to its backend.

import type {
  BackendCapabilities,
  BackendInfo,
  BreakpointChange,
  BreakpointSpec,
  CommandOptions,
  DebuggerBackend,
  FrameSelector,
  OpenReport,
  RuntimeReport,
  StartMode,
  StdinReport,
  TargetSpec,
  ValueFormat,
} from '../backends/debuggerBackend.js';
import type { Breakpoint } from '../model/model.js';
import type { OutputChunk, OutputRing } from '../process/outputRing.js';
import { abortError } from '../util/deadline.js';
import { DebuggerError, toDebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { stackFromCrash } from './evidence/basicViews.js';
import { exitReport } from './evidence/exitReport.js';
import { type CrashViewData, gatherView, type ViewOutcome, type ViewRequest } from './evidence.js';
import { Mailbox } from './mailbox.js';
import { ObservationLog } from './observations.js';
import { OperationRegistry } from './operationRegistry.js';
import { type DisassembleOptions, type DisassemblyResult, disassembleAt } from './operations/disassembly.js';
import { type Assignment, assignValue, type EvaluationResult, evaluateExpressions } from './operations/evaluation.js';
import { type MemoryRead, readMemoryAt } from './operations/memoryRead.js';
import { findOrigin, type OriginRequest, type OriginResult } from './origin/originSearch.js';
import { RunControl, type RunOutcome, type RunRequest } from './runControl.js';
import { initialSnapshot, type Phase, type SessionEvent, type SessionSnapshot, transition } from './sessionState.js';
import { refusedRun, type SessionTarget } from './targetRules.js';

export type { OriginFacts, OriginResult } from './origin/originSearch.js';
export type { ReverseAction, RunAction, RunOutcome, RunRequest } from './runControl.js';
export { REVERSE_ACTIONS } from './runControl.js';
export type { SessionTarget } from './targetRules.js';

/** How a tool's call reaches a session: the states it works in, in words, bound to a stop or not. */
export interface SessionCall {
  phases: readonly Phase[];
  /** What the call does, for errors: "show the crash view". */
  doing: string;
  /** The stop the caller's evidence comes from; another stop is refused as stale. */
  stopId?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** One read of a dbg_batch, all bound to the same stop. */
export type BatchOperation =
  | { op: 'inspect'; request: ViewRequest }
  | { op: 'evaluate'; expressions: readonly string[]; selector: FrameSelector; format: ValueFormat }
  | { op: 'memory'; address: string; length: number }
  | { op: 'disassemble'; options: DisassembleOptions };

export type BatchResult =
  | { op: 'inspect'; view: ViewOutcome }
  | { op: 'evaluate'; results: EvaluationResult[] }
  | { op: 'memory'; memory: MemoryRead }
  | { op: 'disassemble'; disassembly: DisassemblyResult }
  | { op: BatchOperation['op']; error: DebuggerError };

/** Codes that belong to one batch operation; anything else (the debugger died, a cancel) ends the batch. */
const OWN_ERRORS = new Set(['debugger_error', 'invalid_argument', 'wrong_state', 'limit_exceeded']);

/** A breakpoint as set, settled from the debugger's table, with what the user should know. */
export interface SetBreakpointResult {
  breakpoint: Breakpoint;
  warnings: string[];
  /** The debugger's whole table, when asked for. */
  table?: Breakpoint[];
}

export interface CommandResult {
  output: string;
  truncated: boolean;
  /** Where the program went when the command resumed it. */
  outcome?: RunOutcome;
}

export class Session {
  private snap: SessionSnapshot = initialSnapshot();
  private readonly mailbox = new Mailbox();
  private readonly unsubscribe: () => void;
  private closing: Promise<void> | undefined;
  /** Why it was closed, for the calls that were waiting on it ("the server is shutting down"). */
  private closeReason: string | undefined;
  private openReport: OpenReport | undefined;
  private readonly runControl: RunControl;
  readonly createdAt = Date.now();
  lastUsedAt = Date.now();
  /** Runs whose end the caller may not have seen: a wait cut short, a call cancelled or dropped. */
  readonly operations: OperationRegistry;
  /** What was gathered, kept as it was (observation ids), and served again at the same stop. */
  readonly observations: ObservationLog;

  constructor(
    readonly id: string,
    /**
     * The debugger. For the session layer and for tests of a backend; the server never touches it
     * (test/unit/architecture/layers.test.ts holds it to that): tools use the methods below.
     */
    readonly backend: DebuggerBackend,
    private targetSpec: SessionTarget,
  ) {
    this.runControl = new RunControl({
      id,
      backend,
      snapshot: () => this.snap,
      apply: (e) => this.apply(e),
      requirePhase: (phases, doing) => this.requirePhase(phases, doing),
      closed: () => this.closing !== undefined,
      touch: () => this.touch(),
      post: (task, signal) => this.post(task, signal),
      refused: (action) => refusedRun(this.target, action),
      reversible: () => backend.capabilities.reverse === 'always',
    });
    this.observations = new ObservationLog(id);
    this.operations = new OperationRegistry({ snapshot: () => this.snap, outcome: () => this.runControl.outcome() });
    this.unsubscribe = backend.subscribe((event) => this.apply(event));
  }

  get target(): SessionTarget {
    return this.targetSpec;
  }

  /** Which debugger this is: kind, version, protocol, pid. */
  get debugger(): BackendInfo {
    return this.backend.info;
  }

  get capabilities(): BackendCapabilities {
    return this.backend.capabilities;
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

  /** Where the program is, as a run reports it; undefined before anything ran (starting, loaded). */
  get outcome(): RunOutcome | undefined {
    const phase = this.snap.state.phase;
    return phase === 'starting' || phase === 'loaded' ? undefined : this.runControl.outcome();
  }

  /** What a call on a closed session is told: closed, and why when it was not the caller's dbg_close. */
  private closedError(): DebuggerError {
    return new DebuggerError(
      'no_session',
      `session ${this.id} is closed${this.closeReason ? `: ${this.closeReason}` : ''}`,
    );
  }

  get warnings(): readonly string[] {
    return this.openReport?.warnings ?? [];
  }

  /** Feed one event through the reducer and wake whoever waits for the new state. */
  apply(event: SessionEvent): void {
    const before = this.snap;
    this.snap = transition(this.snap, event);
    if (this.snap === before) return;
    if (this.snap.state.phase === 'dead' && before.state.phase !== 'dead') {
      log(this.closing ? 'debug' : 'error', 'session debugger gone', {
        session: this.id,
        reason: this.snap.state.phase === 'dead' ? this.snap.state.reason : '',
      });
    }
    this.runControl.wake(this.snap);
    this.operations.settle();
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

  // ---- the mailbox --------------------------------------------------------------------------

  private post<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.touch();
    return this.mailbox.post(async () => {
      if (signal?.aborted) throw abortError(signal);
      if (this.closing) throw this.closedError();
      try {
        return await task();
      } finally {
        this.touch();
      }
    });
  }

  /**
   * Runs `task` in the mailbox when the session is in one of `phases`. When `stopId` is given the
   * evidence must come from that stop; and it must still be the current stop when the task ends,
   * or the answer would mix two stops. (The session layer's own door to the backend; the server
   * uses the named operations.)
   */
  query<T>(
    phases: readonly Phase[],
    doing: string,
    task: (backend: DebuggerBackend, signal: AbortSignal | undefined) => Promise<T>,
    options: { stopId?: number | undefined; signal?: AbortSignal | undefined } = {},
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
      this.observations.invalidate();
      try {
        return await task(this.backend, signal);
      } finally {
        this.observations.invalidate();
      }
    }, signal);
  }

  private read<T>(call: SessionCall, task: (backend: DebuggerBackend, signal?: AbortSignal) => Promise<T>): Promise<T> {
    return this.query(call.phases, call.doing, task, { stopId: call.stopId, signal: call.signal });
  }

  private change<T>(
    call: SessionCall,
    task: (backend: DebuggerBackend, signal?: AbortSignal) => Promise<T>,
  ): Promise<T> {
    return this.mutate(call.phases, call.doing, task, call.signal);
  }

  // ---- opening ------------------------------------------------------------------------------

  /**
   * Opens the target. A launch is loaded (nothing runs yet); a core, an attach or a stub reports
   * its first stop, waited for up to `timeoutMs`.
   */
  open(
    target: TargetSpec,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ report: OpenReport; outcome?: RunOutcome }> {
    return this.post(async () => {
      this.requirePhase(['starting'], 'open the target');
      const report = await this.backend.open(target, signal);
      this.openReport = report;
      if (report.program !== undefined && this.targetSpec.program === '') {
        this.targetSpec = { ...this.targetSpec, program: report.program };
      }
      this.apply({ type: 'loaded' });
      if (!report.reportsStop) return { report };
      const outcome = await this.runControl.awaitFirstStop(timeoutMs, signal);
      return { report, outcome };
    }, signal);
  }

  // ---- running ------------------------------------------------------------------------------

  /**
   * Run control: resumes (or starts, restarts, kills) and waits for the next stop or exit, up to
   * the deadline. Never hangs: at the deadline the answer is `running` (or, with
   * onTimeout=interrupt, the stop the interrupt reached).
   */
  run(request: RunRequest, signal?: AbortSignal): Promise<RunOutcome> {
    // A wait the close ended answers that the session closed (and why), not that gdb exited.
    return this.runControl.run(request, signal).then((outcome) => {
      if (this.closing && outcome.kind === 'dead') throw this.closedError();
      return outcome;
    });
  }

  /** Stops a running program; never waits behind other calls. */
  interrupt(): Promise<RunOutcome> {
    return this.runControl.interrupt();
  }

  /** The start mode of the first run, which restart reuses. */
  set startMode(mode: StartMode) {
    this.runControl.startMode = mode;
  }

  get startMode(): StartMode {
    return this.runControl.startMode;
  }

  /** What dbg_start typed into the program's terminal: a re-execution types it again. */
  firstInput: { text: string; eof: boolean } | undefined;

  /**
   * The last write before this stop to the value it is about (or to `expression`), found by
   * re-executing the program from its start with a watchpoint; the program stops at that write.
   */
  origin(request: Omit<OriginRequest, 'stdin'>, signal?: AbortSignal): Promise<OriginResult> {
    return findOrigin(this, { ...request, ...(this.firstInput ? { stdin: this.firstInput } : {}) }, signal);
  }

  // ---- evidence at a stop -------------------------------------------------------------------

  /** One view at the current stop: served from its observation when the same view was gathered at this stop. */
  inspect(request: ViewRequest, call: SessionCall): Promise<ViewOutcome> {
    return this.read(call, (backend, signal) => this.observeView(backend, request, signal));
  }

  /** Several views in one mailbox turn, all from the same stop. */
  gather(requests: readonly ViewRequest[], call: SessionCall): Promise<{ name: string; outcome: ViewOutcome }[]> {
    return this.read(call, async (backend, signal) => {
      const out: { name: string; outcome: ViewOutcome }[] = [];
      for (const r of requests) out.push({ name: r.view, outcome: await this.observeView(backend, r, signal) });
      return out;
    });
  }

  /** A view from this stop's observation of it, or gathered and kept as a new observation. */
  private async observeView(
    backend: DebuggerBackend,
    request: ViewRequest,
    signal: AbortSignal | undefined,
  ): Promise<ViewOutcome> {
    // A joined debugger's person can change values or the selected thread at the same stop
    // without the session seeing an event: nothing is served there, every view is gathered.
    const servable = this.capabilities.access === undefined;
    const kept = servable ? this.observations.served('view', this.snap, request) : undefined;
    if (kept) return { ...(kept.value as ViewOutcome), observationId: kept.id, served: true };
    // The crash view of this stop read the whole stack already: the stack view is made of it.
    const crash = servable && request.view === 'stack' ? this.observations.servedOf('crash', this.snap) : undefined;
    const derived = crash && stackFromCrash((crash.value as ViewOutcome).data as CrashViewData, request);
    const outcome = derived
      ? { data: derived, failures: [], served: true }
      : await gatherView(backend, this.snap, request, signal);
    if (!outcome.data) return outcome;
    // A view with parts missing may come whole next time: kept, not served again.
    const obs = this.observations.record(
      outcome.data.view,
      this.snap,
      request,
      outcome,
      servable && outcome.failures.length === 0 && this.snap.state.phase === 'stopped' ? 'view' : undefined,
    );
    return { ...outcome, observationId: obs.id };
  }

  evaluate(
    expressions: readonly string[],
    selector: FrameSelector,
    format: ValueFormat,
    call: SessionCall,
  ): Promise<EvaluationResult[]> {
    return this.read(call, async (backend, signal) => {
      const results = await evaluateExpressions(backend, expressions, selector, format, signal);
      this.observations.record('evaluate', this.snap, { expressions, selector, format }, results);
      return results;
    });
  }

  /** Assigns first, then evaluates: bound to a frame of this stop just as a read is. */
  assign(
    assignment: { target: string; value: string },
    expressions: readonly string[],
    selector: FrameSelector,
    format: ValueFormat,
    call: SessionCall,
  ): Promise<{ assigned: Assignment; results: EvaluationResult[] }> {
    return this.read(call, async (backend, signal) => {
      this.observations.invalidate();
      const assigned = await assignValue(backend, assignment.target, assignment.value, selector, signal);
      const results = await evaluateExpressions(backend, expressions, selector, format, signal);
      const value = { assigned, results };
      this.observations.record('evaluate', this.snap, { assignment, expressions, selector, format }, value);
      return value;
    });
  }

  readMemory(address: string, length: number, call: SessionCall): Promise<MemoryRead> {
    return this.read(call, async (backend, signal) => {
      const memory = await readMemoryAt(backend, address, length, signal);
      this.observations.record('memory', this.snap, { address, length }, memory);
      return memory;
    });
  }

  /** Writes bytes and reads them back; addresses are often frame expressions, so it is bound to the stop. */
  writeMemory(address: string, hex: string, call: SessionCall): Promise<MemoryRead> {
    return this.read(call, async (backend, signal) => {
      this.observations.invalidate();
      await backend.writeMemory(address, hex, signal);
      const memory = await readMemoryAt(backend, address, hex.length / 2, signal);
      this.observations.record('memory', this.snap, { address, length: hex.length / 2, written: true }, memory);
      return memory;
    });
  }

  disassemble(options: DisassembleOptions, call: SessionCall): Promise<DisassemblyResult> {
    return this.read(call, async (backend, signal) => {
      const disassembly = await disassembleAt(backend, options, signal);
      this.observations.record('disassemble', this.snap, options, disassembly);
      return disassembly;
    });
  }

  /** Several reads at one stop, nothing in between; an operation's own error does not end the batch. */
  batch(operations: readonly BatchOperation[], call: SessionCall): Promise<{ stopId: number; results: BatchResult[] }> {
    return this.read(call, async (backend, signal) => {
      const results: BatchResult[] = [];
      for (const op of operations) {
        try {
          results.push(await this.batchOperation(op, backend, signal));
        } catch (e) {
          const err = toDebuggerError(e);
          if (!OWN_ERRORS.has(err.code)) throw err;
          results.push({ op: op.op, error: err });
        }
      }
      return { stopId: this.snap.stopId, results };
    });
  }

  private async batchOperation(
    op: BatchOperation,
    backend: DebuggerBackend,
    signal: AbortSignal | undefined,
  ): Promise<BatchResult> {
    const record = <T extends object>(kind: string, request: unknown, value: T): T => {
      this.observations.record(kind, this.snap, request, value);
      return value;
    };
    switch (op.op) {
      case 'inspect': {
        const view = await this.observeView(backend, op.request, signal);
        if (!view.data) {
          throw new DebuggerError(
            'debugger_error',
            `the ${op.request.view} view could not be gathered: ${view.failures.join('; ')}`,
          );
        }
        return { op: 'inspect', view };
      }
      case 'evaluate': {
        const request = { expressions: op.expressions, selector: op.selector, format: op.format };
        const results = await evaluateExpressions(backend, op.expressions, op.selector, op.format, signal);
        return { op: 'evaluate', results: record('evaluate', request, results) };
      }
      case 'memory': {
        const memory = await readMemoryAt(backend, op.address, op.length, signal);
        return { op: 'memory', memory: record('memory', { address: op.address, length: op.length }, memory) };
      }
      case 'disassemble': {
        const disassembly = await disassembleAt(backend, op.options, signal);
        return { op: 'disassemble', disassembly: record('disassemble', op.options, disassembly) };
      }
    }
  }

  // ---- breakpoints --------------------------------------------------------------------------

  /**
   * Sets a breakpoint and keeps the session's table (for "never hit" at exit) in step. With
   * `withTable`, the debugger's whole table comes back too, and the breakpoint in its settled form
   * (a multi-location breakpoint, a watchpoint's final type). With `limit`, a session that holds
   * that many already is refused (limit_exceeded).
   */
  setBreakpoint(
    spec: BreakpointSpec,
    call: SessionCall,
    options: { withTable?: boolean; limit?: number } = {},
  ): Promise<SetBreakpointResult> {
    return this.change(call, async (backend, signal) => {
      // Checked in the mailbox, so calls in parallel cannot pass the limit together.
      const held = this.snap.breakpoints.size;
      if (options.limit !== undefined && held >= options.limit) {
        throw new DebuggerError(
          'limit_exceeded',
          `${held} breakpoints are set, the most a session may hold (--max-breakpoints): delete some first`,
          { limit: options.limit },
        );
      }
      const set = await backend.insertBreakpoint(spec, signal);
      let breakpoint = set.breakpoint;
      let table: Breakpoint[] | undefined;
      if (options.withTable) {
        table = await backend.listBreakpoints(signal);
        this.syncTable(table);
        breakpoint = table.find((b) => b.number === breakpoint.number) ?? breakpoint;
      } else {
        this.apply({ type: 'breakpoint-changed', breakpoint });
      }
      const warnings = [...set.warnings];
      if (breakpoint.pending) warnings.unshift(pendingWarning(breakpoint));
      return { breakpoint, warnings, ...(table ? { table } : {}) };
    });
  }

  /**
   * Deletes, enables, disables or changes breakpoints; refuses numbers the debugger does not know
   * (GDB changes nothing, silently, for a number it does not know). Without a change: the table.
   */
  changeBreakpoints(change: BreakpointChange | undefined, call: SessionCall): Promise<Breakpoint[]> {
    return this.change(call, async (backend, signal) => {
      if (change) {
        const asked = 'numbers' in change ? change.numbers : [change.number];
        const unknown = missingNumbers(await backend.listBreakpoints(signal), asked);
        if (unknown.length > 0) {
          throw new DebuggerError(
            'invalid_argument',
            `no breakpoint ${unknown.join(', ')} (action=list shows the numbers)`,
            {
              fields: ['numbers' in change ? 'numbers' : 'number'],
            },
          );
        }
        await backend.changeBreakpoints(change, signal);
      }
      const table = await backend.listBreakpoints(signal);
      this.syncTable(table);
      return table;
    });
  }

  /** Makes the session's table match the debugger's. */
  private syncTable(table: readonly Breakpoint[]): void {
    const live = new Set(table.map((b) => b.number));
    for (const number of this.snap.breakpoints.keys()) {
      if (!live.has(number)) this.apply({ type: 'breakpoint-deleted', number });
    }
    for (const breakpoint of table) this.apply({ type: 'breakpoint-changed', breakpoint });
  }

  // ---- raw commands, cores --------------------------------------------------------------------

  /** One raw debugger command under the policy; when it resumed the program, waits for where it went. */
  command(text: string, options: CommandOptions & { timeoutMs: number }, call: SessionCall): Promise<CommandResult> {
    const deadline = Date.now() + options.timeoutMs;
    return this.change(call, async (backend, signal) => {
      const epoch = this.snap.epoch;
      const result = await backend.command(text, { ...options, timeoutMs: Math.max(1, deadline - Date.now()) }, signal);
      let outcome: RunOutcome | undefined;
      if (result.resumed || this.snap.epoch > epoch) {
        outcome = await this.runControl.waitForSettle(epoch, Math.max(1, deadline - Date.now()), signal);
      }
      return { output: result.output, truncated: result.truncated, ...(outcome ? { outcome } : {}) };
    });
  }

  /** Writes a core of the stopped program to `path` (a new file); resolves with its size in bytes. */
  saveCore(path: string, call: SessionCall): Promise<number> {
    if (this.target.kind === 'core') {
      return Promise.reject(
        new DebuggerError('wrong_state', 'this session is a core already: copy the file instead', { state: 'core' }),
      );
    }
    const save = this.backend.saveCore?.bind(this.backend);
    if (!this.capabilities.saveCore || !save) {
      return Promise.reject(
        new DebuggerError('backend_unavailable', `the ${this.debugger.kind} backend cannot write a core file`),
      );
    }
    return this.change(call, (_backend, signal) => save(path, signal));
  }

  // ---- the program's terminal -----------------------------------------------------------------

  /** Where the program's output ends (a cursor), or undefined when it has no terminal here. */
  get outputEnd(): number | undefined {
    return this.backend.output?.end;
  }

  /** Reads the program's output (or what the debugger printed on its own) from a cursor. */
  readStream(stream: 'program' | 'debugger', cursor: number, maxBytes: number): OutputChunk | undefined {
    return this.ring(stream)?.read(cursor, maxBytes);
  }

  /** Where a stream ends (the cursor after its last byte), or undefined when the session has none. */
  streamEnd(stream: 'program' | 'debugger'): number | undefined {
    return this.ring(stream)?.end;
  }

  private ring(stream: 'program' | 'debugger'): OutputRing | undefined {
    return stream === 'program' ? this.backend.output : this.backend.console;
  }

  /** The program's output since `cursor`: its last `maxBytes` when more was printed. */
  outputSince(cursor: number, maxBytes = 2048): OutputChunk | undefined {
    const ring = this.backend.output;
    if (!ring || ring.end <= cursor) return undefined;
    const available = ring.end - cursor;
    return ring.read(available > maxBytes ? ring.end - maxBytes : cursor, maxBytes);
  }

  /** A sanitizer's report among what the program printed since `cursor` (what an exit cannot say). */
  reportSince(cursor: number): RuntimeReport | undefined {
    return exitReport(this.backend, cursor);
  }

  /** Types into the program's terminal, waiting for it to take the bytes up to `deadline`. */
  writeStdin(data: string | Buffer, deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    if (this.closing) return Promise.reject(this.closedError());
    return this.backend.writeStdin(data, deadline, signal);
  }

  /** End of input after what was written before, answered as writeStdin is. */
  sendEof(deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    if (this.closing) return Promise.reject(this.closedError());
    return this.backend.sendEof(deadline, signal);
  }

  // ---- the end --------------------------------------------------------------------------------

  /**
   * Ends the session: the program is killed (or detached) and the debugger stops. Idempotent.
   * `reason` is what calls still waiting on it are told.
   */
  close(reason?: string): Promise<void> {
    if (this.closing) return this.closing;
    this.closeReason = reason;
    this.closing = (async () => {
      this.mailbox.close(this.closedError());
      try {
        await this.backend.close();
      } finally {
        this.unsubscribe();
        this.apply({ type: 'lost', reason: reason ?? 'the session was closed' });
        this.runControl.releaseAll();
        this.operations.clear();
      }
    })();
    return this.closing;
  }
}

function pendingWarning(b: Breakpoint): string {
  return `breakpoint ${b.number} at ${b.requested ?? '?'} is pending: no such location in the program yet (a typo, or code in a library not loaded yet)`;
}

/** The numbers (or locations "2.1") of a change that name no breakpoint in `table`. */
function missingNumbers(table: readonly Breakpoint[], asked: readonly string[]): string[] {
  const known = new Set<string>();
  for (const b of table) {
    known.add(b.number);
    for (const l of b.locations) known.add(l.id);
  }
  // A single-location breakpoint "2" answers to "2.1" too, though GDB lists no locations for it.
  return asked.filter((n) => !known.has(n) && !(n.endsWith('.1') && known.has(n.slice(0, -2))));
}

export function describeState(phase: Phase, state?: { phase: Phase; reason?: string }): string {
  switch (phase) {
    case 'starting':
      return "the session is still starting: wait for dbg_start's answer (dbg_sessions shows its state)";
    case 'loaded':
      return 'the program is loaded but not started: call dbg_run with action=run';
    case 'stopped':
      return 'the program is stopped, started already: call dbg_run with action=continue to go on, or action=restart to run it again from the start';
    case 'running':
      return 'the program is running: call dbg_run with action=interrupt first';
    case 'exited':
      return 'the program has exited: call dbg_run with action=restart to run it again';
    case 'dead':
      return `the debugger is gone (${state?.reason ?? 'unknown reason'}): call dbg_close, then dbg_start again`;
  }
}
