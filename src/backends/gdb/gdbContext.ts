// What the parts of the GDB backend share: its options, its mutable state, and the channel to gdb.
// GdbBackend (the front class) owns one of each and hands it to the job modules (events, run
// control, breakpoints, inspection, memory, source, targets), which are functions over it.

import type { Frame, StopEvent } from '../../model/model.js';
import type { OutputRing } from '../../process/outputRing.js';
import type { ProcessIdentity } from '../../process/processTree.js';
import type { ProgramTerminal } from '../../process/programTerminal.js';
import type { MiFrameOptions, MiSender } from '../../protocols/mi/commands/miSender.js';
import type { MiCommandResult, MiSendOptions, TranscriptWriter } from '../../protocols/mi/miConnection.js';
import type { BackendEvent, FrameSelector } from '../debuggerBackend.js';

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
  /** Why this gdb was chosen, for the first warning of the session ("… with gdb-multiarch"). */
  note?: string;
  /** Told how many leftover processes a close's sweep killed (0 included). */
  onSweep?: (killed: number) => void;
}

export interface GdbState {
  /** Set once gdb has exited: nothing more will be answered. */
  exited: boolean;
  /** Pids of the programs GDB runs now, by inferior ("i1" → 1234). */
  readonly inferiorPids: Map<string, number>;
  /** Whether GDB answered the latest -exec-interrupt (it reads its input: it is not stuck). */
  interruptAnswered: boolean;
  /** Every program this debugger started, for the sweep of what they forked (processTree.ts). */
  readonly launched: ProcessIdentity[];
  registerNames: string[] | undefined;
  /** The target is attached: closing detaches rather than kills. */
  attached: boolean;
  /** False for cores and remote targets: their pids are not processes of this machine to signal. */
  pidsAreLocal: boolean;
  /** The thread of the latest stop: GDB selects it, and frame-only selectors refer to it. */
  stopThread: number;
  /** Where the console ring stood when the program last resumed: what GDB said since is about this run. */
  consoleAtResume: number;
  /** Source files GDB named in frames (`fullname`): the ones sourceLines may read from disk. */
  readonly sourceFiles: Set<string>;
  /** Whether GDB's process record is on (=record-started … =record-stopped). */
  recording: boolean;
  /** Whether the latest resume ran backwards: it decides which end of history a stop is at. */
  reversing: boolean;
  /** Listeners for every console and log line, captured or not (gdbTargets.ts watches the link). */
  readonly textWatchers: Set<(text: string) => void>;
  /** Target-specific facts read at each stop before it is reported (rr: the trace position). */
  readonly stopProbes: ((stop: StopEvent) => Promise<void>)[];
  /** Whether hardware watchpoints are on in GDB (can-use-hw-watchpoints). */
  hardwareWatchpoints: boolean;
}

export function initialState(): GdbState {
  return {
    exited: false,
    inferiorPids: new Map(),
    interruptAnswered: false,
    launched: [],
    registerNames: undefined,
    attached: false,
    pidsAreLocal: true,
    stopThread: 1,
    consoleAtResume: 0,
    sourceFiles: new Set(),
    recording: false,
    reversing: false,
    textWatchers: new Set(),
    stopProbes: [],
    hardwareWatchpoints: true,
  };
}

/** The channel and state the job modules work through. */
export interface GdbContext {
  readonly options: GdbBackendOptions;
  readonly state: GdbState;
  /** MI commands, with the rescue of a command stuck past its deadline (gdbBackend.ts). */
  readonly mi: MiSender;
  /** A CLI command through MI, in a thread and frame if given. */
  cli(text: string, options?: MiSendOptions, selector?: FrameSelector): Promise<MiCommandResult>;
  /** MI's --thread/--frame for a selector (a frame alone means the stopped thread's). */
  frame(selector: FrameSelector): MiFrameOptions;
  emit(event: BackendEvent | Promise<BackendEvent | undefined>): void;
  /** What GDB printed on its own (dprintf output, warnings). */
  readonly console: OutputRing;
  readonly terminal: ProgramTerminal | undefined;
  /** Remembers the source files GDB resolved for frames (sourceLines reads only those). */
  noteSources(frames: readonly Frame[]): void;
}
