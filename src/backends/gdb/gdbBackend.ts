// The GDB backend: one gdb process speaking GDB/MI (mi4, mi3 where mi4 is refused), with the
// debugged program on a pseudo-terminal of its own. This front class owns the process, the MI
// connection, the event order and the state; each job lives in a module of its own (events, run
// control, breakpoints, inspection, memory, source, targets, raw commands), as functions over the
// GdbContext this class hands them. Structured operations use MI commands (typed builders in
// protocols/mi/commands); CLI text only where MI has no command, and for raw commands.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type {
  Breakpoint,
  Frame,
  Library,
  MemoryBlock,
  Register,
  SourceLine,
  StopEvent,
  Thread,
  Variable,
} from '../../model/model.js';
import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { OutputRing } from '../../process/outputRing.js';
import { identify, killSessionsAndWait } from '../../process/processTree.js';
import { type ProgramTerminal, waitUntil } from '../../process/programTerminal.js';
import { groupAlive, signalGroup, spawnInGroup, stopGroup } from '../../process/spawnGroup.js';
import { consoleCommand, gdbExit, gdbSet, gdbVersion } from '../../protocols/mi/commands/gdb.js';
import type { MiFrameOptions, MiSender } from '../../protocols/mi/commands/miSender.js';
import { fileListSharedLibraries, targetDetach } from '../../protocols/mi/commands/target.js';
import { type MiCommandResult, MiConnection, type MiSendOptions } from '../../protocols/mi/miConnection.js';
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
  StackOptions,
  StartMode,
  StdinReport,
  TargetRuntime,
  TargetSpec,
  ValueFormat,
} from '../debuggerBackend.js';
import { glibcRuntime } from '../runtime/glibcRuntime.js';
import * as breakpoints from './gdbBreakpoints.js';
import { runCommand } from './gdbCommand.js';
import { type GdbBackendOptions, type GdbContext, type GdbState, initialState } from './gdbContext.js';
import { ErrorLoopBreaker } from './gdbErrorLoop.js';
import { handleRecord } from './gdbEvents.js';
import * as inspection from './gdbInspection.js';
import { gdbShell, openTerminal } from './gdbLaunch.js';
import * as memory from './gdbMemory.js';
import { narrowLibraries } from './gdbNarrow.js';
import { openTarget } from './gdbOpen.js';
import * as run from './gdbRunControl.js';
import { SilentStopWatch } from './gdbSilentStop.js';
import { noteSources, sourceLines } from './gdbSource.js';
import { forgetLaunched, saveCore } from './gdbTargets.js';

export type { GdbBackendOptions } from './gdbContext.js';

const STDERR_LINES = 20;
const CONSOLE_TAIL_BYTES = 64 * 1024;

export const GDB_CAPABILITIES: BackendCapabilities = {
  targets: ['launch', 'core', 'attach', 'remote'],
  reverse: 'recording',
  record: true,
  watchpoints: ['write', 'read', 'access'],
  softwareWatchpoints: true,
  watchUnmapped: true,
  hardwareBreakpoints: true,
  catchEvents: ['throw', 'catch', 'rethrow', 'syscall', 'signal', 'fork', 'vfork', 'exec', 'load', 'unload'],
  logpoints: true,
  forks: true,
  sysroot: true,
  saveCore: true,
  inferiorCalls: true,
  programTerminal: true,
  rawDialect: 'gdb',
};

export interface GdbCreateOptions {
  /** Open the program's terminal now, beside gdb's start (a local launch will need it). */
  terminal?: boolean;
}

export class GdbBackend implements DebuggerBackend {
  readonly info: BackendInfo;
  capabilities: BackendCapabilities = GDB_CAPABILITIES;
  runtime: TargetRuntime = glibcRuntime;
  /** Console text GDB printed on its own (dprintf output, warnings), not as a command's answer. */
  readonly console = new OutputRing(CONSOLE_TAIL_BYTES);
  readonly state: GdbState = initialState();
  private readonly listeners = new Set<(event: BackendEvent) => void>();
  private readonly stderrLines: string[] = [];
  private stderrPartial = '';
  /** Events leave in the order their records arrived, even when one waits for enrichment. */
  private eventChain: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private terminal: ProgramTerminal | undefined;
  /** The channel the job modules work through. */
  readonly context: GdbContext;
  /** Whether the program runs, as the events so far say (raw commands need it: gdbCommand.ts). */
  private running = false;
  /** Stops GDB makes without a *stopped record (gdbSilentStop.ts). */
  private readonly silentStops: SilentStopWatch;
  /** Runs GDB cannot carry out and never ends (gdbErrorLoop.ts). */
  private readonly errorLoops: ErrorLoopBreaker;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly connection: MiConnection,
    readonly options: GdbBackendOptions,
    protocol: string,
  ) {
    this.info = { kind: 'gdb', version: 'unknown', protocol, pid: child.pid };
    const self = this;
    const mi: MiSender = { send: (operation, args, o) => self.send(operation, args, o) };
    this.context = {
      options,
      state: this.state,
      mi,
      cli: (text, o, sel) => self.cli(text, o, sel),
      frame: (sel) => self.frame(sel),
      emit: (event) => self.emit(event),
      console: this.console,
      get terminal() {
        return self.terminal;
      },
      noteSources: (frames) => noteSources(self.state, frames),
    };
    this.silentStops = new SilentStopWatch(this.context);
    this.errorLoops = new ErrorLoopBreaker(this.context);
    this.listeners.add((e) => {
      if (e.type === 'running' || e.type === 'stopped' || e.type === 'exited') this.running = e.type === 'running';
    });
  }

  get output(): OutputRing | undefined {
    return this.terminal?.output;
  }

  /** Pids of the programs GDB runs now, by inferior ("i1" → 1234). */
  get programPids(): ReadonlyMap<string, number> {
    return this.state.inferiorPids;
  }

  stderrTail(): string[] {
    return this.stderrPartial ? [...this.stderrLines, this.stderrPartial] : [...this.stderrLines];
  }

  /** Target-specific facts read at each stop before it is reported (rr: the trace position). */
  addStopProbe(probe: (stop: StopEvent) => Promise<void>): void {
    this.state.stopProbes.push(probe);
  }

  static async launch(options: GdbBackendOptions, create: GdbCreateOptions = {}): Promise<GdbBackend> {
    try {
      return await GdbBackend.launchWith('mi4', options, create);
    } catch (e) {
      if (e instanceof DebuggerError && e.details?.['refusedInterpreter'] === true) {
        return GdbBackend.launchWith('mi3', options, create);
      }
      throw e;
    }
  }

  /**
   * A gdb for the debugger pool (pool/debuggerPool.ts): started with the settings `launch` applies
   * and the program's terminal already open, nothing loaded, so a local launch can take it as it
   * is. What is fixed at spawn (gdb's own environment, SHELL, its cwd) is the server's and the same
   * for every session; a session's cwd and environment are set on the program when it is loaded
   * (gdbLaunch.ts: `set cwd`, `set environment`), so they need nothing here.
   */
  static prepare(options: GdbBackendOptions): Promise<GdbBackend> {
    return GdbBackend.launch(options, { terminal: true });
  }

  private static async launchWith(
    protocol: 'mi4' | 'mi3',
    options: GdbBackendOptions,
    create: GdbCreateOptions,
  ): Promise<GdbBackend> {
    const gdbPath = options.gdbPath ?? 'gdb';
    // GDB's shell is our launcher (gdbLaunch.ts): it carries arguments GDB cannot split without a
    // shell and runs nothing else. Unset, GDB would fall back to /bin/sh: so never unset.
    const env = { ...options.env, SHELL: await gdbShell() };
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawnInGroup(gdbPath, [`--interpreter=${protocol}`, '-nx', '-q'], { env, cwd: options.cwd });
    } catch (e) {
      throw new DebuggerError('backend_unavailable', `could not start ${gdbPath}: ${(e as Error).message}`);
    }
    let backend: GdbBackend | undefined;
    const connection = new MiConnection(
      { write: (chunk) => child.stdin.write(chunk) },
      {
        defaultTimeoutMs: options.commandTimeoutMs ?? 30_000,
        transcript: options.transcript,
        onRecord: (record, captured) => {
          if (!backend) return;
          handleRecord(backend.context, record, captured);
          backend.silentStops.see(record, captured);
          backend.errorLoops.see(record, captured);
        },
        onUnmatched: (record) => log('debug', 'late or unmatched MI result dropped', { record }),
      },
    );
    backend = new GdbBackend(child, connection, options, protocol);
    // Should this server be SIGKILLed, gdb and what it started go too (orphanGuard.ts).
    if (child.pid !== undefined) guardSession(identify(child.pid));
    const self = backend;
    const spawnError = new Promise<never>((_, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        // No process came to be: nothing to ask to exit, nothing to wait for.
        self.state.exited = true;
        connection.fail(`could not start ${gdbPath}: ${err.message}`);
        const message =
          err.code === 'ENOENT'
            ? `gdb not found (${gdbPath}): install gdb, or point --gdb at it`
            : `could not start ${gdbPath}: ${err.message}`;
        reject(new DebuggerError('backend_unavailable', message));
      });
    });
    spawnError.catch(() => {});
    child.stdin.on('error', () => {}); // EPIPE when gdb dies: reported through 'exit'
    child.stdout.on('data', (chunk: Buffer) => connection.receive(chunk));
    child.stdout.on('end', () => connection.receiveEnd());
    child.stderr.on('data', (chunk: Buffer) => self.collectStderr(chunk));
    child.on('exit', (code, signal) => self.onExit(code, signal));

    try {
      await Promise.race([spawnError, self.configure(options, create)]);
    } catch (e) {
      const tail = self.stderrTail().join('\n');
      await self.close();
      if (/Interpreter `mi4' unrecognized/.test(tail)) {
        throw new DebuggerError('backend_unavailable', 'this gdb does not speak mi4', { refusedInterpreter: true });
      }
      if (e instanceof DebuggerError && e.code === 'backend_unavailable') throw e;
      throw new DebuggerError(
        'backend_unavailable',
        `gdb did not start: ${(e as Error).message}${tail ? ` (stderr: ${tail.slice(-400)})` : ''}`,
      );
    }
    return self;
  }

  /** Settings that make GDB predictable for a program, sent pipelined (one round trip). */
  private async configure(options: GdbBackendOptions, create: GdbCreateOptions): Promise<void> {
    const timeoutMs = options.startTimeoutMs ?? 10_000;
    const raw = this.connection;
    const set = (setting: string): Promise<MiCommandResult> => gdbSet(raw, setting, { timeoutMs });
    const terminal = create.terminal ? openTerminal(this.context) : undefined;
    const required: Promise<unknown>[] = [
      // mi-async: -exec-interrupt is read while the program runs (without it, only SIGINT works).
      set('mi-async on'),
      set('pagination off'),
      set('confirm off'),
      set('width 0'),
      set('height 0'),
      set('auto-load off'),
      set('breakpoint pending on'),
      set('startup-with-shell off'),
      set(`print elements ${options.printElements ?? 200}`),
      set(`print repeats ${options.printRepeats ?? 10}`),
      set(`may-call-functions ${options.allowInferiorCalls ? 'on' : 'off'}`),
    ];
    if (terminal) required.push(terminal.then((t) => (this.terminal = t)));
    // Settings older or differently built GDBs may not have: failure is fine.
    const optional = [
      set('debuginfod enabled off'),
      set('print max-depth 8'),
      // The last resort of an interrupt is SIGSTOP (forceInterrupt): report it, never deliver it,
      // or every continue would stop again at once.
      consoleCommand(raw, { command: 'handle SIGSTOP stop print nopass' }, { timeoutMs, captureConsole: true }),
    ];
    const version = gdbVersion(raw, { timeoutMs });
    // Settle every pipelined command before judging: if gdb dies early, all of them fail at once,
    // and none may be left rejecting with nobody listening.
    const [requiredResults, , versionResult] = await Promise.all([
      Promise.allSettled(required),
      Promise.allSettled(optional),
      Promise.allSettled([version]),
    ]);
    const failed = requiredResults.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const v = versionResult[0];
    if (v?.status === 'rejected') throw v.reason;
    const first = v?.value.console.split('\n')[0]?.trim();
    if (first) this.info.version = first;
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
        for (const listener of this.listeners) {
          try {
            listener(e);
          } catch (err) {
            log('error', 'backend event listener failed', { error: String(err) });
          }
        }
      });
  }

  private collectStderr(chunk: Buffer): void {
    const text = this.stderrPartial + chunk.toString('utf8');
    const lines = text.split('\n');
    this.stderrPartial = (lines.pop() ?? '').slice(-500);
    for (const line of lines) {
      this.stderrLines.push(line.slice(0, 500));
      if (this.stderrLines.length > STDERR_LINES) this.stderrLines.shift();
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.state.exited = true;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const tail = this.stderrTail().filter((l) => l.trim() !== '');
    const reason = `gdb ${how}${tail.length > 0 ? `; its last words: ${tail.slice(-3).join(' | ')}` : ''}`;
    this.connection.fail(reason);
    this.emit({ type: 'died', reason });
  }

  // ---- the channel ------------------------------------------------------------------------

  private send(
    operation: string,
    args: readonly string[] | { raw: string } = [],
    options: MiSendOptions = {},
  ): Promise<MiCommandResult> {
    const sent = this.connection.send(operation, args, options);
    sent.catch((e: unknown) => {
      // A command past its deadline is still GDB's current work (a function call into the program
      // that never returns, a huge listing); every later command would queue behind it. SIGINT
      // makes GDB abandon it, as ^C does at its prompt.
      if (!this.state.exited && e instanceof DebuggerError && e.code === 'timeout' && /no answer/.test(e.message)) {
        log('warn', 'gdb is stuck in a command past its deadline; interrupting it', { operation });
        if (this.child.pid !== undefined) signalGroup(this.child.pid, 'SIGINT');
      }
    });
    return sent;
  }

  /** MI's --thread/--frame options. GDB refuses --frame without --thread, so a frame alone
   * means that frame of the thread the program last stopped in. */
  private frame(sel: FrameSelector): MiFrameOptions {
    const thread = sel.threadId ?? (sel.frame !== undefined ? this.state.stopThread : undefined);
    return { thread, frame: sel.frame };
  }

  private cli(text: string, options: MiSendOptions = {}, sel: FrameSelector = {}): Promise<MiCommandResult> {
    return consoleCommand(this.context.mi, { ...this.frame(sel), command: text }, options);
  }

  /** A CLI command for the backends built on this one (rr's own commands, say). */
  cliText(text: string, options: MiSendOptions = {}): Promise<MiCommandResult> {
    return this.cli(text, options);
  }

  // ---- targets and run control -----------------------------------------------------------

  async open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport> {
    const report = await openTarget(this.context, target, signal);
    // Only a local launch gets the program terminal: a core has no process, an attached one
    // keeps its own terminal, and a remote program's is the stub's.
    if (target.kind === 'launch' && target.remote === undefined && !this.terminal) {
      this.terminal = await openTerminal(this.context, signal);
    }
    return report;
  }

  start(mode: StartMode, signal?: AbortSignal): Promise<void> {
    return run.start(this.context, mode, signal);
  }

  resume(action: ResumeAction, options: ResumeOptions, signal?: AbortSignal): Promise<void> {
    return run.resume(this.context, action, options, signal);
  }

  interrupt(): Promise<void> {
    return run.interrupt(this.context);
  }

  forceInterrupt(step: number): string | undefined {
    return run.forceInterrupt(this.context, this.child.pid, step);
  }

  kill(signal?: AbortSignal): Promise<void> {
    return run.kill(this.context, signal);
  }

  startRecording(signal?: AbortSignal): Promise<void> {
    return run.startRecording(this.context, signal);
  }

  stopRecording(signal?: AbortSignal): Promise<void> {
    return run.stopRecording(this.context, signal);
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
    return breakpoints.insertBreakpoint(this.context, spec, signal);
  }

  changeBreakpoints(change: BreakpointChange, signal?: AbortSignal): Promise<void> {
    return breakpoints.changeBreakpoints(this.context, change, signal);
  }

  listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]> {
    return breakpoints.listBreakpoints(this.context, signal);
  }

  // ---- inspection -------------------------------------------------------------------------

  stack(options: StackOptions, signal?: AbortSignal): Promise<Frame[]> {
    return inspection.stack(this.context, options, signal);
  }

  stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number> {
    return inspection.stackDepth(this.context, threadId, max, signal);
  }

  threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }> {
    return inspection.threads(this.context, signal);
  }

  variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]> {
    return inspection.variables(this.context, which, selector, options, signal);
  }

  evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string> {
    return inspection.evaluate(this.context, expression, selector, signal);
  }

  assign(target: string, value: string, selector: FrameSelector, signal?: AbortSignal): Promise<string> {
    return inspection.assign(this.context, target, value, selector, signal);
  }

  registers(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]> {
    return inspection.registers(this.context, selector, signal);
  }

  stackPointer(selector: FrameSelector, signal?: AbortSignal): Promise<bigint | undefined> {
    return inspection.stackPointer(this.context, selector, signal);
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
    return memory.disassemble(this.context, request, signal);
  }

  sourceLines(file: string, from: number, to: number, signal?: AbortSignal): Promise<SourceLine[]> {
    return sourceLines(this.context, file, from, to, signal);
  }

  async libraries(signal?: AbortSignal): Promise<Library[]> {
    return narrowLibraries((await fileListSharedLibraries(this.context.mi, { signal })).results);
  }

  command(text: string, options: CommandOptions, signal?: AbortSignal): Promise<CommandOutput> {
    return runCommand(this.context, text, options, signal, this.running);
  }

  saveCore(path: string, signal?: AbortSignal): Promise<number> {
    return saveCore(this.context, path, signal);
  }

  // ---- the end ----------------------------------------------------------------------------

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const state = this.state;
    const pids = [...state.inferiorPids.values()];
    if (!state.exited) {
      if (state.attached) await targetDetach(this.connection, { timeoutMs: 2000 }).catch(() => {});
      // -gdb-exit kills what GDB launched; the answer may never come if gdb is wedged.
      await gdbExit(this.connection, { timeoutMs: 1000 }).catch(() => {});
    }
    await stopGroup(this.child, { termAfterMs: 1000, killAfterMs: 1000 });
    if (!state.attached && state.pidsAreLocal) {
      // GDB kills its program on exit (and PTRACE_O_EXITKILL when it dies); this is the belt.
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      // Children GDB let go at fork are not traced: neither its kill nor its death reaches them.
      const swept = await killSessionsAndWait(state.launched);
      if (swept.length > 0) log('info', 'killed processes the program left behind', { pids: swept });
      this.options.onSweep?.(swept.length);
    }
    forgetLaunched(this.context);
    if (this.child.pid !== undefined) releaseSession(this.child.pid);
    this.terminal?.close();
    this.connection.fail('the session is closed');
    await this.eventChain;
  }

  /** For tests: whether the debugger's process group still has members. */
  get groupAlive(): boolean {
    return this.child.pid !== undefined && groupAlive(this.child.pid);
  }

  /** For tests and chaos: signal the debugger's process group directly. */
  signalDebugger(signal: NodeJS.Signals): boolean {
    return this.child.pid !== undefined && signalGroup(this.child.pid, signal);
  }
}
