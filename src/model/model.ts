// The typed model every layer above the protocols speaks. Backends produce it, the session
// reduces it, the server renders it. No debugger's field names appear here.

/** A frame of a stack, innermost first (level 0). */
export interface Frame {
  level: number;
  /** Program counter of the frame (hex). */
  address?: string;
  function?: string;
  /** File name as recorded in the debug info (often relative). */
  file?: string;
  /** Absolute path of the source file when the debugger resolved it. */
  fullname?: string;
  line?: number;
  /** The shared object the pc is in, for frames without debug info. */
  library?: string;
  args?: Variable[];
}

/** A named value: a local, an argument, a register, an evaluated expression. */
export interface Variable {
  name: string;
  value?: string;
  type?: string;
  /** True for function arguments when listed together with locals. */
  isArg?: boolean;
  /** Set when the value was cut to fit a limit. */
  truncated?: boolean;
}

export interface Thread {
  /** The debugger's thread number, as it shows it to people (GDB's global thread id). */
  id: number;
  /** What the OS calls it, e.g. "Thread 0x7ffff7d8a740 (LWP 1234)". */
  targetId?: string;
  /** The operating system's id of the thread (Linux: the LWP id), which lock owners are named by. */
  osThreadId?: number;
  name?: string;
  state: 'stopped' | 'running' | 'unknown';
  core?: number;
  /** The process (the backend's name for it) the thread belongs to. */
  group?: string;
  frame?: Frame;
}

export interface BreakpointLocation {
  id: string;
  enabled: boolean;
  address?: string;
  function?: string;
  file?: string;
  fullname?: string;
  line?: number;
}

export interface Breakpoint {
  /** "1", or "1.2" for one location of a multi-location breakpoint. */
  number: string;
  /** breakpoint, hw breakpoint, watchpoint, read watchpoint, acc watchpoint, catchpoint, dprintf… */
  type: string;
  enabled: boolean;
  temporary: boolean;
  /** Where it was asked for, as the user wrote it. */
  requested?: string;
  /** True while the location has not resolved (a pending breakpoint). */
  pending: boolean;
  condition?: string;
  ignoreCount?: number;
  hits: number;
  /** For watchpoints: the watched expression; for catchpoints: what is caught. */
  what?: string;
  /** For dprintf: the format and arguments. */
  script?: string[];
  thread?: number;
  address?: string;
  function?: string;
  file?: string;
  fullname?: string;
  line?: number;
  locations: BreakpointLocation[];
}

export interface SignalInfo {
  name: string;
  meaning: string;
}

/** Why the program stopped. */
export type StopReason =
  | 'breakpoint-hit'
  | 'watchpoint-trigger'
  | 'read-watchpoint-trigger'
  | 'access-watchpoint-trigger'
  | 'watchpoint-scope'
  | 'function-finished'
  | 'location-reached'
  | 'end-stepping-range'
  | 'signal-received'
  | 'solib-event'
  | 'fork'
  | 'vfork'
  | 'exec'
  | 'syscall-entry'
  | 'syscall-return'
  | 'no-history'
  | 'catchpoint'
  | 'unknown';

export interface WatchpointChange {
  expression: string;
  old?: string;
  new?: string;
  value?: string;
}

/**
 * An exception of the target's operating system behind a signal stop, when the debugger knows
 * more than the signal (Windows under Wine: the proxy says SIGSEGV for both an access violation
 * and a stack overflow; the exception code tells them apart).
 */
export interface TargetException {
  /** The system's code for it (Windows: an NTSTATUS such as 0xC0000005). */
  code: number;
  /** Its name: EXCEPTION_ACCESS_VIOLATION, EXCEPTION_STACK_OVERFLOW… */
  name: string;
  /** One line an agent can act on. */
  meaning: string;
  /** For a memory fault: what the faulting access did, and where (hex). */
  access?: 'read' | 'write' | 'execute';
  address?: string;
  /**
   * How access and address are known when not from the system's own record: from what, in words
   * ("the faulting instruction mov %edx,(%rax)", "the stack pointer"). Absent when not inferred.
   */
  inferredFrom?: string;
  /** True at the second stop for the same exception: no handler took it, continuing ends the program. */
  secondChance?: boolean;
}

export interface StopEvent {
  reason: StopReason;
  /** The reason text as the debugger gave it, when it is not one we know. */
  rawReason?: string;
  signal?: SignalInfo;
  /**
   * For SIGSEGV, SIGBUS, SIGFPE, SIGILL: the faulting address the kernel reported, or the one
   * inferred when `exception.inferredFrom` says so.
   */
  faultAddress?: string;
  /** The operating system's exception behind the signal, when the backend knows it. */
  exception?: TargetException;
  /** The kernel's si_code for the signal (SI_KERNEL 128: the address is not the real one). */
  signalCode?: number;
  /**
   * What the backend found out about a fault the kernel gave no address for (SI_KERNEL): the
   * address the faulting instruction accessed, through which register and value, and a fill
   * pattern the value is made of. `faultAddress` is then that decoded address.
   */
  faultNote?: string;
  threadId?: number;
  frame?: Frame;
  /** The breakpoint or watchpoint number that caused the stop. */
  breakpoint?: string;
  /** Whether the stop was at a temporary breakpoint that is now gone. */
  temporaryBreakpoint?: boolean;
  watch?: WatchpointChange;
  /** function-finished: the value returned and the history variable holding it. */
  returnValue?: string;
  returnVariable?: string;
  /** fork/vfork/exec/syscall catchpoints. */
  newPid?: number;
  newProgram?: string;
  syscall?: string;
  /** The process that stopped, when the session debugs several (a fork followed) or a child. */
  pid?: number;
  /** "all" in all-stop mode. */
  stoppedThreads?: 'all' | number[];
  /** True when the debugger is replaying recorded history rather than running live. */
  replaying?: boolean;
  /** Reverse or replayed execution reached an end of the recorded history. */
  history?: 'start' | 'end';
  /** What recording said about this stop, in plain words with what to do (a limit, an unsupported instruction). */
  recordNote?: string;
  /** rr: the position in the trace (event number and ticks of the current thread). */
  when?: { event?: number; ticks?: number };
}

export interface ExitEvent {
  /** The exit status when the program returned or called exit(). */
  code?: number;
  /** The signal that killed it, when it did not exit on its own. */
  signal?: SignalInfo;
  /** True when the debugger killed it on request. */
  killed?: boolean;
  /** Why it was killed when nobody asked: a run the debugger could not carry out (gdbErrorLoop.ts). */
  reason?: string;
  /** The process (the backend's name for it) that exited. */
  group?: string;
}

export interface Library {
  /** Path of the shared object on the target. */
  path: string;
  symbolsLoaded: boolean;
  /** Address ranges, [from, to) in hex. */
  ranges: { from: string; to: string }[];
  group?: string;
}

export interface Register {
  number: number;
  name: string;
  value: string;
}

export interface SourceLine {
  line: number;
  text: string;
}

export interface Instruction {
  address: string;
  function?: string;
  offset?: number;
  instruction: string;
  opcodes?: string;
  /** The source line the instruction belongs to, when asked for source. */
  line?: number;
  file?: string;
  /** Absolute path of that source file, when the debugger resolved it. */
  fullname?: string;
}

export interface MemoryBlock {
  /** Address of the first byte, hex. */
  address: string;
  /** Bytes read, as lowercase hex pairs. */
  hex: string;
  /** Bytes that could not be read at the end of the request. */
  unreadable?: number;
}
