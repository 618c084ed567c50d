// The shapes of the stop-bound views, as the session gathers them (the wire form is the server's).

import type { RuntimeReport } from '../../backends/debuggerBackend.js';
import type {
  Frame,
  Instruction,
  Library,
  Register,
  SourceLine,
  StopEvent,
  Thread,
  Variable,
} from '../../model/model.js';

export const VIEW_NAMES = [
  'stop',
  'crash',
  'stack',
  'threads',
  'frame',
  'locals',
  'args',
  'registers',
  'source',
  'libraries',
] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

export interface ViewRequest {
  view: ViewName;
  threadId?: number;
  frame?: number;
  /** Frames per stack (stack view: page size; threads view: frames per thread). */
  stackDepth?: number;
  /** First frame level of a stack page. */
  from?: number;
  includeLocals?: boolean;
  /** Source view: a file and a line to centre on (default: the selected frame's). */
  file?: string;
  line?: number;
  /** Registers view: names to show (default: the general registers). */
  registers?: readonly string[];
}

/** A run of library frames shown as one line so the user's code stands out. */
export interface FoldedFrames {
  folded: number;
  fromLevel: number;
  toLevel: number;
  library?: string;
  functions: string[];
}
/**
 * A run of frames of the same function at the same line (recursion), shown as one line with a
 * count: `frame` is the outermost of them (the recursion's entry), with its arguments.
 */
export interface RepeatedFrames {
  repeated: number;
  fromLevel: number;
  toLevel: number;
  frame: Frame;
}
export type StackEntry = Frame | FoldedFrames | RepeatedFrames;

export interface SourceWindow {
  file: string;
  line: number;
  lines: SourceLine[];
}

export interface FrameVariables {
  level: number;
  function?: string;
  variables: Variable[];
  /** Variables left out past the per-frame limit. */
  omitted?: number;
}

export interface StopViewData {
  view: 'stop';
  stop: StopEvent;
  summary: string;
  /**
   * For a stop inside library code (a `catch throw` in `__cxa_throw`, a breakpoint on
   * `rust_panic`, an interrupt in `read`): the frames from #1 down to the first of the program's
   * own, whose source is then the view's source.
   */
  callers?: Frame[];
  source?: SourceWindow;
}

export interface CrashViewData {
  view: 'crash';
  signal?: { name: string; meaning: string };
  faultAddress?: string;
  /** The kernel's si_code for the signal. */
  signalCode?: number;
  /** For a fault the kernel gave no address for: the bad pointer, decoded by the backend. */
  faultNote?: string;
  hint: string;
  /** A sanitizer's report the program printed before it stopped (the SIGABRT of abort_on_error). */
  report?: RuntimeReport;
  threadId?: number;
  stack: StackEntry[];
  /** Total depth when the stack is deeper than shown. */
  depth?: number;
  /** The stack is at least `depth` frames deep: counting stopped there (LIMITS.crashDepthProbe). */
  depthAtLeast?: boolean;
  locals: FrameVariables[];
  source?: SourceWindow;
  instruction?: Instruction;
  /** The last bytes the program printed (assert text, glibc's heap messages). */
  outputTail?: string;
  /** The crashed process, when the session debugs several (a child that crashed). */
  pid?: number;
}

export interface StackViewData {
  view: 'stack';
  threadId?: number;
  from: number;
  frames: Frame[];
  more: boolean;
}

export interface ThreadEntry extends Thread {
  /** The thread's process, when the session debugs several (forks followed). */
  pid?: number;
  stack?: StackEntry[];
  /** What the thread waits for, read from its stack: mutex, condition, join, sleep, io, … */
  waiting?: string;
  locals?: FrameVariables;
}

export interface ThreadsViewData {
  view: 'threads';
  currentThreadId?: number;
  threads: ThreadEntry[];
  total: number;
  more: boolean;
  hint?: string;
}

export interface FrameViewData {
  view: 'frame';
  threadId?: number;
  frame: Frame;
  locals: Variable[];
  source?: SourceWindow;
}

export interface VariablesViewData {
  view: 'locals' | 'args';
  threadId?: number;
  frame: number;
  variables: Variable[];
  omitted?: number;
}

export interface RegistersViewData {
  view: 'registers';
  threadId?: number;
  frame: number;
  registers: Register[];
}

export interface SourceViewData {
  view: 'source';
  source: SourceWindow;
}

export interface LibrariesViewData {
  view: 'libraries';
  libraries: Library[];
  total: number;
}

export type ViewData =
  | StopViewData
  | CrashViewData
  | StackViewData
  | ThreadsViewData
  | FrameViewData
  | VariablesViewData
  | RegistersViewData
  | SourceViewData
  | LibrariesViewData;

export interface ViewOutcome {
  data?: ViewData;
  /** Parts that could not be gathered, in plain words. */
  failures: string[];
  /** The observation it is kept as (session/observations.ts). */
  observationId?: string;
  /** Served from that observation, gathered earlier at this stop: no debugger command. */
  served?: boolean;
}
