import * as z from 'zod/v4';
import { REVERSE_ACTIONS, type RunOutcome } from '../../session/session.js';
import { DebuggerError } from '../../util/errors.js';
import { defineSessionTool, type SessionToolContext } from '../defineTool.js';
import { parseLocation } from '../locations.js';
import { includeLocals, inspectPlan, line, onTimeout, sessionId, stackDepth, threadId, timeoutMs } from '../schemas.js';
import { originShape, originWire, renderOrigin } from './originAnswer.js';
import { type PlanOptions, planOf, runAnswer, runOutputFields } from './runAnswer.js';
import {
  type OperationContext,
  operationIdInput,
  operationIdOutput,
  operationProgress,
  waitForOperation,
  withOperation,
} from './runOperation.js';

const ACTIONS = [
  'continue',
  'next',
  'step',
  'stepi',
  'nexti',
  'finish',
  'until',
  'advance',
  'jump',
  'interrupt',
  'wait',
  'kill',
  'restart',
  'run',
  'record_start',
  'record_stop',
  'origin',
  ...REVERSE_ACTIONS,
] as const;

const input = z.strictObject({
  session_id: sessionId,
  action: z.enum(ACTIONS).describe('until/advance/jump take location. origin: stop at the last write to the value.'),
  expression: line(1024).optional().describe('origin: the value (default: what the stop is about).'),
  count: z.number().int().min(1).max(10_000).optional().describe('Repeat a step.'),
  thread: threadId.optional(),
  location: line(1024).optional().describe('file.c:42, func or *ADDR.'),
  timeout_ms: timeoutMs.optional(),
  on_timeout: onTimeout.optional().describe('Default: return.'),
  inspect: inspectPlan.optional(),
  stack_depth: stackDepth.optional(),
  include_locals: includeLocals.optional(),
  operation_id: operationIdInput.optional(),
});

const output = z.object({
  ...runOutputFields,
  origin: originShape.optional().describe('action=origin only.'),
  operation_id: operationIdOutput,
  session: z.looseObject({}),
});

export const runTool = defineSessionTool({
  name: 'dbg_run',
  title: 'Run control',
  description:
    'Moves the program, waits up to timeout_ms for the next stop or exit, gathers the inspect plan. At the deadline: running with an operation_id (wait with it later), unless on_timeout=interrupt. interrupt never waits behind other calls. reverse_* need recording (or rr). origin: re-runs the program to the last write to the value the stop is about (or expression) and stops there.',
  input,
  output,
  // Each action has its own states; run control checks them.
  requires: [],
  doing: 'control the run',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const session = ctx.session;
    if (args.operation_id !== undefined) {
      if (args.action !== 'wait') {
        throw new DebuggerError('invalid_argument', 'operation_id: goes with action=wait', { field: 'operation_id' });
      }
      return waitForOperation(session, { ...args, operation_id: args.operation_id }, ctx);
    }
    if (args.expression !== undefined && args.action !== 'origin') {
      throw new DebuggerError('invalid_argument', 'expression: goes with action=origin', { field: 'expression' });
    }
    const cursor = session.outputEnd ?? 0;
    if (args.action === 'origin') return originRun(args, ctx, planOf(args));
    const plan = { ...planOf(args), ...(args.action === 'interrupt' ? { interrupted: true } : {}) };
    // Registered before the wait, so its id is in the progress notes: a client whose answer is
    // lost (a dropped connection, a cancel) still knows what to read later.
    const context: OperationContext = { plan, outputCursor: cursor };
    const op = session.operations.begin(args.action, context);
    let outcome: RunOutcome;
    try {
      outcome = await session.run(
        {
          action: args.action,
          options: {
            ...(args.count !== undefined ? { count: args.count } : {}),
            ...(args.thread !== undefined ? { threadId: args.thread } : {}),
            ...(args.location !== undefined ? { location: parseLocation(args.location) } : {}),
          },
          timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
          onTimeout: args.on_timeout ?? 'return',
          onProgress: operationProgress(ctx, op.id),
        },
        ctx.signal,
      );
    } catch (e) {
      session.operations.drop(op.id);
      throw e;
    }
    const kept = session.operations.end(op.id, outcome, ctx.signal.aborted);
    const answer = await runAnswer(session, outcome, { ...plan, outputCursor: cursor, signal: ctx.signal });
    return kept && outcome.kind === 'running' ? withOperation(answer, kept.id) : answer;
  },
});

/** action=origin: re-executes to the last write to the value, and answers with that stop and the origin. */
async function originRun(
  args: { expression?: string | undefined; timeout_ms?: number | undefined },
  ctx: SessionToolContext,
  plan: PlanOptions,
) {
  const session = ctx.session;
  const found = await session.origin(
    {
      ...(args.expression !== undefined ? { expression: args.expression } : {}),
      timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
    },
    ctx.signal,
  );
  const cursor = session.outputEnd ?? 0;
  const answer = await runAnswer(session, found.outcome, { ...plan, outputCursor: cursor, signal: ctx.signal });
  const origin = originWire(found.origin, found.outcome.kind === 'stopped' ? found.outcome.stopId : undefined);
  return { ...answer, data: { ...answer.data, origin }, text: [...renderOrigin(origin), answer.text].join('\n') };
}
