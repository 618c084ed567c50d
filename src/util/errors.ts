// One error type for everything an agent can act on, with the contract's stable codes.

export type ErrorCode =
  | 'invalid_argument'
  | 'no_session'
  | 'wrong_state'
  | 'timeout'
  | 'backend_unavailable'
  | 'debugger_error'
  | 'stale_context'
  | 'limit_exceeded'
  | 'internal';

export class DebuggerError extends Error {
  readonly code: ErrorCode;
  /** Extra facts for the answer (the field at fault, the state, the limit…). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DebuggerError';
    this.code = code;
    this.details = details;
  }
}

export function isDebuggerError(e: unknown): e is DebuggerError {
  return e instanceof DebuggerError;
}

/** Wrap anything thrown into a DebuggerError, keeping a DebuggerError as it is. */
export function toDebuggerError(e: unknown, fallback: ErrorCode = 'internal'): DebuggerError {
  if (e instanceof DebuggerError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new DebuggerError(fallback, message, undefined, { cause: e });
}
