// Documented bounds of every answer. The tool docs quote these numbers; change them together.

export const LIMITS = {
  /** Observations kept per session (the oldest dropped first), and their bytes (JSON characters). */
  observationsPerSession: 1000,
  observationBytesPerSession: 8 * 1024 * 1024,
  /** History entries (calls, stops, observations) kept per session, the oldest dropped first; per page at most. */
  historyPerSession: 5000,
  historyPage: 200,
  /** Closed sessions whose observations are kept for dbg_inspect observation_id, and their bytes in all. */
  closedSessionsKept: 32,
  closedObservationBytes: 32 * 1024 * 1024,
  /** Frames in one stack page by default, and at most. */
  stackDepthDefault: 16,
  stackDepthMax: 200,
  /** Frames of the crash view's backtrace. */
  crashStackDepth: 12,
  /**
   * Frames the crash view counts at most when the stack is deeper than it shows. Counting unwinds
   * every frame (measured: 5.2 s for 100,000 frames, about 50 µs each), so the count stops here.
   */
  crashDepthProbe: 1000,
  /** Threads listed per page by default, and at most. */
  threadsPageDefault: 32,
  threadsPageMax: 256,
  /** Frames shown per thread in the threads view by default. */
  threadStackDefault: 4,
  /** Variables listed per frame. */
  variablesMax: 32,
  /** Characters of one value before it is cut. */
  valueChars: 300,
  /** Source lines each side of the line of interest. */
  sourceContext: 3,
  sourceLinesMax: 200,
  /** Bytes of program output quoted by the crash view. */
  outputTailBytes: 600,
  /** Bytes of program output per dbg_io read by default, and at most. */
  ioReadDefault: 8 * 1024,
  ioReadMax: 64 * 1024,
  /** Bytes per memory read, at most. */
  memoryReadMax: 4096,
  /** Instructions per disassembly by default, and at most. */
  disassembleDefault: 24,
  disassembleMax: 400,
  /** Characters of console output of one raw command. */
  commandOutputMax: 16 * 1024,
  /** Libraries listed. */
  librariesMax: 200,
} as const;

/** A value cut to `max` characters, with a flag saying whether it was. */
export function cut(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, max)}…`, truncated: true };
}
