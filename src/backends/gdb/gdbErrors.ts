// GDB's error texts, read here and nowhere else: each becomes a DebuggerError whose message says
// what happened in plain words and what to do, with a reason code the layers above may act on.

import { DebuggerError } from '../../util/errors.js';

/** A failed read of memory ("Cannot access memory at address 0x0"). */
export function isUnreadable(e: unknown): boolean {
  return e instanceof DebuggerError && /Unable to read memory|Cannot access memory/.test(e.message);
}

/** Refusals of an expression, said with what to do about them; other errors pass unchanged. */
export function explainEvaluation(e: unknown): unknown {
  if (!(e instanceof DebuggerError)) return e;
  const said = e.message;
  let message: string | undefined;
  let reason: 'side-effect' | undefined;
  if (/may-call-functions is off|Cannot call functions in the program/.test(said)) {
    message =
      'calling functions of the program is disabled on this server (start it with --inferior-calls on); read the values the call would use instead';
    reason = 'side-effect';
  } else if (/Writing to (memory|registers) is not allowed/.test(said)) {
    message =
      'this expression would change the program (a write to memory or registers): only dbg_evaluate assign changes values';
    reason = 'side-effect';
  } else if (/Couldn't write extended state status/.test(said)) {
    message = `the function call failed: gdb cannot restore the CPU's extended register state on this machine ("Couldn't write extended state status"), so calls into the program do not work here; read values instead`;
  } else {
    // GDB reads a value whole before printing any of it, and refuses one past max-value-size (64 KiB).
    const big = /value requires (\d+) bytes, which is more than max-value-size/.exec(said);
    if (big) {
      message = `the value is ${big[1]} bytes, more than GDB reads at once: read a slice (arr[0]@200, *p@200) or use dbg_memory`;
    }
  }
  if (message === undefined) return e;
  return new DebuggerError(e.code, message, e.details, { cause: e, ...(reason ? { reason } : {}) });
}

/** GDB's refusals of a breakpoint, with what to do instead. */
export function explainBreakpointFailure(e: unknown): unknown {
  if (e instanceof DebuggerError && /No hardware breakpoint support/.test(e.message)) {
    return new DebuggerError(
      'wrong_state',
      'hardware breakpoints can be set only once the program runs: start it (dbg_start stop=main), then set this',
      e.details,
      { cause: e, reason: 'needs-running' },
    );
  }
  return e;
}

/** `-exec-run --start` on a program without `main`. */
export function explainStartFailure(e: unknown): unknown {
  if (e instanceof DebuggerError && /main|symbol/i.test(e.message)) {
    return new DebuggerError(e.code, e.message, e.details, { cause: e, reason: 'no-main' });
  }
  return e;
}
