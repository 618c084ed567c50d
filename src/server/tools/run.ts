import * as z from 'zod/v4';
import { REVERSE_ACTIONS } from '../../session/session.js';
import { defineSessionTool } from '../defineTool.js';
import { parseLocation } from '../locations.js';
import { includeLocals, inspectPlan, line, onTimeout, sessionId, stackDepth, threadId, timeoutMs } from '../schemas.js';
import { planOf, runAnswer, runOutputFields, runProgress } from './runAnswer.js';

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
  ...REVERSE_ACTIONS,
] as const;

const input = z.strictObject({
  session_id: sessionId,
  action: z.enum(ACTIONS).describe('until/advance/jump take location.'),
  count: z.number().int().min(1).max(10_000).optional().describe('Repeat a step.'),
  thread: threadId.optional(),
  location: line(1024).optional().describe('file.c:42, func or *ADDR.'),
  timeout_ms: timeoutMs.optional(),
  on_timeout: onTimeout.optional().describe('Default: return.'),
  inspect: inspectPlan.optional(),
  stack_depth: stackDepth.optional(),
  include_locals: includeLocals.optional(),
});

const output = z.object({ ...runOutputFields, session: z.looseObject({}) });

export const runTool = defineSessionTool({
  name: 'dbg_run',
  title: 'Run control',
  description:
    'Moves the program, waits up to timeout_ms for the next stop or exit, gathers the inspect plan. At the deadline: running, unless on_timeout=interrupt. interrupt never waits behind other calls. reverse_* need recording (or rr).',
  input,
  output,
  // Each action has its own states; run control checks them.
  requires: [],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const session = ctx.session;
    const cursor = session.outputEnd ?? 0;
    const outcome = await session.run(
      {
        action: args.action,
        options: {
          ...(args.count !== undefined ? { count: args.count } : {}),
          ...(args.thread !== undefined ? { threadId: args.thread } : {}),
          ...(args.location !== undefined ? { location: parseLocation(args.location) } : {}),
        },
        timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
        onTimeout: args.on_timeout ?? 'return',
        onProgress: runProgress(ctx),
      },
      ctx.signal,
    );
    return runAnswer(session, outcome, {
      ...planOf(args),
      ...(args.action === 'interrupt' ? { interrupted: true } : {}),
      outputCursor: cursor,
      signal: ctx.signal,
    });
  },
});
