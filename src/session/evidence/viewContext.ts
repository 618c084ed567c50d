// What every view is gathered with: the backend (read through its interface only), the session's
// snapshot at the stop, the cancel signal, and the list of parts that could not be gathered.

import type { DebuggerBackend } from '../../backends/debuggerBackend.js';
import type { SessionSnapshot } from '../sessionState.js';

export interface ViewContext {
  backend: DebuggerBackend;
  snapshot: SessionSnapshot;
  signal: AbortSignal | undefined;
  failures: string[];
}

/** Runs one part of a view; a failure is noted in plain words and the view goes on without it. */
export async function attempt<T>(ctx: ViewContext, what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    ctx.failures.push(`${what}: ${(e as Error).message}`);
    return undefined;
  }
}
