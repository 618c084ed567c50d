// Types of scripts/leakCheck.mjs, for the TypeScript that imports it (test/helpers/globalSetup.ts, leakSetup.ts).

/**
 * How long a process may take to finish exiting before it counts as left behind. The check's own
 * test shortens it (DBG_MCP_LEAK_GRACE_MS) for a run whose leak is certain, not exiting.
 */
export declare const EXIT_GRACE_MS: number;
export interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  /** Clock ticks after boot (field 22 of /proc/PID/stat). */
  start: number;
  comm: string;
}
export declare function commandLine(pid: number): string;
/** Start time of `pid` in clock ticks after boot (0 when it is gone). */
export declare function startTicks(pid?: number): number;
/** Clock ticks after boot, now. */
export declare function nowTicks(): number;
/** A start time in ticks as a wall-clock ISO time. */
export declare function wallTime(ticks: number): string;
export interface LeakScope {
  /** The process whose descendants are the run's (or the file's): vitest main, or a worker. */
  root: number;
  /** The checkout: a process outside the tree is the run's only if it points under here. */
  checkout: string;
  /** Processes whose command line names this directory are vitest's own (its workers), not leaks. */
  machinery: string;
  /** Only processes started at or after this many ticks after boot count. */
  since: number;
  /**
   * Whether processes out of the tree count (default true). A file's own check leaves them to the
   * run's when another file ran beside it: an orphan of the checkout could be either's.
   */
  orphans?: boolean;
}
export interface Leak {
  pid: number;
  command: string;
  start: number;
  how: 'descendant' | 'orphan';
}
/** What in `scope` is alive now. */
export declare function leaksNow(scope: LeakScope): Leak[];
/**
 * The scope of this checkout's run. DBG_MCP_LEAK_CHECKOUT names another directory whose programs
 * count as the run's: the check's own test leaks a program from a directory of its own, so that
 * what the enclosing run has out of the tree at that moment is not seen as the inner run's.
 */
export declare function runScope(repoRoot: string, root: number, since: number): LeakScope;
/** Polls until nothing in `scope` is alive, or `graceMs` passed; answers what is still alive. */
export declare function leaksAfterGrace(scope: LeakScope, graceMs?: number): Promise<Leak[]>;
export declare function killAll(leaks: readonly Leak[]): void;
export interface FileSpan {
  file: string;
  from: number;
  to: number;
}
export declare function logFileEvent(log: string, event: 'start' | 'end', file: string): void;
export declare function readSpans(log: string): FileSpan[];
/** Whether a file other than `file` ran at some time from `since` until now. */
export declare function othersRan(spans: readonly FileSpan[], file: string, since: number): boolean;
/** The test files that were running when a process started at `ticks` (a tick either side). */
export declare function filesRunningAt(spans: readonly FileSpan[], ticks: number): string[];
/** One line per leak: pid, command line, start time and what was running when it started. */
export declare function describeLeaks(leaks: readonly Leak[], spans?: readonly FileSpan[]): string[];
