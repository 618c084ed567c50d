// The GDB backend: one gdb process speaking GDB/MI (mi4, mi3 where mi4 is refused), with the
// debugged program on a pseudo-terminal of its own. Structured operations use MI commands; CLI
// text is used only where MI has no command (advance, kill, starti, list, some catchpoints) and
// for the raw `command` escape hatch.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import type {
  Breakpoint,
  Frame,
  Instruction,
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
import { identify, killSessionsAndWait, type ProcessIdentity } from '../../process/processTree.js';
import { ProgramTerminal } from '../../process/programTerminal.js';
import { groupAlive, signalGroup, spawnInGroup, stopGroup } from '../../process/spawnGroup.js';
import { assertSingleLine } from '../../protocols/mi/miCommand.js';
import {
  type MiCommandResult,
  MiConnection,
  type MiSendOptions,
  type TranscriptWriter,
} from '../../protocols/mi/miConnection.js';
import {
  isExitStop,
  miInt,
  miList,
  miString,
  miTuple,
  narrowBreakpoint,
  narrowBreakpointTable,
  narrowDisassembly,
  narrowExit,
  narrowLibrary,
  narrowMemory,
  narrowStack,
  narrowStackArgs,
  narrowStop,
  narrowThreads,
  narrowVariables,
} from '../../protocols/mi/miNarrow.js';
import type { MiRecord } from '../../protocols/mi/miRecords.js';
import { elfHasDebugInfo, readElf } from '../../util/elf.js';
import { DebuggerError } from '../../util/errors.js';
import { readFileLines } from '../../util/fileLines.js';
import { log } from '../../util/log.js';
import { isUnder } from '../../util/pathUnder.js';
import type {
  BackendEvent,
  BackendInfo,
  BreakpointChange,
  BreakpointSpec,
  CommandOutput,
  DebuggerBackend,
  DisassembleRequest,
  FrameSelector,
  LaunchSpec,
  LoadReport,
  ResumeAction,
  ResumeOptions,
  StartMode,
  ValueFormat,
} from '../debuggerBackend.js';
import { planArguments } from './gdbArguments.js';
import { isReplaying, readRecordNotes } from './gdbRecord.js';

export interface GdbBackendOptions {
  /** The gdb executable; default "gdb" on PATH. */
  gdbPath?: string;
  /** The debugger's environment (already filtered by the caller). */
  env: Record<string, string>;
  cwd?: string;
  /** Default deadline of one MI command. */
  commandTimeoutMs?: number;
  /** Deadline for gdb to start and answer its first command. */
  startTimeoutMs?: number;
  transcript?: TranscriptWriter;
  /** Bytes of program output kept for reading by cursor. */
  outputCapacity?: number;
  /** `print elements` / `print repeats`: how much of a long array or string GDB prints. */
  printElements?: number;
  printRepeats?: number;
  /** Inferior function calls (`print f(1)`): off unless asked for. */
  allowInferiorCalls?: boolean;
  /** Resolved directories whose files may be quoted as source (undefined: any file GDB names). */
  sourceRoots?: readonly string[];
  /** Skip the program terminal (targets that are not launched here: cores, remotes). */
  noTerminal?: boolean;
}

/** The backend's inner channel for target set-up (gdbTargets.ts): cores, attach, remote links. */
export interface GdbPort {
  mi(operation: string, args?: readonly string[] | { raw: string }, options?: MiSendOptions): Promise<MiCommandResult>;
  cli(text: string, options?: MiSendOptions): Promise<MiCommandResult>;
  emit(event: BackendEvent): void;
  /** Calls `listener` with every console and log line GDB prints; returns the unsubscribe. */
  watchText(listener: (text: string) => void): () => void;
  /** The target's pids belong to a core or another machine: closing never signals them here. */
  foreignPids(): void;
}

/**
 * The general registers lead GDB's list, before the first floating-point or vector one:
 * x86-64 rax…gs (24), AArch64 x0…cpsr (34), ARM r0…pc.
 */
export function generalRegisterCount(names: readonly string[]): number {
  const i = names.findIndex((n) => /^(st|v|xmm|ymm|zmm|q|d|f)\d+$|^(fpsr|fpcr|fctrl|mxcsr|fps)$/.test(n));
  return Math.min(i < 0 ? names.length : i, 48);
}

const FAULT_SIGNALS = new Set(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL']);
/** Programs remembered for the sweep at close (a session restarted more often forgets the oldest). */
const MAX_SWEPT = 64;
const STDERR_LINES = 20;
const CONSOLE_TAIL_BYTES = 64 * 1024;
/** Readability of memory changes only at page boundaries (4 KiB, or a multiple of it). */
const MEMORY_PAGE = 4096n;

function isUnreadable(e: unknown): boolean {
  return e instanceof DebuggerError && /Unable to read memory|Cannot access memory/.test(e.message);
}

export class GdbBackend implements DebuggerBackend {
  readonly info: BackendInfo;
  private readonly listeners = new Set<(event: BackendEvent) => void>();
  private readonly stderrLines: string[] = [];
  private stderrPartial = '';
  /** Events leave in the order their records arrived, even when one waits for enrichment. */
  private eventChain: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private exited = false;
  private readonly inferiorPids = new Map<string, number>();
  /** Whether GDB answered the latest -exec-interrupt (it reads its input: it is not stuck). */
  private interruptAnswered = false;
  /** Every program this debugger started, for the sweep of what they forked (processTree.ts). */
  private readonly launched: ProcessIdentity[] = [];
  private registerNames: string[] | undefined;
  /** Console text GDB printed on its own (dprintf output, warnings), not as a command's answer. */
  readonly console = new OutputRing(CONSOLE_TAIL_BYTES);
  private attached = false;
  /** False for cores and remote targets: their pids are not processes of this machine to signal. */
  private pidsAreLocal = true;
  /** Listeners for every console and log line, captured or not (gdbTargets.ts watches the link). */
  private readonly textWatchers = new Set<(text: string) => void>();
  /** The thread of the latest stop: GDB selects it, and frame-only selectors refer to it. */
  private stopThread = 1;
  /** Where the console ring stood when the program last resumed: what GDB said since is about this run. */
  private consoleAtResume = 0;
  /** Source files GDB named in frames (`fullname`): the ones sourceLines may read from disk. */
  private readonly sourceFiles = new Set<string>();
  /** Whether GDB's process record is on (=record-started … =record-stopped). */
  private recording = false;
  /** Whether the latest resume ran backwards: it decides which end of history a stop is at. */
  private reversing = false;
  /** Where quoted source may come from (GdbBackendOptions.sourceRoots). */
  private sourceRoots: readonly string[] | undefined;
  /** Target-specific facts read at each stop before it is reported (rr: the trace position). */
  private readonly stopProbes: ((stop: StopEvent) => Promise<void>)[] = [];

  addStopProbe(probe: (stop: StopEvent) => Promise<void>): void {
    this.stopProbes.push(probe);
  }

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly connection: MiConnection,
    private readonly terminal: ProgramTerminal | undefined,
    protocol: string,
  ) {
    this.info = { kind: 'gdb', version: 'unknown', protocol, pid: child.pid };
  }

  get output(): OutputRing | undefined {
    return this.terminal?.output;
  }

  /** Pids of the programs GDB runs now, by inferior ("i1" → 1234). */
  get programPids(): ReadonlyMap<string, number> {
    return this.inferiorPids;
  }

  stderrTail(): string[] {
    return this.stderrPartial ? [...this.stderrLines, this.stderrPartial] : [...this.stderrLines];
  }

  static async launch(options: GdbBackendOptions): Promise<GdbBackend> {
    try {
      return await GdbBackend.launchWith('mi4', options);
    } catch (e) {
      if (e instanceof DebuggerError && e.details?.['refusedInterpreter'] === true) {
        return GdbBackend.launchWith('mi3', options);
      }
      throw e;
    }
  }

  private static async launchWith(protocol: 'mi4' | 'mi3', options: GdbBackendOptions): Promise<GdbBackend> {
    const gdbPath = options.gdbPath ?? 'gdb';
    const terminal = options.noTerminal ? undefined : await ProgramTerminal.open({ capacity: options.outputCapacity });
    // SHELL is what GDB runs when an argument needs a shell (see gdbArguments.ts).
    const env = { ...options.env, SHELL: '/bin/sh' };
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawnInGroup(gdbPath, [`--interpreter=${protocol}`, '-nx', '-q'], { env, cwd: options.cwd });
    } catch (e) {
      terminal?.close();
      throw new DebuggerError('backend_unavailable', `could not start ${gdbPath}: ${(e as Error).message}`);
    }
    let backend: GdbBackend | undefined;
    const connection = new MiConnection(
      {
        write: (chunk) => child.stdin.write(chunk),
      },
      {
        defaultTimeoutMs: options.commandTimeoutMs ?? 30_000,
        transcript: options.transcript,
        onRecord: (record, captured) => backend?.handleRecord(record, captured),
        onUnmatched: (record) => log('debug', 'late or unmatched MI result dropped', { record }),
      },
    );
    backend = new GdbBackend(child, connection, terminal, protocol);
    backend.sourceRoots = options.sourceRoots;
    // Should this server be SIGKILLed, gdb and what it started go too (orphanGuard.ts).
    if (child.pid !== undefined) guardSession(identify(child.pid));
    const self = backend;
    const spawnError = new Promise<never>((_, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        // No process came to be: nothing to ask to exit, nothing to wait for.
        self.exited = true;
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
      await Promise.race([spawnError, self.configure(options)]);
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
  private async configure(options: GdbBackendOptions): Promise<void> {
    const timeoutMs = options.startTimeoutMs ?? 10_000;
    const send = (op: string, raw?: string): Promise<MiCommandResult> =>
      this.connection.send(op, raw === undefined ? [] : { raw }, { timeoutMs });
    const required = [
      // mi-async: -exec-interrupt is read while the program runs (without it, only SIGINT works).
      send('gdb-set', 'mi-async on'),
      send('gdb-set', 'pagination off'),
      send('gdb-set', 'confirm off'),
      send('gdb-set', 'width 0'),
      send('gdb-set', 'height 0'),
      send('gdb-set', 'auto-load off'),
      send('gdb-set', 'breakpoint pending on'),
      send('gdb-set', 'startup-with-shell off'),
      send('gdb-set', `print elements ${options.printElements ?? 200}`),
      send('gdb-set', `print repeats ${options.printRepeats ?? 10}`),
      send('gdb-set', `may-call-functions ${options.allowInferiorCalls ? 'on' : 'off'}`),
    ];
    if (this.terminal) required.push(this.connection.send('inferior-tty-set', [this.terminal.path], { timeoutMs }));
    // Settings older or differently built GDBs may not have: failure is fine.
    const optional = [
      send('gdb-set', 'debuginfod enabled off'),
      send('gdb-set', 'print max-depth 8'),
      // The last resort of an interrupt is SIGSTOP (forceInterrupt): report it, never deliver it,
      // or every continue would stop again at once.
      this.connection.send('interpreter-exec', ['console', 'handle SIGSTOP stop print nopass'], {
        timeoutMs,
        captureConsole: true,
      }),
    ];
    const version = this.connection.send('gdb-version', [], { timeoutMs, captureConsole: true });
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

  private handleRecord(record: MiRecord, captured: boolean): void {
    switch (record.kind) {
      case 'exec': {
        if (record.class === 'running') {
          this.consoleAtResume = this.console.end;
          const id = miString(record.results, 'thread-id');
          this.emit({ type: 'running', threadId: id === undefined || id === 'all' ? 'all' : Number(id) });
        } else if (record.class === 'stopped') {
          if (isExitStop(record.results)) {
            this.emit(this.afterOutput({ type: 'exited', exit: narrowExit(record.results) }));
          } else {
            this.emit(this.afterOutput(this.enrichStop(record.results)));
          }
        }
        return;
      }
      case 'notify':
        this.handleNotify(record.class, record.results);
        return;
      case 'console':
      case 'log':
        // A command's own answer is returned to its caller; the ring keeps what GDB said unasked.
        if (!captured) this.console.write(Buffer.from(record.text));
        for (const watch of this.textWatchers) watch(record.text);
        return;
      case 'raw':
        if (record.text.trim() !== '')
          log('debug', 'unparsed line from gdb', { text: record.text.slice(0, 500), error: record.error });
        return;
      default:
        return;
    }
  }

  private handleNotify(kind: string, r: import('../../protocols/mi/miRecords.js').MiTuple): void {
    switch (kind) {
      case 'thread-group-started': {
        const group = miString(r, 'id') ?? 'i1';
        const pid = miInt(r, 'pid');
        if (pid !== undefined) {
          this.inferiorPids.set(group, pid);
          // An attached process or one on another machine is not ours to sweep.
          if (!this.attached && this.pidsAreLocal) {
            const who = identify(pid);
            this.launched.push(who);
            guardSession(who);
            if (this.launched.length > MAX_SWEPT) releaseSession(this.launched.shift()?.pid ?? 0);
          }
          this.emit({ type: 'inferior-started', group, pid });
        }
        return;
      }
      case 'thread-group-exited': {
        const group = miString(r, 'id') ?? 'i1';
        this.inferiorPids.delete(group);
        const raw = miString(r, 'exit-code');
        this.emit({ type: 'inferior-exited', group, ...(raw === undefined ? {} : { code: Number.parseInt(raw, 8) }) });
        return;
      }
      case 'thread-created':
      case 'thread-exited': {
        const id = miInt(r, 'id');
        if (id !== undefined) this.emit({ type: kind, id, group: miString(r, 'group-id') ?? 'i1' });
        return;
      }
      case 'library-loaded':
        this.emit({ type: 'library-loaded', library: narrowLibrary(r) });
        return;
      case 'library-unloaded':
        this.emit({ type: 'library-unloaded', path: miString(r, 'target-name') ?? miString(r, 'id') ?? '?' });
        return;
      case 'breakpoint-created':
      case 'breakpoint-modified': {
        const bkpt = miTuple(r, 'bkpt');
        if (bkpt) this.emit({ type: 'breakpoint-changed', breakpoint: narrowBreakpoint(bkpt) });
        return;
      }
      case 'breakpoint-deleted': {
        const id = miString(r, 'id');
        if (id !== undefined) this.emit({ type: 'breakpoint-deleted', number: id });
        return;
      }
      case 'record-started':
      case 'record-stopped':
        this.recording = kind === 'record-started';
        this.emit({ type: kind });
        return;
      default:
        return;
    }
  }

  /** A stop or exit is reported once the program's output up to it is in the ring. */
  private async afterOutput(event: BackendEvent | Promise<BackendEvent>): Promise<BackendEvent> {
    const [e] = await Promise.all([event, this.terminal?.sync()]);
    return e;
  }

  /** A fault's address lives in $_siginfo, not in the stop record: read it before reporting. */
  private async enrichStop(results: import('../../protocols/mi/miRecords.js').MiTuple): Promise<BackendEvent> {
    const stop = narrowStop(results);
    if (stop.frame) this.noteSources([stop.frame]);
    if (stop.threadId !== undefined) this.stopThread = stop.threadId;
    if (stop.reason === 'unknown' && stop.breakpoint === undefined) this.signalCatchpoint(stop);
    if (this.recording || stop.reason === 'no-history') await this.readRecording(stop);
    for (const probe of this.stopProbes) {
      try {
        await probe(stop);
      } catch {
        // A probe adds to the evidence; its failure never hides the stop.
      }
    }
    if (stop.signal && FAULT_SIGNALS.has(stop.signal.name)) {
      try {
        const args = stop.threadId === undefined ? [] : ['--thread', String(stop.threadId)];
        // The whole $_siginfo, not `$_siginfo._sifields._sigfault.si_addr`: GDB's C parser looks
        // every name up as a symbol, and at a first stop a failed lookup waits for the DWARF index
        // of every library (measured: 45-70 ms with libc's debug info; 0.5 ms for the whole value).
        // The field path stays as the fallback for print settings that hide the field.
        const whole = await this.connection.send('data-evaluate-expression', [...args, '$_siginfo'], {
          timeoutMs: 2000,
        });
        let m = /_sigfault = \{\s*si_addr = (0x[0-9a-fA-F]+)/.exec(miString(whole.results, 'value') ?? '');
        if (!m) {
          const r = await this.connection.send(
            'data-evaluate-expression',
            [...args, '$_siginfo._sifields._sigfault.si_addr'],
            { timeoutMs: 2000 },
          );
          m = /(0x[0-9a-fA-F]+)/.exec(miString(r.results, 'value') ?? '');
        }
        if (m?.[1]) stop.faultAddress = m[1];
      } catch {
        // No siginfo (a core without it, a remote that does not send it): leave it out.
      }
    }
    return { type: 'stopped', stop };
  }

  /**
   * GDB 13 reports the stop of a signal catchpoint with neither reason nor bkptno; only the
   * console line before it says what happened: `Catchpoint 1 (signal SIGABRT), raise (…)`.
   */
  private signalCatchpoint(stop: StopEvent): void {
    const said = this.console.read(this.consoleAtResume, 64 * 1024).data.toString('utf8');
    const m = [...said.matchAll(/^Catchpoint (\d+) \(signal (SIG\w+)\)/gm)].pop();
    if (!m?.[1] || !m[2]) return;
    stop.reason = 'catchpoint';
    stop.breakpoint = m[1];
    stop.signal = { name: m[2], meaning: 'caught before delivery' };
  }

  /** What recording said about this stop: an end of history, a limit it hit, replay or live. */
  private async readRecording(stop: StopEvent): Promise<void> {
    const notes = readRecordNotes(this.console.read(this.consoleAtResume, 64 * 1024).data.toString('utf8'));
    // GDB says "No more reverse-execution history" at both ends; the direction of travel tells which.
    if (stop.reason === 'no-history' || notes.history) stop.history = this.reversing ? 'start' : 'end';
    // Going backwards GDB names the values in the direction of travel; the program wrote them the
    // other way round, which is what the agent reasons about.
    if (this.reversing && stop.watch && (stop.watch.old !== undefined || stop.watch.new !== undefined)) {
      const { old, new: next } = stop.watch;
      stop.watch = { ...stop.watch, old: next, new: old };
    }
    if (notes.note) stop.recordNote = notes.note;
    try {
      const info = await this.cli('info record', { timeoutMs: 2000, captureConsole: true });
      if (/No record target is currently active|No recording is currently active/i.test(info.console)) {
        if (this.recording) {
          this.recording = false;
          this.emit({ type: 'record-stopped' });
        }
      } else if (isReplaying(info.console)) {
        stop.replaying = true;
      }
    } catch {
      // Replay state unknown: say nothing rather than guess.
    }
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
    this.exited = true;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const tail = this.stderrTail().filter((l) => l.trim() !== '');
    const reason = `gdb ${how}${tail.length > 0 ? `; its last words: ${tail.slice(-3).join(' | ')}` : ''}`;
    this.connection.fail(reason);
    this.emit({ type: 'died', reason });
  }

  // ---- commands -------------------------------------------------------------------------

  private mi(operation: string, args: readonly string[] | { raw: string } = [], options: MiSendOptions = {}) {
    const sent = this.connection.send(operation, args, options);
    sent.catch((e: unknown) => {
      // A command past its deadline is still GDB's current work (a function call into the program
      // that never returns, a huge listing); every later command would queue behind it. SIGINT
      // makes GDB abandon it, as ^C does at its prompt.
      if (!this.exited && e instanceof DebuggerError && e.code === 'timeout' && /no answer/.test(e.message)) {
        log('warn', 'gdb is stuck in a command past its deadline; interrupting it', { operation });
        if (this.child.pid !== undefined) signalGroup(this.child.pid, 'SIGINT');
      }
    });
    return sent;
  }

  /** MI's --thread/--frame options. GDB refuses --frame without --thread, so a frame alone
   * means that frame of the thread the program last stopped in. */
  private selector(sel: FrameSelector): string[] {
    const out: string[] = [];
    const thread = sel.threadId ?? (sel.frame !== undefined ? this.stopThread : undefined);
    if (thread !== undefined) out.push('--thread', String(thread));
    if (sel.frame !== undefined) out.push('--frame', String(sel.frame));
    return out;
  }

  private cli(text: string, options: MiSendOptions = {}, sel: FrameSelector = {}): Promise<MiCommandResult> {
    return this.mi('interpreter-exec', [...this.selector(sel), 'console', text], options);
  }

  async load(spec: LaunchSpec, signal?: AbortSignal): Promise<LoadReport> {
    const warnings: string[] = [];
    const loaded = await this.mi('file-exec-and-symbols', [spec.program], { signal, captureConsole: true });
    // MI mode prints nothing about missing symbols; the ELF sections tell.
    const elf = await readElf(spec.program).catch(() => undefined);
    const hasDebugInfo =
      elf === undefined ? !/No debugging symbols found/.test(`${loaded.console}${loaded.log}`) : elfHasDebugInfo(elf);
    if (!hasDebugInfo) {
      warnings.push(`${spec.program} has no debug info: no source lines, locals or argument names (rebuild with -g)`);
    }
    await this.setArguments(spec.args, signal);
    if (spec.cwd !== undefined) {
      assertSingleLine(spec.cwd, 'cwd');
      await this.mi('gdb-set', { raw: `cwd ${spec.cwd}` }, { signal });
    }
    // SHELL was set for GDB's own use; the program should not inherit it.
    await this.cli('unset environment SHELL', { signal });
    for (const [name, value] of Object.entries(spec.env ?? {})) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new DebuggerError('invalid_argument', `environment variable name ${JSON.stringify(name)} is not valid`);
      }
      assertSingleLine(value, `env.${name}`);
      await this.mi('gdb-set', { raw: `environment ${name}=${value}` }, { signal });
    }
    return { warnings, hasDebugInfo };
  }

  private async setArguments(args: readonly string[], signal?: AbortSignal): Promise<void> {
    args.forEach((a, i) => {
      assertSingleLine(a, `args[${i}]`);
    });
    const plan = planArguments(args);
    await this.mi('gdb-set', { raw: `startup-with-shell ${plan.shell ? 'on' : 'off'}` }, { signal });
    await this.mi('exec-arguments', { raw: plan.text }, { signal });
  }

  async start(mode: StartMode, signal?: AbortSignal): Promise<void> {
    this.reversing = false;
    if (mode === 'entry') {
      await this.cli('starti', { signal });
    } else if (mode === 'main') {
      await this.mi('exec-run', ['--start'], { signal });
    } else {
      await this.mi('exec-run', [], { signal });
    }
  }

  async resume(action: ResumeAction, options: ResumeOptions, signal?: AbortSignal): Promise<void> {
    this.reversing = options.reverse === true;
    const args = this.selector({ threadId: options.threadId });
    if (options.reverse) args.push('--reverse');
    const count = options.count !== undefined && options.count > 1 ? [String(options.count)] : [];
    const send = { signal };
    switch (action) {
      case 'continue':
        await this.mi('exec-continue', args, send);
        return;
      case 'next':
        await this.mi('exec-next', [...args, ...count], send);
        return;
      case 'step':
        await this.mi('exec-step', [...args, ...count], send);
        return;
      case 'stepi':
        await this.mi('exec-step-instruction', [...args, ...count], send);
        return;
      case 'nexti':
        await this.mi('exec-next-instruction', [...args, ...count], send);
        return;
      case 'finish':
        await this.mi('exec-finish', args, send);
        return;
      case 'until':
        await this.mi('exec-until', [...args, ...(options.location ? [options.location] : [])], send);
        return;
      case 'advance':
        if (!options.location) throw new DebuggerError('invalid_argument', 'advance needs a location');
        assertSingleLine(options.location, 'location');
        await this.cli(`advance ${options.location}`, send, { threadId: options.threadId });
        return;
      case 'jump':
        if (!options.location) throw new DebuggerError('invalid_argument', 'jump needs a location');
        await this.mi('exec-jump', [...args, options.location], send);
        return;
    }
  }

  async interrupt(): Promise<void> {
    this.interruptAnswered = false;
    await this.mi('exec-interrupt', [], { timeoutMs: 5000 });
    this.interruptAnswered = true;
  }

  /**
   * -exec-interrupt sends SIGINT to the program, which never arrives when the program blocks it
   * (sigprocmask), and is not read when GDB itself is stuck in a command. Step 1: SIGINT to GDB,
   * which abandons what it is doing and stops the program. Step 2: SIGSTOP to the program, which
   * nothing can block or ignore; GDB reports it as a stop and, with `handle SIGSTOP nopass`, does
   * not deliver it on the next resume. When GDB answered the -exec-interrupt, it is not stuck:
   * step 1 is then the SIGSTOP.
   */
  forceInterrupt(step: number): string | undefined {
    const signalled = (pid: number | undefined, signal: NodeJS.Signals): boolean => {
      if (pid === undefined) return false;
      try {
        process.kill(pid, signal);
        return true;
      } catch {
        return false;
      }
    };
    const measures = [
      ...(this.interruptAnswered ? [] : [() => (signalled(this.child.pid, 'SIGINT') ? 'sent SIGINT to gdb' : '')]),
      () => {
        const pids = [...this.inferiorPids.values()].filter((pid) => signalled(pid, 'SIGSTOP'));
        return pids.length > 0 ? `sent SIGSTOP to pid ${pids.join(', ')}` : '';
      },
    ];
    const measure = measures[step - 1];
    return measure ? measure() || undefined : undefined;
  }

  async startRecording(signal?: AbortSignal): Promise<void> {
    // Hardware watchpoints did not fire in reverse here; software ones stop at the writing line.
    await this.mi('gdb-set', { raw: 'can-use-hw-watchpoints 0' }, { signal });
    await this.cli('record full', { signal });
  }

  async stopRecording(signal?: AbortSignal): Promise<void> {
    await this.cli('record stop', { signal });
    await this.mi('gdb-set', { raw: 'can-use-hw-watchpoints 1' }, { signal });
  }

  async kill(signal?: AbortSignal): Promise<void> {
    await this.cli('kill', { signal });
  }

  writeStdin(data: string | Buffer): Promise<void> {
    if (!this.terminal) return Promise.reject(new DebuggerError('wrong_state', 'this target has no program terminal'));
    return this.terminal.write(data);
  }

  sendEof(): Promise<void> {
    if (!this.terminal) return Promise.reject(new DebuggerError('wrong_state', 'this target has no program terminal'));
    return this.terminal.sendEof();
  }

  // ---- breakpoints ----------------------------------------------------------------------

  async insertBreakpoint(spec: BreakpointSpec, signal?: AbortSignal): Promise<Breakpoint> {
    switch (spec.kind) {
      case 'breakpoint': {
        const args: string[] = ['-f'];
        if (spec.temporary) args.push('-t');
        if (spec.hardware) args.push('-h');
        if (spec.disabled) args.push('-d');
        if (spec.condition) args.push('-c', spec.condition);
        if (spec.ignoreCount) args.push('-i', String(spec.ignoreCount));
        if (spec.threadId !== undefined) args.push('-p', String(spec.threadId));
        // `--` ends the options: a location may itself start with '-' (explicit locations).
        args.push('--', spec.location);
        const r = await this.mi('break-insert', args, { signal });
        return this.firstBreakpoint(r);
      }
      case 'watchpoint': {
        let bp: Breakpoint;
        if (spec.location) {
          // MI's -break-watch has no -location; the CLI form does.
          assertSingleLine(spec.expression, 'expression');
          const verb = spec.access === 'read' ? 'rwatch' : spec.access === 'access' ? 'awatch' : 'watch';
          bp = await this.viaCli(`${verb} -location ${spec.expression}`, signal);
        } else {
          const flag = spec.access === 'read' ? ['-r'] : spec.access === 'access' ? ['-a'] : [];
          const r = await this.mi('break-watch', [...flag, spec.expression], { signal });
          const wpt = miTuple(r.results, 'wpt') ?? miTuple(r.results, 'hw-rwpt') ?? miTuple(r.results, 'hw-awpt');
          const number = miString(wpt, 'number');
          bp = (await this.listBreakpoints(signal)).find((b) => b.number === number) ?? {
            number: number ?? '?',
            type: 'watchpoint',
            enabled: true,
            temporary: false,
            pending: false,
            hits: 0,
            what: spec.expression,
            locations: [],
          };
        }
        if (spec.condition) {
          await this.mi('break-condition', [bp.number, spec.condition], { signal });
          bp.condition = spec.condition;
        }
        return bp;
      }
      case 'catchpoint':
        return this.insertCatchpoint(spec.event, spec.filter, spec.temporary ?? false, signal);
      case 'dprintf': {
        // Through the CLI: -dprintf-insert re-escapes its format, so "\n" could never mean a
        // newline; the CLI reads the format as a C string literal, as a person writes it.
        assertSingleLine(spec.location, 'location');
        assertSingleLine(spec.format, 'format');
        if (/(^|[^\\])(\\\\)*"/.test(spec.format)) {
          throw new DebuggerError(
            'invalid_argument',
            'format: escape double quotes as \\" (it is the body of a C string literal)',
          );
        }
        if (/(^|[^\\])(\\\\)*\\$/.test(spec.format)) {
          throw new DebuggerError('invalid_argument', 'format: ends with a lone backslash');
        }
        if (/,/.test(spec.location))
          throw new DebuggerError('invalid_argument', 'location: a dprintf location cannot contain a comma');
        const extra = (spec.args ?? []).map((a, i) => {
          assertSingleLine(a, `args[${i}]`);
          return `,${a}`;
        });
        const bp = await this.viaCli(`dprintf ${spec.location},"${spec.format}"${extra.join('')}`, signal);
        if (spec.condition) {
          await this.mi('break-condition', [bp.number, spec.condition], { signal });
          bp.condition = spec.condition;
        }
        return bp;
      }
    }
  }

  private async insertCatchpoint(
    event: string,
    filter: string | undefined,
    temporary: boolean,
    signal?: AbortSignal,
  ): Promise<Breakpoint> {
    if (filter !== undefined) {
      assertSingleLine(filter, 'filter');
      // Catchpoint filters are syscall names/numbers, signal names or a regexp for C++ types;
      // they are written into CLI text, so nothing that could start another clause is allowed.
      if (!/^[\w .,*+?^$|()[\]\\:-]*$/.test(filter)) {
        throw new DebuggerError(
          'invalid_argument',
          `filter ${JSON.stringify(filter)} has characters a catchpoint filter cannot contain`,
        );
      }
    }
    const t = temporary ? ['-t'] : [];
    if (event === 'throw' || event === 'catch' || event === 'rethrow') {
      const r = await this.mi(`catch-${event}`, [...t, ...(filter ? ['-r', filter] : [])], { signal });
      return this.firstBreakpoint(r);
    }
    if (event === 'load' || event === 'unload') {
      const r = await this.mi(`catch-${event}`, [...t, filter ?? '.'], { signal });
      return this.firstBreakpoint(r);
    }
    const verb = temporary ? 'tcatch' : 'catch';
    return this.viaCli(`${verb} ${event}${filter ? ` ${filter}` : ''}`, signal);
  }

  /** Runs a CLI command that creates one breakpoint and returns the breakpoint it created. */
  private async viaCli(text: string, signal?: AbortSignal): Promise<Breakpoint> {
    const before = new Set((await this.listBreakpoints(signal)).map((b) => b.number));
    await this.cli(text, { signal });
    const created = (await this.listBreakpoints(signal)).filter((b) => !before.has(b.number));
    const bp = created[created.length - 1];
    if (!bp) throw new DebuggerError('debugger_error', `"${text}" created no breakpoint`);
    return bp;
  }

  private firstBreakpoint(r: MiCommandResult): Breakpoint {
    const bkpt = miTuple(r.results, 'bkpt');
    if (!bkpt) throw new DebuggerError('debugger_error', 'the debugger answered without a breakpoint');
    const bp = narrowBreakpoint(bkpt);
    // mi3+ lists the locations of a multi-location breakpoint in the same answer.
    return bp;
  }

  async changeBreakpoints(change: BreakpointChange, signal?: AbortSignal): Promise<void> {
    switch (change.op) {
      case 'delete':
        await this.mi('break-delete', change.numbers, { signal });
        return;
      case 'enable':
      case 'disable':
        await this.mi(`break-${change.op}`, change.numbers, { signal });
        return;
      case 'condition':
        await this.mi(
          'break-condition',
          change.condition === '' ? [change.number] : [change.number, change.condition],
          {
            signal,
          },
        );
        return;
      case 'ignore':
        await this.mi('break-after', [change.number, String(change.count)], { signal });
        return;
    }
  }

  async listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]> {
    const r = await this.mi('break-list', [], { signal });
    return narrowBreakpointTable(r.results);
  }

  // ---- inspection -----------------------------------------------------------------------

  async stack(
    options: { threadId?: number; from?: number; to?: number; withArgs?: boolean },
    signal?: AbortSignal,
  ): Promise<Frame[]> {
    const sel = this.selector({ threadId: options.threadId });
    const range =
      options.from !== undefined && options.to !== undefined ? [String(options.from), String(options.to)] : [];
    const r = await this.mi('stack-list-frames', [...sel, ...range], { signal });
    const frames = narrowStack(r.results);
    this.noteSources(frames);
    // One after the other on purpose: measured here, GDB answers a second command that arrived
    // in the same read as the first about 2 ms late, so pipelining them made a stack view slower.
    if (options.withArgs && frames.length > 0) {
      const a = await this.mi('stack-list-arguments', [...sel, '--simple-values', ...range], { signal });
      const byLevel = narrowStackArgs(a.results);
      for (const f of frames) f.args = byLevel.get(f.level) ?? [];
    }
    return frames;
  }

  async stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number> {
    const r = await this.mi('stack-info-depth', [...this.selector({ threadId }), String(max)], { signal });
    return miInt(r.results, 'depth') ?? 0;
  }

  async threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }> {
    const r = await this.mi('thread-info', [], { signal });
    return narrowThreads(r.results);
  }

  async variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]> {
    const sel = this.selector(selector);
    const r = await this.mi('stack-list-variables', [...sel, '--all-values'], { signal });
    let vars = narrowVariables(miList(r.results, 'variables'));
    if (options.types) {
      // --all-values gives no types; --simple-values gives every type (and scalar values).
      const t = await this.mi('stack-list-variables', [...sel, '--simple-values'], { signal });
      const types = narrowVariables(miList(t.results, 'variables'));
      vars = vars.map((v, i) => {
        const type = types[i]?.name === v.name ? types[i]?.type : undefined;
        return type === undefined ? v : { ...v, type };
      });
    }
    if (which === 'locals') return vars.filter((v) => !v.isArg);
    if (which === 'args') return vars.filter((v) => v.isArg);
    return vars;
  }

  async evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string> {
    const sel = this.selector(selector);
    const format = selector.format ?? 'natural';
    if (format === 'natural') {
      const r = await this.mi('data-evaluate-expression', [...sel, expression], { signal });
      return miString(r.results, 'value') ?? '';
    }
    // -data-evaluate-expression has no format; a variable object does.
    const created = await this.mi('var-create', [...sel, '-', '*', expression], { signal });
    const name = miString(created.results, 'name');
    if (!name) throw new DebuggerError('debugger_error', 'the debugger created no variable object');
    try {
      const r = await this.mi('var-evaluate-expression', ['-f', format, name], { signal });
      return miString(r.results, 'value') ?? '';
    } finally {
      await this.mi('var-delete', [name]).catch(() => {});
    }
  }

  async assign(target: string, value: string, selector: FrameSelector, signal?: AbortSignal): Promise<string> {
    const r = await this.mi('data-evaluate-expression', [...this.selector(selector), `${target} = ${value}`], {
      signal,
    });
    return miString(r.results, 'value') ?? '';
  }

  async registers(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]> {
    if (!this.registerNames) {
      const r = await this.mi('data-list-register-names', [], { signal });
      this.registerNames = miList(r.results, 'register-names').map((n) => (typeof n === 'string' ? n : ''));
    }
    const names = this.registerNames;
    let numbers: string[] = [];
    if (selector.names && selector.names.length > 0) {
      for (const want of selector.names) {
        const i = names.indexOf(want);
        if (i < 0) throw new DebuggerError('invalid_argument', `no register named ${JSON.stringify(want)}`);
        numbers.push(String(i));
      }
    } else {
      // The general registers: the first block of named ones, before vector state.
      const general = generalRegisterCount(names);
      numbers = names.flatMap((n, i) => (n !== '' && i < general ? [String(i)] : []));
    }
    const fmt = { natural: 'N', hex: 'x', decimal: 'd', octal: 'o', binary: 't' }[selector.format ?? 'hex'];
    const r = await this.mi(
      'data-list-register-values',
      [...this.selector(selector), '--skip-unavailable', fmt, ...numbers],
      { signal },
    );
    return miList(r.results, 'register-values').flatMap((v) => {
      if (typeof v !== 'object' || Array.isArray(v)) return [];
      const number = miInt(v, 'number') ?? -1;
      return [{ number, name: names[number] ?? String(number), value: miString(v, 'value') ?? '' }];
    });
  }

  async readMemory(address: string, count: number, signal?: AbortSignal): Promise<MemoryBlock[]> {
    try {
      const blocks = narrowMemory(
        (await this.mi('data-read-memory-bytes', [address, String(count)], { signal })).results,
      );
      if (blocks.length === 1 && blocks[0]?.hex.length === count * 2) return blocks;
    } catch (e) {
      if (!isUnreadable(e)) throw e;
    }
    // Part of the range is unreadable. GDB 13 then answers with the readable part plus one byte
    // past the page boundary that it made up (end="0x…f001"), or with "Unable to read memory."
    // when the range starts readable; so read page by page: readability changes only there.
    const at = await this.mi('data-evaluate-expression', [`(char *)(${address})`], { signal });
    const text = /^0x[0-9a-fA-F]+/.exec(miString(at.results, 'value') ?? '')?.[0];
    if (text === undefined) throw new DebuggerError('debugger_error', `${address} is not an address`);
    const start = BigInt(text);
    const end = start + BigInt(count);
    let hex = '';
    for (let from = start; from < end; ) {
      const pageEnd = (from / MEMORY_PAGE + 1n) * MEMORY_PAGE;
      const to = pageEnd < end ? pageEnd : end;
      const bytes = Number(to - from);
      try {
        const r = await this.mi('data-read-memory-bytes', [`0x${from.toString(16)}`, String(bytes)], { signal });
        const block = narrowMemory(r.results)[0];
        if (block?.hex.length !== bytes * 2) break;
        hex += block.hex;
      } catch (e) {
        if (isUnreadable(e)) break;
        throw e;
      }
      from = to;
    }
    if (hex === '') {
      throw new DebuggerError(
        'debugger_error',
        `cannot read memory at 0x${start.toString(16)}: nothing is mapped there`,
        {
          address: `0x${start.toString(16)}`,
        },
      );
    }
    return [{ address: `0x${start.toString(16)}`, hex, unreadable: count - hex.length / 2 }];
  }

  async writeMemory(address: string, hex: string, signal?: AbortSignal): Promise<void> {
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex))
      throw new DebuggerError('invalid_argument', 'bytes must be pairs of hex digits');
    await this.mi('data-write-memory-bytes', [address, hex], { signal });
  }

  async disassemble(request: DisassembleRequest, signal?: AbortSignal): Promise<Instruction[]> {
    const mode = request.withSource ? (request.withOpcodes ? '5' : '4') : request.withOpcodes ? '2' : '0';
    const sel = this.selector(request);
    let args: string[];
    if (request.start !== undefined) {
      args = ['-s', request.start, '-e', request.end ?? `${request.start}+64`];
    } else if (request.function !== undefined) {
      args = ['-a', request.function];
    } else {
      args = ['-a', '$pc'];
    }
    try {
      const r = await this.mi('data-disassemble', [...sel, ...args, '--', mode], { signal });
      return narrowDisassembly(r.results);
    } catch (e) {
      // No function around the pc (stripped code): fall back to a window starting at the pc.
      if (request.start === undefined && request.function === undefined) {
        const r = await this.mi('data-disassemble', [...sel, '-s', '$pc', '-e', '$pc+64', '--', mode], { signal });
        return narrowDisassembly(r.results);
      }
      throw e;
    }
  }

  private noteSources(frames: readonly Frame[]): void {
    for (const f of frames) {
      if (f.fullname === undefined || this.sourceFiles.has(f.fullname)) continue;
      if (this.sourceFiles.size >= 4096) this.sourceFiles.clear();
      this.sourceFiles.add(f.fullname);
    }
  }

  async sourceLines(file: string, from: number, to: number, signal?: AbortSignal): Promise<SourceLine[]> {
    assertSingleLine(file, 'file');
    // A file GDB resolved for a frame is read from disk: `list FILE:LINE` is a linespec, which
    // searches the line tables of every library with debug info (measured at a first stop with
    // libc's debug info installed: 40-50 ms, 7 ms after; the file itself takes well under 1 ms).
    // Only files GDB named: anything else would let view=source read any file on the machine.
    // Past the end, GDB's own answer says how long the file is.
    const roots = this.sourceRoots;
    if (roots !== undefined) {
      // Confined: only files that really lie under the workspace roots are quoted. A crafted
      // program's debug info may name any file on the machine (a key, a token file).
      const real = await realpath(file).catch(() => undefined);
      if (real === undefined || !roots.some((r) => isUnder(r, real))) {
        throw new DebuggerError(
          'invalid_argument',
          `source of ${file} is not shown: it is not a file under the workspace roots (${roots.join(', ')}); start the server with --root to include it`,
        );
      }
      return (await readFileLines(real, from, to)) ?? [];
    }
    if (this.sourceFiles.has(file)) {
      const lines = await readFileLines(file, from, to);
      if (lines !== undefined && lines.length > 0) return lines;
    }
    if (/[\s,']/.test(file)) {
      throw new DebuggerError('invalid_argument', `source file name ${JSON.stringify(file)} cannot be listed by GDB`);
    }
    // Both ends name the file: a bare end line is resolved against every file of that name
    // (glibc has a loop.c too) and GDB then lists nothing.
    const r = await this.cli(`list ${file}:${from},${file}:${to}`, {
      signal,
      captureConsole: true,
      captureLimit: 256 * 1024,
    });
    const lines: SourceLine[] = [];
    for (const text of r.console.split('\n')) {
      const m = /^(\d+)\t(.*)$/.exec(text);
      if (m?.[1] !== undefined && m[2] !== undefined) lines.push({ line: Number(m[1]), text: m[2] });
    }
    // Without the file GDB prints one line, "57\tin ./nptl/futex-internal.c": a place, not source.
    const only = lines.length === 1 ? lines[0]?.text : undefined;
    if (only !== undefined && /^in \S+$/.test(only) && only.endsWith(file.slice(file.lastIndexOf('/') + 1))) return [];
    if (lines.length === 0) {
      const said = `${r.console}${r.log}`.trim().split('\n')[0];
      if (said) throw new DebuggerError('debugger_error', said);
    }
    return lines;
  }

  async libraries(signal?: AbortSignal): Promise<Library[]> {
    const r = await this.mi('file-list-shared-libraries', [], { signal });
    return miList(r.results, 'shared-libraries').flatMap((l) =>
      typeof l === 'object' && !Array.isArray(l) ? [narrowLibrary(l)] : [],
    );
  }

  async command(
    text: string,
    options: { timeoutMs?: number; threadId?: number; frame?: number },
    signal?: AbortSignal,
  ): Promise<CommandOutput> {
    const limit = 256 * 1024;
    const r = await this.cli(
      text,
      { signal, timeoutMs: options.timeoutMs, captureConsole: true, captureLimit: limit },
      { threadId: options.threadId, frame: options.frame },
    );
    const output = r.console + (r.log && !r.log.startsWith(text) ? r.log : '');
    return { output, truncated: r.console.length >= limit, resumed: r.class === 'running' };
  }

  // ---- the end --------------------------------------------------------------------------

  /** Marks the target as attached: closing detaches rather than kills. */
  /** What gdbTargets.ts needs to open cores, attach and connect: MI, events, and GDB's words. */
  get port(): GdbPort {
    return {
      mi: (operation, args, options) => this.mi(operation, args, options),
      cli: (text, options) => this.cli(text, options),
      emit: (event) => this.emit(event),
      watchText: (listener) => {
        this.textWatchers.add(listener);
        return () => this.textWatchers.delete(listener);
      },
      foreignPids: () => {
        this.pidsAreLocal = false;
        this.forgetLaunched();
      },
    };
  }

  setAttached(attached: boolean): void {
    this.attached = attached;
    if (attached) this.forgetLaunched();
  }

  /** The programs recorded as launched here are not (an attach or a remote link came after). */
  private forgetLaunched(): void {
    for (const who of this.launched.splice(0)) releaseSession(who.pid);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const pids = [...this.inferiorPids.values()];
    if (!this.exited) {
      if (this.attached) await this.mi('target-detach', [], { timeoutMs: 2000 }).catch(() => {});
      // -gdb-exit kills what GDB launched; the answer may never come if gdb is wedged.
      await this.mi('gdb-exit', [], { timeoutMs: 1000 }).catch(() => {});
    }
    await stopGroup(this.child, { termAfterMs: 1000, killAfterMs: 1000 });
    if (!this.attached && this.pidsAreLocal) {
      // GDB kills its program on exit (and PTRACE_O_EXITKILL when it dies); this is the belt.
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      // Children GDB let go at fork are not traced: neither its kill nor its death reaches them.
      const swept = await killSessionsAndWait(this.launched);
      if (swept.length > 0) log('info', 'killed processes the program left behind', { pids: swept });
    }
    this.forgetLaunched();
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
