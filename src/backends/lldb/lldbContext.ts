// What the parts of the LLDB backend share: its options, its mutable state, and the channel to
// lldb-dap. LldbBackend (the front class) owns one of each and hands it to the job modules (open,
// events, run control, breakpoints, inspection, memory, source, raw commands), which are
// functions over it, as the GDB backend's are over GdbContext.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Frame, StopEvent } from '../../model/model.js';
import type { OutputRing } from '../../process/outputRing.js';
import type { ProcessIdentity } from '../../process/processTree.js';
import type { ProgramTerminal } from '../../process/programTerminal.js';
import type { DapTranscriptWriter } from '../../protocols/dap/dapConnection.js';
import type { DapCommand, DapRequests } from '../../protocols/dap/dapRequests.js';
import type { BackendEvent, FrameSelector } from '../debuggerBackend.js';
import type { LldbThreadNumbers } from './lldbThreadNumbers.js';

/** Whether hardware watchpoints fire on this machine, and what the probe saw. */
export interface WatchpointVerdict {
  verdict: 'work' | 'dead' | 'unknown';
  detail: string;
}

export interface LldbBackendOptions {
  /** Absolute path of lldb-dap (it rebuilds its own path from argv[0]: docs/notes/lldb-dap.md). */
  lldbDapPath: string;
  /** lldb-dap's environment, already filtered; the program inherits it (plus the launch's env). */
  env: Record<string, string>;
  /** Default deadline of one request. */
  commandTimeoutMs?: number;
  /** Deadline for lldb-dap to start and answer `initialize`. */
  startTimeoutMs?: number;
  transcript?: DapTranscriptWriter;
  /** Bytes of program output kept for reading by cursor. */
  outputCapacity?: number;
  /** Expressions that call functions of the program (off: evaluation runs without JIT). */
  allowInferiorCalls?: boolean;
  /** Resolved directories whose files may be quoted as source (undefined: files LLDB named). */
  sourceRoots?: readonly string[];
  /** Asked once, before the first watchpoint: do hardware watchpoints fire here? */
  watchpointProbe?: () => Promise<WatchpointVerdict>;
}

/** A DAP stack frame with what we parsed out of its name (the custom frame format). */
export interface LldbFrame {
  /** The adapter's handle, valid until the program resumes. */
  id: number;
  frame: Frame;
}

/**
 * What the program was last asked to do, so the stop that ends it is named as GDB would name it:
 * a `step` stop after finish is a returned function, a SIGSTOP after our pause is an interrupt.
 */
export type PendingRun =
  | { kind: 'none' }
  /** Opening or restarting: the entry stop is ours, not the agent's. */
  | { kind: 'entry'; resolve: (stop: DebugProtocol.StoppedEvent['body']) => void }
  | { kind: 'step'; action: 'next' | 'step' | 'stepi' | 'nexti'; remaining: number; threadId: number }
  | { kind: 'finish' }
  | { kind: 'continue' }
  /** Running to an internal breakpoint (main, until, advance): its stop is `location-reached`. */
  | { kind: 'to-location' }
  | { kind: 'pause' };

export interface LldbState {
  /** Set once lldb-dap has exited: nothing more will be answered. */
  exited: boolean;
  /** Set while close() runs: events after it are not the agent's business. */
  closing: boolean;
  /** What was opened. */
  target: 'none' | 'launch' | 'attach' | 'core' | 'remote';
  /** The launch request's arguments, reused by restart. */
  launchArgs: Record<string, unknown> | undefined;
  /** Pid of the program, from the adapter's `process` event. */
  pid: number | undefined;
  /** Whether the program lives (between its `process` event and its exit). */
  live: boolean;
  /** Every program this debugger launched, for the sweep of what they forked (processTree.ts). */
  readonly launched: ProcessIdentity[];
  /** The thread of the latest stop: LLDB selects it, and frame-only selectors refer to it. */
  stopThread: number | undefined;
  /** Frames read at the current stop, by thread, from level 0 on. Cleared when the program runs. */
  readonly frames: Map<number, LldbFrame[]>;
  /** The frame handle LLDB has selected (a `scopes` request selects): REPL commands run there. */
  selectedFrame: number | undefined;
  pending: PendingRun;
  /** Whether the stop since the last resume was handled (lldb-dap reports one per thread). */
  stopReported: boolean;
  /** The last stop reported, to report again when a resume is refused (the program did not move). */
  lastStop: StopEvent | undefined;
  /** Set while our kill runs: its exit is reported as killed, not as an exit. */
  killing: boolean;
  /** The signal of the last stop: LLDB reports a death by it as an exit with its number. */
  lastSignal: { name: string; number: number } | undefined;
  /** Module handles to their paths (frames name their module by handle). */
  readonly modules: Map<string, string>;
  /** Source files LLDB named in frames: the ones sourceLines may read from disk. */
  readonly sourceFiles: Set<string>;
  /** Listeners for what LLDB prints on its console (an attach watches for its command's error). */
  readonly consoleWatchers: Set<(text: string) => void>;
}

export function initialState(): LldbState {
  return {
    exited: false,
    closing: false,
    target: 'none',
    launchArgs: undefined,
    pid: undefined,
    live: false,
    launched: [],
    stopThread: undefined,
    frames: new Map(),
    selectedFrame: undefined,
    pending: { kind: 'none' },
    stopReported: false,
    lastStop: undefined,
    killing: false,
    lastSignal: undefined,
    modules: new Map(),
    sourceFiles: new Set(),
    consoleWatchers: new Set(),
  };
}

export interface LldbRequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The channel and state the job modules work through. Inside, threads are lldb-dap's ids; the
 * front class turns them into the session's numbers (lldbThreadNumbers.ts) on the way out and back.
 */
export interface LldbContext {
  readonly options: LldbBackendOptions;
  readonly state: LldbState;
  readonly threadNumbers: LldbThreadNumbers;
  /** One request of the spec, with the backend's deadline and the cancel of a late one. */
  request<C extends DapCommand>(
    command: C,
    args: DapRequests[C]['arguments'],
    options?: LldbRequestOptions,
  ): Promise<NonNullable<DapRequests[C]['response']['body']>>;
  /** The next event of this name (or an error at the deadline, or when lldb-dap is gone). */
  nextEvent(name: string, timeoutMs: number): Promise<DebugProtocol.Event>;
  /**
   * An LLDB command through the REPL; its output. With a selector, the thread and frame are
   * selected first (missing parts: the stopped thread, frame 0); without one, LLDB's selection stays.
   */
  repl(command: string, selector?: FrameSelector, options?: LldbRequestOptions): Promise<string>;
  /** The adapter's handle of a frame at this stop (a frame alone means the stopped thread's). */
  frameId(selector: FrameSelector, signal?: AbortSignal): Promise<number>;
  /** Frames [from, to] of a thread at this stop, read once and kept until the program runs. */
  frames(threadId: number, from: number, to: number, signal?: AbortSignal): Promise<LldbFrame[]>;
  emit(event: BackendEvent | Promise<BackendEvent | undefined>): void;
  /** What LLDB printed on its own (logpoint output, warnings). */
  readonly console: OutputRing;
  readonly terminal: ProgramTerminal | undefined;
  /** Breakpoint numbers the backend set for itself (main, until, advance): their stop is `location-reached`. */
  readonly internalBreakpoints: Set<string>;
  /** Deletes the breakpoints the backend set for itself (at the stop one of them caused). */
  clearInternalBreakpoints(): Promise<void>;
  /** Runs the launched program again, stopped at its first instruction, under a new lldb-dap. */
  relaunch(signal?: AbortSignal): Promise<void>;
}
