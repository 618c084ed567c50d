// Expressions at a stop: each evaluated on its own (one bad expression is its own error, not the
// call's), values cut at their bound; and the assignment that goes first when one is asked for.

import type { DebuggerBackend, FrameSelector, ValueFormat } from '../../backends/debuggerBackend.js';
import { DebuggerError, toDebuggerError } from '../../util/errors.js';
import { cut, LIMITS } from '../limits.js';

export interface EvaluationResult {
  expression: string;
  value?: string;
  truncated?: true;
  /** Why the value is not in the format asked for. */
  note?: string;
  /** The debugger's refusal of this expression, in plain words. */
  error?: string;
}

export interface Assignment {
  target: string;
  /** The value before, when it could be read. */
  old?: string;
  new: string;
}

/** An error that belongs to one expression; anything else (a timeout, a dead debugger) ends the call. */
function errorOf(e: unknown): string {
  const err = toDebuggerError(e, 'debugger_error');
  if (err.code !== 'debugger_error' && err.code !== 'invalid_argument') throw err;
  return err.message;
}

/** The value as shown: cut at the value limit. */
export function boundedValue(value: string): { value: string; truncated?: true } {
  const c = cut(value, LIMITS.valueChars);
  return c.truncated ? { value: c.text, truncated: true } : { value: c.text };
}

/** An aggregate read in a number format comes back as its size: "{...}" or "[4]". */
const AGGREGATE = /^(\{\.\.\.\}|\[\d+\])$/;

async function evaluateOne(
  backend: DebuggerBackend,
  expression: string,
  selector: FrameSelector,
  format: ValueFormat,
  signal: AbortSignal | undefined,
): Promise<EvaluationResult> {
  try {
    let value = await backend.evaluate(expression, { ...selector, format }, signal);
    let note: string | undefined;
    if (format !== 'natural' && AGGREGATE.test(value)) {
      // Number formats apply to scalars; show an aggregate whole rather than its size.
      value = await backend.evaluate(expression, selector, signal);
      note = `${format} applies to scalars; shown in natural form`;
    }
    return { expression, ...boundedValue(value), ...(note ? { note } : {}) };
  } catch (e) {
    return { expression, error: errorOf(e) };
  }
}

export async function evaluateExpressions(
  backend: DebuggerBackend,
  expressions: readonly string[],
  selector: FrameSelector,
  format: ValueFormat,
  signal: AbortSignal | undefined,
): Promise<EvaluationResult[]> {
  const results: EvaluationResult[] = [];
  for (const expression of expressions) results.push(await evaluateOne(backend, expression, selector, format, signal));
  return results;
}

export async function assignValue(
  backend: DebuggerBackend,
  target: string,
  value: string,
  selector: FrameSelector,
  signal: AbortSignal | undefined,
): Promise<Assignment> {
  const before = await backend.evaluate(target, selector, signal).catch(() => undefined);
  let after: string;
  try {
    after = await backend.assign(target, value, selector, signal);
  } catch (e) {
    throw new DebuggerError('debugger_error', `could not assign ${target}: ${errorOf(e)}`);
  }
  return {
    target,
    ...(before === undefined ? {} : { old: boundedValue(before).value }),
    new: boundedValue(after).value,
  };
}
