// The LLDB backend: one lldb-dap process speaking the Debug Adapter Protocol, with the debugged
// program on a pseudo-terminal of its own. This front class owns the process, the connection, the
// event order and the state; each job lives in a module of its own (open, events, run control,
// breakpoints, inspection, memory, source, raw commands), as functions over the LldbContext this
// class hands them. lldb-dap's measured behaviour, which the modules work around, is written down
// in docs/notes/lldb-dap.md.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type {
  Breakpoint,
  Frame,
  Library,
  MemoryBlock,
  Register,
  SourceLine,
  Thread,
  Variable,
} from '../../model/model.js';
import { releaseSession } from '../../process/orphanGuard.js';
import { OutputRing } from '../../process/outputRing.js';
import { killSessionsAndWait } from '../../process/processTree.js';
import { type ProgramTerminal, waitUntil } from '../../process/programTerminal.js';
import type { DapCommand, DapRequests } from '../../protocols/dap/dapRequests.js';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import type {
  BackendCapabilities,
  BackendEvent,
  BackendInfo,
  BreakpointChange,
  BreakpointSpec,
  CommandOptions,
  CommandOutput,
  DebuggerBackend,
  DisassembleRequest,
  Disassembly,
  FrameSelector,
  OpenReport,
  ResumeAction,
  ResumeOptions,
  SetBreakpoint,
  StartMode,
  StdinReport,
  TargetRuntime,
  TargetSpec,
  ValueFormat,
} from '../debuggerBackend.js';
import { glibcRuntime } from '../runtime/glibcRuntime.js';
import { LldbAdapter } from './lldbAdapter.js';
import { LldbBreakpoints } from './lldbBreakpoints.js';
import { runCommand } from './lldbCommand.js';
import {
  initialState,
  type LldbBackendOptions,
  type LldbContext,
  type LldbFrame,
  type LldbRequestOptions,
  type LldbState,
} from './lldbContext.js';
import { handleEvent } from './lldbEvents.js';
import * as inspection from './lldbInspection.js';
import * as memory from './lldbMemory.js';
import { narrowFrame, narrowModule } from './lldbNarrow.js';
import { launchStopped, openTarget } from './lldbOpen.js';
import * as run from './lldbRunControl.js';
import { noteSources, sourceLines } from './lldbSource.js';
import { LldbThreadNumbers } from './lldbThreadNumbers.js';

export type { LldbBackendOptions } from './lldbContext.js';

const CONSOLE_TAIL_BYTES = 64 * 1024;

export const LLDB_CAPABILITIES: BackendCapabilities = {
  targets: ['launch', 'core', 'attach', 'remote'],
  reverse: 'none',
  record: false,
  // Data breakpoints, which LLDB sets in the CPU's debug registers only: refused up front where
  // the machine probe finds them dead (lldbBreakpoints.ts).
  watchpoints: ['write', 'read', 'access'],
  softwareWatchpoints: false,
  // lldb-dap refuses a watchpoint on memory not mapped yet ("memory region … has no read or
  // write permissions", measured with lldb 22 at main on a heap address): no origin search.
  watchUnmapped: false,
  hardwareBreakpoints: false,
  // lldb-dap's exception filters: C++ throw and catch (the Objective-C ones mean nothing on Linux).
  catchEvents: ['throw', 'catch'],
  logpoints: true,
  forks: false,
  sysroot: false,
  saveCore: false,
  inferiorCalls: true,
  programTerminal: true,
  rawDialect: 'lldb',
};

interface EventWaiter {
  name: string;
  resolve: (event: DebugProtocol.Event) => void;
  reject: (error: Error) => void;
}

export class LldbBackend implements DebuggerBackend {
  readonly info: BackendInfo;
  readonly capabilities: BackendCapabilities = LLDB_CAPABILITIES;
  readonly runtime: TargetRuntime = glibcRuntime;
  readonly console = new OutputRing(CONSOLE_TAIL_BYTES);
  readonly state: LldbState = initialState();
  readonly context: LldbContext;
  /** lldb-dap's thread ids (the OS's) to the session's numbers, translated at this class's edge. */
  private readonly threadNumbers = new LldbThreadNumbers();
  private readonly listeners = new Set<(event: BackendEvent) => void>();
  private readonly waiters: EventWaiter[] = [];
  /** Events leave in the order they arrived, even when one waits for enrichment. */
  private eventChain: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private terminal: ProgramTerminal | undefined;
  private readonly breakpoints: LldbBreakpoints;
  private readonly internal = new Set<string>();
  /** The lldb-dap in use; replaced when the program runs again after an exit (lldbAdapter.ts). */
  private current: LldbAdapter | undefined;
  /** Counts adapters: the events of one that was replaced are not the session's. */
  private generation = 0;

  private constructor(readonly options: LldbBackendOptions) {
    this.info = { kind: 'lldb', version: 'lldb (unknown version)', protocol: 'dap', pid: undefined };
    const self = this;
    this.context = {
      options,
      state: this.state,
      threadNumbers: this.threadNumbers,
      request: (command, args, o) => self.request(command, args, o),
      nextEvent: (name, timeoutMs) => self.nextEvent(name, timeoutMs),
      repl: (command, selector, o) => self.repl(command, selector, o),
      frameId: (selector, signal) => self.frameId(selector, signal),
      frames: (threadId, from, to, signal) => self.frames(threadId, from, to, signal),
      emit: (event) => self.emit(event),
      console: this.console,
      get terminal() {
        return self.terminal;
      },
      internalBreakpoints: this.internal,
      clearInternalBreakpoints: () => self.clearInternalBreakpoints(),
      relaunch: (signal) => self.relaunch(signal),
    };
    this.breakpoints = new LldbBreakpoints(this.context);
  }

  private get adapter(): LldbAdapter {
    if (!this.current) throw new DebuggerError('debugger_error', 'lldb-dap is not running');
    return this.current;
  }

  get output(): OutputRing | undefined {
    return this.terminal?.output;
  }

  stderrTail(): string[] {
    return this.current?.stderrTail() ?? [];
  }

  /** Starts lldb-dap and initializes it; the target comes with open(). */
  static async launch(options: LldbBackendOptions): Promise<LldbBackend> {
    const backend = new LldbBackend(options);
    await backend.startAdapter();
    return backend;
  }

  private async startAdapter(): Promise<void> {
    const generation = ++this.generation;
    const adapter = await LldbAdapter.start(this.options, {
      onEvent: (event) => {
        if (generation === this.generation) this.onEvent(event);
      },
      onExit: (reason) => {
        if (generation === this.generation) this.onExit(reason);
      },
    });
    this.current = adapter;
    this.state.exited = false;
    this.info.pid = adapter.pid;
    if (adapter.version) this.info.version = adapter.version;
  }

  /**
   * Runs the launched program again after it exited or was killed. lldb-dap 22 reports nothing of
   * a process once one has exited (its event thread ends there), and its `restart` request then
   * gives a process whose stops never arrive (measured); so a new lldb-dap launches the program,
   * stopped at its first instruction, and the breakpoints are set again under the same numbers.
   */
  private async relaunch(signal?: AbortSignal): Promise<void> {
    const args = this.state.launchArgs;
    if (args === undefined) {
      throw new DebuggerError('wrong_state', 'this session did not launch the program: it cannot run it again');
    }
    const old = this.current;
    this.generation++;
    await old?.stop(true);
    const swept = await killSessionsAndWait([...this.state.launched, ...(old?.identity ? [old.identity] : [])]);
    if (swept.length > 0) log('info', 'killed processes the program left behind', { pids: swept });
    for (const who of this.state.launched.splice(0)) releaseSession(who.pid);
    const state = this.state;
    state.frames.clear();
    state.modules.clear();
    state.selectedFrame = undefined;
    state.stopThread = undefined;
    state.killing = false;
    state.live = false;
    this.internal.clear();
    await this.startAdapter();
    await launchStopped(this.context, args, this.options.startTimeoutMs ?? 30_000, signal);
    await this.breakpoints.replay(signal);
  }

  subscribe(listener: (event: BackendEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: BackendEvent | Promise<BackendEvent | undefined>): void {
    this.eventChain = this.eventChain
      .then(() => event)
      .then((e) => {
        if (!e) return;
        // Kept in lldb-dap's ids: a refused resume reports it again through here.
        if (e.type === 'stopped') this.state.lastStop = e.stop;
        const out = this.numbered(e);
        for (const listener of this.listeners) {
          try {
            listener(out);
          } catch (err) {
            log('error', 'backend event listener failed', { error: String(err) });
          }
        }
      })
      .catch((err: unknown) => log('error', 'lldb: an event could not be reported', { error: String(err) }));
  }

  /** An event with its threads named by the session's numbers. */
  private numbered(e: BackendEvent): BackendEvent {
    const n = this.threadNumbers;
    switch (e.type) {
      case 'running':
        return e.threadId === 'all' ? e : { ...e, threadId: n.number(e.threadId) };
      case 'stopped': {
        const { threadId, stoppedThreads, ...rest } = e.stop;
        return {
          type: 'stopped',
          stop: {
            ...rest,
            ...(threadId !== undefined ? { threadId: n.number(threadId) } : {}),
            ...(stoppedThreads !== undefined
              ? { stoppedThreads: stoppedThreads === 'all' ? 'all' : stoppedThreads.map((t) => n.number(t)) }
              : {}),
          },
        };
      }
      case 'thread-created':
      case 'thread-exited':
        return { ...e, id: n.number(e.id) };
      default:
        return e;
    }
  }

  /** A selector from the session (its thread numbers) in lldb-dap's ids. */
  private inDapIds<S extends { threadId?: number }>(selector: S): S {
    if (selector.threadId === undefined) return selector;
    return { ...selector, threadId: this.threadNumbers.dapId(selector.threadId) };
  }

  private onEvent(event: DebugProtocol.Event): void {
    for (const w of [...this.waiters]) {
      if (w.name === event.event) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
    if (this.state.closing && event.event !== 'output') return;
    handleEvent(this.context, this.breakpoints, event);
  }

  private nextEvent(name: string, timeoutMs: number): Promise<DebugProtocol.Event> {
    if (this.state.exited) return Promise.reject(new DebuggerError('debugger_error', 'lldb-dap has exited'));
    return new Promise((resolve, reject) => {
      const waiter: EventWaiter = {
        name,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new DebuggerError('timeout', `lldb-dap sent no '${name}' event within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      this.waiters.push(waiter);
    });
  }

  private onExit(reason: string): void {
    this.state.exited = true;
    for (const w of this.waiters.splice(0)) w.reject(new DebuggerError('debugger_error', reason));
    const pending = this.state.pending;
    this.state.pending = { kind: 'none' };
    if (pending.kind === 'entry') log('debug', 'lldb-dap exited before the entry stop', { reason });
    if (!this.state.closing) this.emit({ type: 'died', reason });
  }

  // ---- the channel ------------------------------------------------------------------------

  private async request<C extends DapCommand>(
    command: C,
    args: DapRequests[C]['arguments'],
    options: LldbRequestOptions = {},
  ): Promise<NonNullable<DapRequests[C]['response']['body']>> {
    const response = await this.adapter.request(command, args, {
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return (response.body ?? {}) as NonNullable<DapRequests[C]['response']['body']>;
  }

  /** The frames of a thread at this stop, kept by level; missing ones read in one request. */
  private async frames(threadId: number, from: number, to: number, signal?: AbortSignal): Promise<LldbFrame[]> {
    let known = this.state.frames.get(threadId);
    if (!known) {
      known = [];
      this.state.frames.set(threadId, known);
    }
    const ended = (known as LldbFrame[] & { end?: number }).end;
    const last = ended === undefined ? to : Math.min(to, ended - 1);
    let missing = from;
    while (missing <= last && known[missing] !== undefined) missing++;
    if (missing <= last) {
      const body = await this.request(
        'stackTrace',
        { threadId, startFrame: missing, levels: last - missing + 1 },
        signal ? { signal } : {},
      );
      // Read again at the same stop: the list may have been cleared by a resume meanwhile.
      const list = this.state.frames.get(threadId) === known ? known : [];
      body.stackFrames.forEach((f, i) => {
        list[missing + i] = { id: f.id, frame: narrowFrame(f, missing + i, this.state.modules) };
      });
      if (body.stackFrames.length < last - missing + 1) {
        (list as LldbFrame[] & { end?: number }).end = missing + body.stackFrames.length;
      }
      noteSources(
        this.state,
        body.stackFrames.map((_, i) => list[missing + i]?.frame).filter((f): f is Frame => f !== undefined),
      );
      known = list;
    }
    const out: LldbFrame[] = [];
    for (let level = from; level <= to; level++) {
      const f = known[level];
      if (f) out.push(f);
    }
    return out;
  }

  private async frameId(selector: FrameSelector, signal?: AbortSignal): Promise<number> {
    const thread = selector.threadId ?? this.state.stopThread;
    if (thread === undefined) throw new DebuggerError('wrong_state', 'no thread is stopped');
    const level = selector.frame ?? 0;
    const [f] = await this.frames(thread, level, level, signal);
    if (!f) {
      throw new DebuggerError('invalid_argument', `thread ${this.threadNumbers.number(thread)} has no frame ${level}`, {
        fields: [selector.frame !== undefined ? 'frame' : 'thread'],
      });
    }
    return f.id;
  }

  /**
   * An LLDB command. lldb-dap runs REPL commands in LLDB's selected frame whatever frameId says,
   * and a `scopes` request selects its frame (measured): so the frame is selected first.
   * A command's error comes back as text, as LLDB prints it ("error: …").
   */
  private async repl(command: string, selector?: FrameSelector, options: LldbRequestOptions = {}): Promise<string> {
    if (/[\r\n]/.test(command)) throw new DebuggerError('invalid_argument', 'a command is one line');
    let frameId: number | undefined;
    if (selector !== undefined) {
      frameId = await this.frameId(selector, options.signal);
      if (this.state.selectedFrame !== frameId) {
        await this.request('scopes', { frameId }, options);
        this.state.selectedFrame = frameId;
      }
    }
    try {
      const body = await this.request(
        'evaluate',
        { expression: `\`${command}`, context: 'repl', ...(frameId !== undefined ? { frameId } : {}) },
        options,
      );
      return body.result;
    } catch (e) {
      if (this.state.exited || !(e instanceof DebuggerError) || e.code !== 'debugger_error') throw e;
      return /^error: /.test(e.message) ? e.message : `error: ${e.message}`;
    }
  }

  private async clearInternalBreakpoints(): Promise<void> {
    const numbers = [...this.internal];
    this.internal.clear();
    // One by one: a one-shot that fired is gone already, and LLDB refuses a list with it in.
    for (const n of numbers) await this.repl(`breakpoint delete ${n}`).catch(() => {});
  }

  // ---- targets and run control -----------------------------------------------------------

  open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport> {
    return openTarget(
      this.context,
      target,
      (t) => {
        this.terminal = t;
      },
      this.options.startTimeoutMs ?? 30_000,
      signal,
    );
  }

  start(mode: StartMode, signal?: AbortSignal): Promise<void> {
    return run.start(this.context, mode, signal);
  }

  resume(action: ResumeAction, options: ResumeOptions, signal?: AbortSignal): Promise<void> {
    return run.resume(this.context, action, this.inDapIds(options), signal);
  }

  interrupt(): Promise<void> {
    return run.interrupt(this.context);
  }

  forceInterrupt(step: number): string | undefined {
    return run.forceInterrupt(this.context, step);
  }

  kill(signal?: AbortSignal): Promise<void> {
    return run.kill(this.context, signal);
  }

  /** Never blocks (stdinQueue.ts): answers by the deadline with what the terminal took and what waits. */
  async writeStdin(data: string | Buffer, deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    if (!this.terminal) throw new DebuggerError('wrong_state', 'this target has no program terminal');
    const r = await this.terminal.writeStdin(data, waitUntil(deadline, signal));
    return { taken: r.taken, waiting: r.waiting };
  }

  async sendEof(deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    if (!this.terminal) throw new DebuggerError('wrong_state', 'this target has no program terminal');
    const r = await this.terminal.sendEofReport(waitUntil(deadline, signal));
    return { taken: r.taken, waiting: r.waiting };
  }

  // ---- breakpoints ------------------------------------------------------------------------

  insertBreakpoint(spec: BreakpointSpec, signal?: AbortSignal): Promise<SetBreakpoint> {
    if (spec.kind === 'catchpoint' && !this.capabilities.catchEvents.includes(spec.event)) {
      return Promise.reject(
        new DebuggerError(
          'backend_unavailable',
          `the lldb backend catches C++ throw and catch only, not ${spec.event} (the gdb backend catches it)`,
        ),
      );
    }
    return this.breakpoints.insert(spec, signal);
  }

  changeBreakpoints(change: BreakpointChange, signal?: AbortSignal): Promise<void> {
    return this.breakpoints.change(change, signal);
  }

  listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]> {
    return this.breakpoints.list(signal);
  }

  // ---- inspection -------------------------------------------------------------------------

  stack(
    options: { threadId?: number; from?: number; to?: number; withArgs?: boolean },
    signal?: AbortSignal,
  ): Promise<Frame[]> {
    return inspection.stack(this.context, this.inDapIds(options), signal);
  }

  stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number> {
    return inspection.stackDepth(this.context, this.threadNumbers.dapIdOf(threadId), max, signal);
  }

  async threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }> {
    const got = await inspection.threads(this.context, signal);
    const n = this.threadNumbers;
    const threads = got.threads.map((t) => ({ ...t, id: n.number(t.id) }));
    return got.currentThreadId === undefined
      ? { threads }
      : { threads, currentThreadId: n.number(got.currentThreadId) };
  }

  variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]> {
    return inspection.variables(this.context, which, this.inDapIds(selector), options, signal);
  }

  evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string> {
    return inspection.evaluate(this.context, expression, this.inDapIds(selector), signal);
  }

  assign(target: string, value: string, selector: FrameSelector, signal?: AbortSignal): Promise<string> {
    return inspection.assign(this.context, target, value, this.inDapIds(selector), signal);
  }

  registers(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]> {
    return inspection.registers(this.context, this.inDapIds(selector), signal);
  }

  stackPointer(selector: FrameSelector, signal?: AbortSignal): Promise<bigint | undefined> {
    return inspection.stackPointer(this.context, this.inDapIds(selector), signal);
  }

  symbolAt(address: bigint, signal?: AbortSignal): Promise<string | undefined> {
    return inspection.symbolAt(this.context, address, signal);
  }

  readMemory(address: string, count: number, signal?: AbortSignal): Promise<MemoryBlock[]> {
    return memory.readMemory(this.context, address, count, signal);
  }

  writeMemory(address: string, hex: string, signal?: AbortSignal): Promise<void> {
    return memory.writeMemory(this.context, address, hex, signal);
  }

  disassemble(request: DisassembleRequest, signal?: AbortSignal): Promise<Disassembly> {
    return memory.disassemble(this.context, this.inDapIds(request), signal);
  }

  sourceLines(file: string, from: number, to: number, signal?: AbortSignal): Promise<SourceLine[]> {
    return sourceLines(this.context, file, from, to, signal);
  }

  async libraries(signal?: AbortSignal): Promise<Library[]> {
    const body = await this.request('modules', {}, signal ? { signal } : {});
    return body.modules.map(narrowModule);
  }

  command(text: string, options: CommandOptions, signal?: AbortSignal): Promise<CommandOutput> {
    return runCommand(this.context, text, this.inDapIds(options), signal);
  }

  // ---- the end ----------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** The program is killed (launched, a stub's) or detached (attached); then lldb-dap stops. */
  private async shutdown(): Promise<void> {
    const state = this.state;
    state.closing = true;
    await this.current?.stop(state.target !== 'attach');
    if (state.target === 'launch') {
      // lldb-server kills the program when it goes; this is the belt, and the sweep takes what
      // the program forked (its own process group).
      if (state.pid !== undefined && state.live) {
        try {
          process.kill(state.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      const adapter = this.current?.identity;
      const swept = await killSessionsAndWait([...state.launched, ...(adapter ? [adapter] : [])]);
      if (swept.length > 0) log('info', 'killed processes the program left behind', { pids: swept });
    }
    for (const who of state.launched.splice(0)) releaseSession(who.pid);
    this.terminal?.close();
    for (const w of this.waiters.splice(0)) w.reject(new DebuggerError('no_session', 'the session is closed'));
    await this.eventChain;
  }

  /** For tests: whether the debugger's process group still has members. */
  get groupAlive(): boolean {
    return this.current?.groupAlive ?? false;
  }

  /** For tests and chaos: signal the debugger's process group directly. */
  signalDebugger(signal: NodeJS.Signals): boolean {
    return this.current?.signal(signal) ?? false;
  }
}
