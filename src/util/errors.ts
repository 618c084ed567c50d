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

/**
 * Why a backend refused or failed, finer than the code, for the layers above to act on without
 * reading a debugger's words (which stay in the message, for people).
 */
export type ErrorReason =
  /** The program has no `main` to stop at (stripped, or not C-like). */
  | 'no-main'
  /** Hardware breakpoints can be set only once the program runs. */
  | 'needs-running'
  /** The memory at the address cannot be read. */
  | 'unreadable'
  /** The raw-command policy refused the command. */
  | 'policy'
  /** The expression would change the program (a write, a call) where only reads are allowed. */
  | 'side-effect';

export interface DebuggerErrorOptions extends ErrorOptions {
  reason?: ErrorReason;
}

export class DebuggerError extends Error {
  readonly code: ErrorCode;
  /** Extra facts for the answer (the field at fault, the state, the limit…). */
  readonly details: Record<string, unknown> | undefined;
  readonly reason: ErrorReason | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: DebuggerErrorOptions) {
    super(message, options);
    this.name = 'DebuggerError';
    this.code = code;
    this.details = details;
    this.reason = options?.reason;
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
