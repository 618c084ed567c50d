// Trials of the chaos suite: a few in `npm test`, 20 in `npm run test:chaos` (CHAOS_TRIALS=20).
// Not a DBG_MCP_* name: the server refuses unknown variables of its own prefix, and some tests
// start it with this process's environment.

/** Whether this is the chaos run (`npm run test:chaos` sets CHAOS_TRIALS): the long versions. */
export function chaosRun(): boolean {
  return (process.env['CHAOS_TRIALS'] ?? '') !== '';
}

export function chaosTrials(fallback = 3): number {
  const raw = process.env['CHAOS_TRIALS'];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`CHAOS_TRIALS=${raw} is not a positive whole number`);
  return n;
}

/**
 * The moment of trial `i` of `n`, spread evenly over [0, spanMs): each trial hits the fault at
 * another point of the operation, and a failing trial can be replayed by its number.
 */
export function spread(i: number, n: number, spanMs: number): number {
  return n <= 1 ? 0 : Math.round((i * spanMs) / (n - 1));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
