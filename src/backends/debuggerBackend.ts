// What the session layer asks of a debugger, whichever one it is. Backends speak the model
// (src/model) and report what happens on their own through events; the session reduces those
// events into its state.

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

export type BackendEvent =
  | { type: 'running'; threadId: 'all' | number }
  | { type: 'stopped'; stop: StopEvent }
  | { type: 'exited'; exit: ExitEvent }
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
  /** The wire protocol in use, e.g. "mi4". */
  protocol: string;
  /** Pid of the debugger process (for diagnostics and leak checks). */
  pid: number | undefined;
}

export interface LaunchSpec {
  /** Absolute path of the program. */
  program: string;
  /** argv[1..], passed literally. */
  args: readonly string[];
  cwd?: string;
  /** Variables added to the program's environment. */
  env?: Readonly<Record<string, string>>;
}

export interface LoadReport {
  /** Plain-words problems found while loading: no debug info, and so on. */
  warnings: string[];
  hasDebugInfo: boolean;
}

/** Where a fresh run stops first: `main`, the first instruction, or wherever it stops by itself. */
export type StartMode = 'main' | 'entry' | 'none';

export type ResumeAction = 'continue' | 'next' | 'step' | 'stepi' | 'nexti' | 'finish' | 'until' | 'advance' | 'jump';

export interface ResumeOptions {
  count?: number;
  threadId?: number;
  /** For until/advance/jump: a location spec. */
  location?: string;
  reverse?: boolean;
}

export interface FrameSelector {
  threadId?: number;
  frame?: number;
}

export type WatchAccess = 'write' | 'read' | 'access';
export type CatchEvent =
  | 'throw'
  | 'catch'
  | 'rethrow'
  | 'syscall'
  | 'signal'
  | 'fork'
  | 'vfork'
  | 'exec'
  | 'load'
  | 'unload';

export type BreakpointSpec =
  | {
      kind: 'breakpoint';
      location: string;
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
    }
  | { kind: 'catchpoint'; event: CatchEvent; filter?: string; temporary?: boolean }
  | { kind: 'dprintf'; location: string; format: string; args?: readonly string[]; condition?: string };

export type BreakpointChange =
  | { op: 'delete'; numbers: readonly string[] }
  | { op: 'enable' | 'disable'; numbers: readonly string[] }
  | { op: 'condition'; number: string; condition: string }
  | { op: 'ignore'; number: string; count: number };

export type ValueFormat = 'natural' | 'hex' | 'decimal' | 'octal' | 'binary';

export interface DisassembleRequest extends FrameSelector {
  /** Start and end addresses (expressions), or a function name, or around the pc. */
  start?: string;
  end?: string;
  function?: string;
  /** Instructions before and after the pc when disassembling around it. */
  around?: number;
  withSource?: boolean;
  withOpcodes?: boolean;
}

export interface CommandOutput {
  output: string;
  /** True when the output was cut at the capture limit. */
  truncated: boolean;
  /** True when the command resumed the program (its stop or exit arrives later, as an event). */
  resumed?: boolean;
}

export interface DebuggerBackend {
  readonly info: BackendInfo;
  /** The program's terminal output, when the backend gives the program a terminal. */
  readonly output: OutputRing | undefined;
  /** What the debugger printed on its own (dprintf output, warnings), not as a command's answer. */
  readonly console: OutputRing | undefined;
  /** Last lines the debugger wrote to its stderr (diagnostics when it dies). */
  stderrTail(): string[];

  subscribe(listener: (event: BackendEvent) => void): () => void;

  load(spec: LaunchSpec, signal?: AbortSignal): Promise<LoadReport>;
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
  /** Starts recording execution from here, so it can be run backwards (GDB: record full). */
  startRecording(signal?: AbortSignal): Promise<void>;
  stopRecording(signal?: AbortSignal): Promise<void>;

  writeStdin(data: string | Buffer): Promise<void>;
  sendEof(): Promise<void>;

  insertBreakpoint(spec: BreakpointSpec, signal?: AbortSignal): Promise<Breakpoint>;
  changeBreakpoints(change: BreakpointChange, signal?: AbortSignal): Promise<void>;
  listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]>;

  stack(
    options: { threadId?: number; from?: number; to?: number; withArgs?: boolean },
    signal?: AbortSignal,
  ): Promise<Frame[]>;
  /** Frames on a thread's stack, counting at most `max`. */
  stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number>;
  threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }>;
  variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]>;
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
  readMemory(address: string, count: number, signal?: AbortSignal): Promise<MemoryBlock[]>;
  writeMemory(address: string, hex: string, signal?: AbortSignal): Promise<void>;
  disassemble(request: DisassembleRequest, signal?: AbortSignal): Promise<Instruction[]>;
  sourceLines(file: string, from: number, to: number, signal?: AbortSignal): Promise<SourceLine[]>;
  libraries(signal?: AbortSignal): Promise<Library[]>;
  /** One raw debugger command (CLI), its console output back. */
  command(
    text: string,
    options: { timeoutMs?: number; threadId?: number; frame?: number },
    signal?: AbortSignal,
  ): Promise<CommandOutput>;

  /** Ends the debugger: the program is killed (launched) or detached (attached). Idempotent. */
  close(): Promise<void>;
}
