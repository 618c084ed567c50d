import * as z from 'zod/v4';
import type { DebuggerBackend, FrameSelector, ValueFormat } from '../../backends/debuggerBackend.js';
import { cut, LIMITS } from '../../session/limits.js';
import { DebuggerError, toDebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { printable } from '../render.js';
import { frameLevel, line, sessionId, stopId, threadId } from '../schemas.js';
import { compact, type Wire } from '../wire.js';

export const FORMATS = ['natural', 'hex', 'decimal', 'octal', 'binary'] as const;

export const expressionList = z.array(line(4096)).min(1).max(16).describe('C expressions.');
export const valueFormat = z.enum(FORMATS).describe('Scalars only.');

const input = z.strictObject({
  session_id: sessionId,
  expressions: expressionList.optional(),
  thread: threadId.optional(),
  frame: frameLevel.optional(),
  format: valueFormat.optional(),
  assign: z
    .strictObject({
      target: line(4096).describe('An lvalue.'),
      value: line(4096).describe('Its new value.'),
    })
    .optional()
    .describe('Destructive.'),
  stop_id: stopId.optional(),
});

const output = z.object({
  assigned: z.looseObject({}).optional(),
  results: z.array(z.looseObject({})),
  session: z.looseObject({}),
});

/** GDB's refusals of an inferior call, said with what to do about them. */
function explain(message: string): string {
  if (/may-call-functions is off|Cannot call functions in the program/.test(message)) {
    return 'calling functions of the program is disabled on this server (start it with --inferior-calls on); read the values the call would use instead';
  }
  if (/Couldn't write extended state status/.test(message)) {
    return `the function call failed: gdb cannot restore the CPU's extended register state on this machine ("Couldn't write extended state status"), so calls into the program do not work here; read values instead`;
  }
  // GDB reads a value whole before printing any of it, and refuses one past max-value-size (64 KiB).
  const big = /value requires (\d+) bytes, which is more than max-value-size/.exec(message);
  if (big) {
    return `the value is ${big[1]} bytes, more than GDB reads at once: read a slice (arr[0]@200, *p@200) or use dbg_memory`;
  }
  return message;
}

function errorOf(e: unknown): string {
  const err = toDebuggerError(e, 'debugger_error');
  // Aborts, timeouts and a dead debugger end the whole call; a bad expression is only its own.
  if (err.code !== 'debugger_error' && err.code !== 'invalid_argument') throw err;
  return explain(err.message);
}

/** The value as shown: cut at the value limit. */
function bounded(value: string): { value: string; truncated?: true } {
  const c = cut(value, LIMITS.valueChars);
  return c.truncated ? { value: c.text, truncated: true } : { value: c.text };
}

/** An aggregate read through a variable object in a number format: "{...}" or "[4]". */
const AGGREGATE = /^(\{\.\.\.\}|\[\d+\])$/;

async function evaluateOne(
  backend: DebuggerBackend,
  expression: string,
  selector: FrameSelector,
  format: ValueFormat,
  signal: AbortSignal | undefined,
): Promise<Wire> {
  try {
    let value = await backend.evaluate(expression, { ...selector, format }, signal);
    let note: string | undefined;
    if (format !== 'natural' && AGGREGATE.test(value)) {
      // Number formats apply to scalars; show an aggregate whole rather than its size.
      value = await backend.evaluate(expression, selector, signal);
      note = `${format} applies to scalars; shown in natural form`;
    }
    return compact({ expression, ...bounded(value), note });
  } catch (e) {
    return { expression, error: errorOf(e) };
  }
}

/** Evaluates each expression separately in one thread/frame: the core of dbg_evaluate and dbg_batch. */
export async function evaluateExpressions(
  backend: DebuggerBackend,
  expressions: readonly string[],
  selector: FrameSelector,
  format: ValueFormat,
  signal: AbortSignal | undefined,
): Promise<{ results: Wire[]; lines: string[] }> {
  const results: Wire[] = [];
  for (const expression of expressions) results.push(await evaluateOne(backend, expression, selector, format, signal));
  return { results, lines: results.map(renderResult) };
}

function renderResult(r: Wire): string {
  const name = printable(String(r['expression']));
  if (r['error'] !== undefined) return `${name}: error: ${printable(String(r['error']))}`;
  const flags = [r['truncated'] ? 'cut' : '', r['note'] ? String(r['note']) : ''].filter(Boolean);
  return `${name} = ${printable(String(r['value']))}${flags.length ? ` (${flags.join('; ')})` : ''}`;
}

export const evaluateTool = defineTool({
  name: 'dbg_evaluate',
  title: 'Evaluate',
  description: `C expressions (x, p->f, *p@4, $rip) in a thread and frame, each to a value (cut at ${LIMITS.valueChars} chars) or its own error. assign writes first and answers old and new. Calls like f(1) need --inferior-calls on.`,
  input,
  output,
  requires: ['stopped', 'loaded'],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    if (args.expressions === undefined && args.assign === undefined) {
      throw new DebuggerError('invalid_argument', 'give expressions to evaluate, or assign, or both', {
        fields: ['expressions'],
      });
    }
    const session = ctx.sessions.get(args.session_id);
    const selector: FrameSelector = {
      ...(args.thread !== undefined ? { threadId: args.thread } : {}),
      ...(args.frame !== undefined ? { frame: args.frame } : {}),
    };
    const format = args.format ?? 'natural';
    // An assignment is bound to a frame of this stop just as a read is, so it runs as a query.
    const answer = await session.query(
      ['stopped', 'loaded'],
      args.assign ? 'assign and evaluate' : 'evaluate expressions',
      async (backend, signal) => {
        let assigned: Wire | undefined;
        const lines: string[] = [];
        if (args.assign) {
          const { target, value } = args.assign;
          const before = await backend.evaluate(target, selector, signal).catch(() => undefined);
          let after: string;
          try {
            after = await backend.assign(target, value, selector, signal);
          } catch (e) {
            throw new DebuggerError('debugger_error', `could not assign ${target}: ${errorOf(e)}`);
          }
          assigned = compact({
            target,
            old: before === undefined ? undefined : bounded(before).value,
            new: bounded(after).value,
          });
          lines.push(
            `assigned ${printable(target)} = ${printable(String(assigned['new']))}${before === undefined ? '' : ` (was ${printable(String(assigned['old']))})`}`,
          );
        }
        const { results, lines: shown } = await evaluateExpressions(
          backend,
          args.expressions ?? [],
          selector,
          format,
          signal,
        );
        return { assigned, results, lines: [...lines, ...shown] };
      },
      { ...(args.stop_id !== undefined ? { stopId: args.stop_id } : {}), signal: ctx.signal },
    );
    return {
      data: compact({ assigned: answer.assigned, results: answer.results }),
      text: answer.lines.join('\n'),
      session,
    };
  },
});
