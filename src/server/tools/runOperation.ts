// The server's side of the session's operation registry: a run's answer that was cut short
// (`running` at its deadline) names its operation, progress notes name it while the run waits
// (a client whose answer is lost has seen it there), and `dbg_run action=wait operation_id=…`
// reads its end once, with the inspection plan of the call that began it.

import * as z from 'zod/v4';
import type { Operation } from '../../session/operationRegistry.js';
import type { RunOutcome, Session } from '../../session/session.js';
import { DebuggerError } from '../../util/errors.js';
import type { ToolContext } from '../defineTool.js';
import type { Answer } from '../response.js';
import { type PlanOptions, planOf, type RunAnswerData, runAnswer } from './runAnswer.js';

/** What a call keeps with its operation to answer the read as it would have answered. */
export interface OperationContext {
  plan: PlanOptions;
  /** Where the program's output stood when the run began: the read quotes what it printed since. */
  outputCursor: number;
}

export const operationIdInput = z
  .string()
  .regex(/^[0-9a-f]{6}$/, 'an operation id is 6 hex digits, as a cut-short answer gave it')
  .describe("With wait: a cut-short run's end.");

export const operationIdOutput = z.string().optional().describe('Cut short: dbg_run wait with it later.');

type OperationAnswer = Answer<RunAnswerData & { operation_id?: string }>;

/** Progress while a run waits, naming its operation. */
export function operationProgress(ctx: ToolContext, id: string): (elapsedMs: number) => void {
  return (ms) => ctx.progress(ms, `running for ${Math.round(ms / 1000)} s (operation ${id})`);
}

/** Adds the operation to an answer cut short at its deadline. */
export function withOperation<A extends Answer<object>>(answer: A, id: string): A {
  return {
    ...answer,
    data: { ...answer.data, operation_id: id },
    text: `${answer.text}\noperation ${id}: dbg_run action=wait operation_id=${id} returns where it ends`,
  };
}

/**
 * dbg_start's and dbg_run's run that came back `running`: registers (or finds) its operation
 * and names it in the answer.
 */
export function cutShort<A extends Answer<object>>(
  session: Session,
  outcome: RunOutcome,
  answer: A,
  action: string,
  context: OperationContext,
): A {
  if (outcome.kind !== 'running') return answer;
  return withOperation(answer, session.operations.pending(action, context).id);
}

function operationOf(session: Session, id: string): Operation {
  const op = session.operations.get(id);
  if (op) return op;
  throw new DebuggerError(
    'invalid_argument',
    `operation_id: session ${session.id} has no operation ${id}: an operation's end is kept until read once, or until the session closes (dbg_sessions lists those left)`,
    { field: 'operation_id' },
  );
}

/**
 * `dbg_run action=wait operation_id=…`: the end of that run, once. Still running: waits up to
 * the deadline (interrupting at it with on_timeout=interrupt) and, if it still runs, answers
 * `running` with the same id. The evidence is gathered with the plan given now, else the one
 * the run began with, at the stop it reached: if the program has moved since, the answer says so.
 */
export async function waitForOperation(
  session: Session,
  args: {
    operation_id: string;
    timeout_ms?: number | undefined;
    on_timeout?: 'return' | 'interrupt' | undefined;
    inspect?: readonly string[] | undefined;
    stack_depth?: number | undefined;
    include_locals?: boolean | undefined;
  },
  ctx: ToolContext,
): Promise<OperationAnswer> {
  const op = operationOf(session, args.operation_id);
  const context = op.context as OperationContext;
  const asked = planOf(args);
  const plan = Object.keys(asked).length > 0 ? asked : context.plan;
  if (op.outcome === undefined) {
    await session.run(
      {
        action: 'wait',
        timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
        onTimeout: args.on_timeout ?? 'return',
        onProgress: operationProgress(ctx, op.id),
      },
      ctx.signal,
    );
  }
  // The registry records the end as the session's state changes; a wait that found none is `running`.
  const outcome = op.outcome;
  if (outcome === undefined) {
    const answer = await runAnswer(session, { kind: 'running' }, { ...plan, outputCursor: context.outputCursor });
    return withOperation(answer, op.id);
  }
  // Read once: a read whose caller cancelled leaves it for the next.
  if (!ctx.signal.aborted) session.operations.drop(op.id);
  const stale = outcome.kind === 'stopped' && outcome.stopId !== session.snapshot.stopId;
  return runAnswer(session, outcome, {
    ...plan,
    outputCursor: context.outputCursor,
    signal: ctx.signal,
    extraText: [
      `operation ${op.id} (${op.action}) ended:${stale ? ` the program has moved on since, to stop ${session.snapshot.stopId}` : ''}`,
    ],
  });
}
