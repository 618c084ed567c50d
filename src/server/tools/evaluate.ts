import * as z from 'zod/v4';
import type { FrameSelector } from '../../backends/debuggerBackend.js';
import { LIMITS } from '../../session/limits.js';
import type { EvaluationResult } from '../../session/operations/evaluation.js';
import { DebuggerError } from '../../util/errors.js';
import { observationIdOut, withObservation } from '../answers/observations.js';
import { defineSessionTool } from '../defineTool.js';
import { printable } from '../render.js';
import { frameLevel, line, sessionId, stopId, threadId } from '../schemas.js';
import { compact } from '../wire.js';

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

export const evaluationShape = z.object({
  expression: z.string(),
  value: z.string().optional().describe('Absent when the expression failed (see error).'),
  truncated: z.boolean().optional().describe('Present (true) when the value was cut at the value limit.'),
  note: z.string().optional().describe('Why the value is not in the format asked for.'),
  error: z.string().optional().describe("This expression's own error, in plain words."),
});

const output = z.object({
  assigned: z
    .object({
      target: z.string(),
      old: z.string().optional().describe('Absent when the value before could not be read.'),
      new: z.string(),
    })
    .optional()
    .describe('Present when assign was given.'),
  results: z.array(evaluationShape),
  observation_id: observationIdOut.optional(),
  session: z.looseObject({}),
});

export function renderEvaluation(r: EvaluationResult): string {
  const name = printable(r.expression);
  if (r.error !== undefined) return `${name}: error: ${printable(r.error)}`;
  const flags = [r.truncated ? 'cut' : '', r.note ?? ''].filter(Boolean);
  return `${name} = ${printable(r.value ?? '')}${flags.length ? ` (${flags.join('; ')})` : ''}`;
}

/** `name(` outside `$` functions and sizeof-like operators: what may be a call into the program. */
const CALL = /(?<![\w$])(?!(?:sizeof|alignof|_Alignof|typeof|decltype)\b)[A-Za-z_]\w*\s*\(/;

/**
 * With --inferior-calls on, a call in an expression runs in the program: the answer says it may
 * have changed the program. Undefined when no expression looks like a call, or calls are off.
 */
export function callWarning(expressions: readonly string[], callsOn: boolean): string | undefined {
  if (!callsOn || !expressions.some((e) => CALL.test(e))) return undefined;
  return 'inferior calls are on (--inferior-calls): a function called in an expression runs in the program and may have changed it (memory, files, other threads)';
}

/**
 * An evaluation past the command deadline blocked its session that long (GDB evaluates one thing
 * at a time): the answer says so, and what usually does it. GDB was interrupted (gdbBackend.ts).
 */
export function evaluationTimeout(e: unknown, deadlineMs: number): unknown {
  if (!(e instanceof DebuggerError) || e.code !== 'timeout') return e;
  return new DebuggerError(
    'timeout',
    `the evaluation ran past the ${deadlineMs} ms command deadline and blocked this session meanwhile; the debugger was interrupted. A regular expression with nested repetition ($_regex), a huge array or a call that does not return does this: simplify the expression (${e.message})`,
    e.details,
  );
}

export function selectorOf(args: { thread?: number | undefined; frame?: number | undefined }): FrameSelector {
  return compact({ threadId: args.thread, frame: args.frame });
}

export const evaluateTool = defineSessionTool({
  name: 'dbg_evaluate',
  title: 'Evaluate',
  description: `C expressions (x, p->f, *p@4, $rip) in a thread and frame, each to a value (cut at ${LIMITS.valueChars} chars) or its own error. assign writes first and answers old and new. Calls like f(1) need --inferior-calls on.`,
  input,
  output,
  requires: ['stopped', 'loaded'],
  doing: 'evaluate expressions',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    if (args.expressions === undefined && args.assign === undefined) {
      throw new DebuggerError('invalid_argument', 'give expressions to evaluate, or assign, or both', {
        fields: ['expressions'],
      });
    }
    const selector = selectorOf(args);
    const format = args.format ?? 'natural';
    const expressions = args.expressions ?? [];
    const warning = callWarning(
      [...expressions, ...(args.assign ? [args.assign.target, args.assign.value] : [])],
      ctx.config.allowInferiorCalls,
    );
    const warnings = warning ? [warning] : [];
    if (!args.assign) {
      const results = await ctx.session
        .evaluate(expressions, selector, format, ctx.call({ doing: 'evaluate expressions', stopId: args.stop_id }))
        .catch((e: unknown) => {
          throw evaluationTimeout(e, ctx.config.commandTimeoutMs);
        });
      return {
        ...withObservation(ctx.session.observations, results, {
          data: { results: results.map(compact) },
          text: results.map(renderEvaluation).join('\n'),
        }),
        session: ctx.session,
        warnings,
      };
    }
    const both = await ctx.session
      .assign(
        args.assign,
        expressions,
        selector,
        format,
        ctx.call({ doing: 'assign and evaluate', stopId: args.stop_id }),
      )
      .catch((e: unknown) => {
        throw evaluationTimeout(e, ctx.config.commandTimeoutMs);
      });
    const { assigned, results } = both;
    const lines = [
      `assigned ${printable(assigned.target)} = ${printable(assigned.new)}${assigned.old === undefined ? '' : ` (was ${printable(assigned.old)})`}`,
      ...results.map(renderEvaluation),
    ];
    return {
      ...withObservation(ctx.session.observations, both, {
        data: { assigned, results: results.map(compact) },
        text: lines.join('\n'),
      }),
      session: ctx.session,
      warnings,
    };
  },
});
