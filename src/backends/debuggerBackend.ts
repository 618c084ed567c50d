// The seam: what the session layer asks of a debugger, whichever one it is. Backends speak the
// model (src/model) and report what happens on their own through events; the session reduces
// those events into its state. Layers above src/backends know this file and registry.ts, nothing
// else of the backends: they ask a backend what it can do (`capabilities`), never which one it is.
//
// Ids are the backend's own handles, opaque above it: a thread id is the number the debugger shows
// the user (GDB's global thread number, LLDB's thread id), a frame is its level on that thread's
// stack at the current stop, a breakpoint number is the debugger's ("2", or "2.1" for one location).

import type {
  Breakpoint,
  ExitEvent,
  Frame,
  Instruction,
  Library,
  MemoryBlock,
  Register,
  SourceLine,
  StopEvent,
  Thread,
  Variable,
} from '../model/model.js';
import type { OutputRing } from '../process/outputRing.js';

export type BackendKind = 'gdb' | 'lldb' | 'winedbg' | 'rr';
export const BACKEND_KINDS: readonly BackendKind[] = ['gdb', 'lldb', 'winedbg', 'rr'];

/**
 * What a session debugs: a program launched here, a core, a process, a remote stub, a recording,
 * or the debugger a person shares from their own terminal (`joined`: theirs, not ours).
 */
export type TargetKind = 'launch' | 'core' | 'attach' | 'remote' | 'replay' | 'joined';

/** What a person who shares their debugger lets a session do: read it, or also run the program. */
export type ShareAccess = 'read' | 'control';

/**
 * A debugger a person shares, as its registry file on this machine describes it. `address` is
 * opaque above the backends (an owner-only unix socket, a loopback port).
 */
export interface ShareEntry {
  /** What dbg_start's `join` takes, e.g. "gdb-4242". */
  id: string;
  debugger: BackendKind;
  access: ShareAccess;
  address: string;
  /** The user who shares it: always the server's own user (other users' files are refused). */
  owner: string;
  /** The person's debugger process, and the program it debugs, when known. */
  debuggerPid?: number;
  program?: string;
  pid?: number;
  /** What is known of the program: stopped, running, exited, none, waiting (for the person), unknown. */
  state: string;
  /** Whether an agent has joined it now. */
  joined?: boolean;
  /** The registry file it was read from. */
  file: string;
}

/** The shares found on this machine, and the registry files passed over, each with why. */
export interface ShareListing {
  shares: ShareEntry[];
  ignored: { file: string; why: string; stale?: boolean }[];
}

export type WatchAccess = 'write' | 'read' | 'access';
export const CATCH_EVENTS = [
  'throw',
  'catch',
  'rethrow',
  'syscall',
  'signal',
  'fork',
  'vfork',
  'exec',
  'load',
  'unload',
] as const;
export type CatchEvent = (typeof CATCH_EVENTS)[number];

/** What a backend can do. Tools and the doctor read this instead of asking which debugger it is. */
export interface BackendCapabilities {
  /** Target kinds `open` accepts. */
  targets: readonly TargetKind[];
  /** Running backwards: never, after recording began (record_start), or always (a replay). */
  reverse: 'none' | 'recording' | 'always';
  /** Whether recording can be started at a stop (record_start / record=true). */
  record: boolean;
  /** Watchpoint kinds; empty when the backend has none. */
  watchpoints: readonly WatchAccess[];
  /** Whether watchpoints can work without the CPU's debug registers (slowly, by single-stepping). */
  softwareWatchpoints: boolean;
  /**
   * Whether a watchpoint can be set on memory not mapped yet (a heap block before its allocation):
   * what the origin search's re-execution needs, as it watches from main. Absent: it cannot.
   */
  watchUnmapped?: boolean;
  hardwareBreakpoints: boolean;
  /** Events a catchpoint can stop at. */
  catchEvents: readonly CatchEvent[];
  /** Breakpoints that print and go on (dprintf). */
  logpoints: boolean;
  /** Which side of a fork to follow (`forks`). */
  forks: boolean;
  /** A directory of the target's libraries (`sysroot`). */
  sysroot: boolean;
  /** Writing a core of the stopped program. */
  saveCore: boolean;
  /** Calling functions of the program from expressions (still subject to --inferior-calls). */
  inferiorCalls: boolean;
  /** The program gets a terminal of its own, read and written through dbg_io. */
  programTerminal: boolean;
  /** The language of raw commands (dbg_command): its allowlist lives with the backend. */
  rawDialect: string;
  /** A joined target (a person's debugger): what the person allows. Absent for the server's own. */
  access?: ShareAccess;
  /**
   * Whose process ids `attach` takes when they are not this machine's: 'windows' for the Windows
   * pids of a Wine prefix. The server's attach check reads /proc and does not apply to them; the
   * backend applies the policy in its own terms. Absent: this machine's pids.
   */
  pidSpace?: 'windows';
}

export type BackendEvent =
  | { type: 'running'; threadId: 'all' | number }
  | { type: 'stopped'; stop: StopEvent }
  | { type: 'exited'; exit: ExitEvent }
  /** `group`: the process a thread belongs to, an opaque name of the backend's. */
  | { type: 'thread-created'; id: number; group: string }
  | { type: 'thread-exited'; id: number; group: string }
  | { type: 'inferior-started'; group: string; pid: number }
  | { type: 'inferior-exited'; group: string; code?: number }
  | { type: 'library-loaded'; library: Library }
  | { type: 'library-unloaded'; path: string }
  | { type: 'breakpoint-changed'; breakpoint: Breakpoint }
  | { type: 'breakpoint-deleted'; number: string }
  /** Execution recording (reverse debugging) began or ended. */
  | { type: 'record-started' }
  | { type: 'record-stopped' }
  /** The debugger process itself is gone; nothing more will come. */
  | { type: 'died'; reason: string };

export interface BackendInfo {
  kind: BackendKind;
  /** e.g. "GNU gdb (Debian 13.1-3) 13.1". */
  version: string;
  /** The wire protocol in use, e.g. "mi4" or "dap". */
  protocol: string;
  /** Pid of the debugger process (for diagnostics and leak checks). */
  pid: number | undefined;
}

/** A program to run: its path, literal argv[1..], working directory and extra environment. */
export interface LaunchSpec {
  program: string;
  args: readonly string[];
  cwd?: string;
  /** Variables added to the program's environment. */
  env?: Readonly<Record<string, string>>;
  /** A file (already checked under the roots) the program reads as its stdin, to EOF. */
  stdinFile?: string;
}

/** Which side of a fork the session follows. */
export type ForkMode = 'parent' | 'child' | 'both';

/**
 * What to open. `program` (when given) is loaded for its symbols first; a launch also runs it.
 * `remote` is the host:port of a gdbserver or QEMU stub, already checked against the host policy.
 * A launch with `record` is recorded from its start (capabilities.record), which may need an
 * environment of its own.
 */
export type TargetSpec = { sysroot?: string; forks?: ForkMode } & (
  | { kind: 'launch'; program: LaunchSpec; remote?: string; record?: boolean }
  | { kind: 'core'; core: string; program: LaunchSpec }
  | { kind: 'attach'; pid: number; program?: LaunchSpec; remote?: string }
  | { kind: 'remote'; remote: string; program?: LaunchSpec }
  | { kind: 'replay'; trace: string; pid?: number; program?: LaunchSpec }
  | { kind: 'joined'; share: ShareEntry; program?: undefined }
);

export interface OpenReport {
  /** Plain-words problems found while opening: no debug info, a core that may not match, … */
  warnings: string[];
  /** The program whose symbols were loaded, when the backend found it (a replay's copy, /proc/PID/exe). */
  program?: string;
  /** A core's own account of itself: "Core was generated by `./crash segv'". */
  generatedBy?: string;
  /** False for a launch, or a target whose first stop the backend does not report (a `no-run` connect). */
  reportsStop: boolean;
}

/** Where a fresh run stops first: `main`, the first instruction, or wherever it stops by itself. */
export type StartMode = 'main' | 'entry' | 'none';

export type ResumeAction = 'continue' | 'next' | 'step' | 'stepi' | 'nexti' | 'finish' | 'until' | 'advance' | 'jump';

/**
 * A place in the program, as data. `spec` is text in the backend's own location language (GDB's
 * linespecs, `-source f.c -line 3`, `+1`), for what the other variants cannot say.
 */
export type Location = { file: string; line: number } | { function: string } | { address: string } | { spec: string };

export interface ResumeOptions {
  count?: number;
  threadId?: number;
  /** For until/advance/jump. */
  location?: Location;
  reverse?: boolean;
}

/** Which frames' arguments a stack read fetches: all, none, or the levels a function picks from the frames. */
export type ArgsWanted = boolean | ((frames: readonly Frame[]) => Iterable<number>);

export interface StackOptions {
  threadId?: number;
  from?: number;
  to?: number;
  withArgs?: ArgsWanted;
}

export interface FrameSelector {
  threadId?: number;
  frame?: number;
}

export type BreakpointSpec =
  | {
      kind: 'breakpoint';
      location: Location;
      condition?: string;
      temporary?: boolean;
      hardware?: boolean;
      ignoreCount?: number;
      threadId?: number;
      disabled?: boolean;
    }
  | {
      kind: 'watchpoint';
      expression: string;
      access?: WatchAccess;
      /** Watch the memory the expression names now, even after it goes out of scope. */
      location?: boolean;
      condition?: string;
      /** Asked for hardware explicitly (honoured, with a warning where hardware ones are dead). */
      hardware?: boolean;
      /** The frame (of the stopped thread) whose scope the expression is read in; default 0. */
      frame?: number;
    }
  | { kind: 'catchpoint'; event: CatchEvent; filter?: string; temporary?: boolean }
  | { kind: 'dprintf'; location: Location; format: string; args?: readonly string[]; condition?: string };

export type BreakpointChange =
  | { op: 'delete'; numbers: readonly string[] }
  | { op: 'enable' | 'disable'; numbers: readonly string[] }
  | { op: 'condition'; number: string; condition: string }
  | { op: 'ignore'; number: string; count: number };

/** A breakpoint as set, with what the backend wants the user to know about it. */
export interface SetBreakpoint {
  breakpoint: Breakpoint;
  warnings: string[];
}

export type ValueFormat = 'natural' | 'hex' | 'decimal' | 'octal' | 'binary';

/** What to disassemble: around the pc of a frame, a function, or an address range (expressions). */
export type DisassembleSpan =
  | { around: 'pc'; before: number; after: number }
  | { function: string }
  | { start: string; end: string };

export interface DisassembleRequest extends FrameSelector {
  span: DisassembleSpan;
  withSource?: boolean;
  withOpcodes?: boolean;
}

export interface Disassembly {
  instructions: Instruction[];
  /** The pc of the selected frame, when the program has one (hex). */
  pc?: string;
}

/** How much a raw command may do: `read` is the backend's allowlist of inspection commands. */
export type RawPolicy = 'read' | 'full';

export interface CommandOptions {
  policy: RawPolicy;
  /**
   * The language the command is read in, when a backend runs its raw commands through another
   * (rr over GDB: its `rawDialect`); by default the backend's own.
   */
  dialect?: string;
  timeoutMs?: number;
  threadId?: number;
  frame?: number;
}

export interface CommandOutput {
  output: string;
  /** True when the output was cut at the capture limit. */
  truncated: boolean;
  /** True when the command resumed the program (its stop or exit arrives later, as an event). */
  resumed?: boolean;
}

/** Where program input stands after a write: what the terminal took, what still waits. */
export interface StdinReport {
  taken: number;
  waiting: number;
}

/**
 * A report a runtime checker printed (AddressSanitizer, UndefinedBehaviorSanitizer,
 * LeakSanitizer, …), read from the program's output.
 */
export interface RuntimeReport {
  /** The checker, as it names itself: "AddressSanitizer". */
  tool: string;
  /** What it found: heap-use-after-free, signed-integer-overflow, …; `unavailable-under-ptrace` when it could not run. */
  kind: string;
  /** The line that opens the report. */
  errorLine: string;
  summaryLine?: string;
  /** The bad access: READ or WRITE of `size` bytes at `address`. */
  access?: { op: 'READ' | 'WRITE'; size?: number; address: string };
  /** The first place of the report's stack in the program's own code. */
  location?: { function?: string; file: string; line: number };
  /** One sentence for a hint: what happened and where, or what to do when the checker could not run. */
  hint: string;
  /** The process that printed it, when the report says (a report of an earlier run names another). */
  pid?: number;
}

/**
 * Knowledge of the program's runtime (glibc and its kin, or Windows), shared by every backend that
 * debugs such programs: names of system frames, what a blocked thread waits for, where an abort
 * keeps its message, who owns a mutex. It reads the target only through the reader it is given.
 */
export interface TargetRuntime {
  readonly name: string;
  /** Frames of the runtime and system headers, which the answers fold so the user's code stands out. */
  isSystemFrame(frame: Frame): boolean;
  /**
   * The levels whose arguments `lockOwner` and `classifyWait` read, among a thread's frames. A
   * runtime without it gets every frame's arguments.
   */
  argsRead?(frames: readonly Frame[]): Iterable<number>;
  /** What a thread waits for, from its innermost frames: mutex, condition variable, join, io (read)… */
  classifyWait(frames: readonly Frame[]): string | undefined;
  /** The last abort message in the program's output (assert, C++ terminate, heap checks). */
  abortMessageInOutput(output: string): string | undefined;
  /** The last runtime checker's report in the program's output (a sanitizer's), if any. */
  runtimeReport?(output: string): RuntimeReport | undefined;
  /** The abort message the runtime keeps in memory, for when the output does not have it. */
  abortMessage(reader: TargetReader, threadId: number | undefined, signal?: AbortSignal): Promise<string | undefined>;
  /** The mutex a thread blocked in a lock waits for, and the OS thread that holds it. */
  lockOwner(
    reader: TargetReader,
    threadId: number,
    frames: readonly Frame[],
    signal?: AbortSignal,
  ): Promise<{ mutex: string; ownerOsThread: number } | undefined>;
}

/** The reads runtime knowledge may make: values, registers, memory and symbol names. */
export interface TargetReader {
  evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string>;
  readMemory(address: string, count: number, signal?: AbortSignal): Promise<MemoryBlock[]>;
  registers?(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]>;
  /** The name of the symbol an address lies in ("ledger"), for naming a mutex. */
  symbolAt?(address: bigint, signal?: AbortSignal): Promise<string | undefined>;
}

export interface DebuggerBackend extends TargetReader {
  readonly info: BackendInfo;
  readonly capabilities: BackendCapabilities;
  readonly runtime: TargetRuntime;
  /** The program's terminal output, when the backend gives the program a terminal. */
  readonly output: OutputRing | undefined;
  /** What the debugger printed on its own (dprintf output, warnings), not as a command's answer. */
  readonly console: OutputRing | undefined;
  /** Last lines the debugger wrote to its stderr (diagnostics when it dies). */
  stderrTail(): string[];

  subscribe(listener: (event: BackendEvent) => void): () => void;

  /**
   * Opens the target. A launch loads the program (nothing runs until `start`); the other kinds
   * report their first stop (a core's signal, where an attach stopped the process) as an event.
   */
  open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport>;
  /** Starts the loaded program; resolves once it runs (the stop arrives as an event). */
  start(mode: StartMode, signal?: AbortSignal): Promise<void>;
  /** Resumes; resolves once it runs (the stop arrives as an event). */
  resume(action: ResumeAction, options: ResumeOptions, signal?: AbortSignal): Promise<void>;
  /** Asks a running program to stop; never waits behind other commands. */
  interrupt(): Promise<void>;
  /**
   * When `interrupt` brought no stop: the next harder way to stop the program (`step` 1, 2, …),
   * saying what it did, or undefined when there is no harder way left.
   */
  forceInterrupt?(step: number): string | undefined;
  kill(signal?: AbortSignal): Promise<void>;
  /** Starts recording execution from here, so it can be run backwards (capabilities.record). */
  startRecording?(signal?: AbortSignal): Promise<void>;
  stopRecording?(signal?: AbortSignal): Promise<void>;

  /**
   * Types into the program's terminal without ever blocking: answers by `deadline` (or abort) with
   * the bytes the terminal took and those still queued, which go in, in order, as the program
   * reads. A line the terminal would cut is refused (invalid_argument) before anything is queued.
   */
  writeStdin(data: string | Buffer, deadline: number, signal?: AbortSignal): Promise<StdinReport>;
  /** End of input, queued behind earlier writes; answers as writeStdin does. */
  sendEof(deadline: number, signal?: AbortSignal): Promise<StdinReport>;

  insertBreakpoint(spec: BreakpointSpec, signal?: AbortSignal): Promise<SetBreakpoint>;
  changeBreakpoints(change: BreakpointChange, signal?: AbortSignal): Promise<void>;
  listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]>;

  /**
   * Frames `from`..`to` of a thread. `withArgs`: true reads every frame's arguments; a function is
   * given the frames listed and names the levels whose arguments are read (the ones an answer
   * shows), leaving the others' `args` undefined. A backend may read more than it is asked for.
   */
  stack(options: StackOptions, signal?: AbortSignal): Promise<Frame[]>;
  /** Frames on a thread's stack, counting at most `max`. */
  stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number>;
  threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }>;
  variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]>;
  /** Evaluates without side effects: an expression that would write memory or registers is refused. */
  evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string>;
  assign(target: string, value: string, selector: FrameSelector, signal?: AbortSignal): Promise<string>;
  registers(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]>;
  /** The stack pointer of a frame, when the backend can tell. */
  stackPointer?(selector: FrameSelector, signal?: AbortSignal): Promise<bigint | undefined>;
  writeMemory(address: string, hex: string, signal?: AbortSignal): Promise<void>;
  disassemble(request: DisassembleRequest, signal?: AbortSignal): Promise<Disassembly>;
  sourceLines(file: string, from: number, to: number, signal?: AbortSignal): Promise<SourceLine[]>;
  libraries(signal?: AbortSignal): Promise<Library[]>;
  /** One raw debugger command under `policy`; refused with invalid_argument when the policy says no. */
  command(text: string, options: CommandOptions, signal?: AbortSignal): Promise<CommandOutput>;
  /** Writes a core of the stopped program to `path`; resolves with its size (capabilities.saveCore). */
  saveCore?(path: string, signal?: AbortSignal): Promise<number>;

  /** Ends the debugger: the program is killed (launched) or detached (attached). Idempotent. */
  close(): Promise<void>;
}

/** One line of the doctor: a debugger or capability, available or not, with the reason and the fix. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** What was found, or why it is not available. */
  detail: string;
  /** How to make it available, when it is not. */
  fix?: string;
}

export interface DoctorOptions {
  /** Executables the operator configured, by backend (`gdb` → /usr/bin/gdb). */
  paths: Readonly<Partial<Record<BackendKind, string>>>;
  passthroughEnv?: readonly string[];
}
