// Waiting with a deadline and an AbortSignal, the two ways every wait in this code ends.

import { DebuggerError } from './errors.js';

/** Resolves after ms, or rejects when signal aborts. The timer never keeps the process alive. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    timer.unref();
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortError(signal: AbortSignal | undefined): DebuggerError {
  const reason: unknown = signal?.reason;
  if (reason instanceof DebuggerError) return reason;
  return new DebuggerError('timeout', reason instanceof Error ? reason.message : 'the request was cancelled');
}
