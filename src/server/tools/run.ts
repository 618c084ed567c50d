import * as z from 'zod/v4';
import { REVERSE_ACTIONS } from '../../session/session.js';
import { defineTool } from '../defineTool.js';
import { includeLocals, inspectPlan, line, onTimeout, sessionId, stackDepth, threadId, timeoutMs } from '../schemas.js';
import { planOf, runAnswer, runOutputFields } from './runAnswer.js';

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

const output = z.object(runOutputFields);

export const runTool = defineTool({
  name: 'dbg_run',
  title: 'Run control',
  description:
    'Moves the program, waits up to timeout_ms for the next stop or exit, gathers the inspect plan. At the deadline: running, unless on_timeout=interrupt. interrupt never waits behind other calls. reverse_* need recording (or rr).',
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const session = ctx.sessions.get(args.session_id);
    const cursor = session.backend.output?.end ?? 0;
    const outcome = await session.run(
      {
        action: args.action,
        options: {
          ...(args.count !== undefined ? { count: args.count } : {}),
          ...(args.thread !== undefined ? { threadId: args.thread } : {}),
          ...(args.location !== undefined ? { location: args.location } : {}),
        },
        timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
        onTimeout: args.on_timeout ?? 'return',
        onProgress: (ms) => ctx.progress(ms, `running for ${Math.round(ms / 1000)} s`),
      },
      ctx.signal,
    );
    return runAnswer(session, outcome, {
      ...planOf(args),
      interrupted: args.action === 'interrupt' || undefined,
      outputCursor: cursor,
      signal: ctx.signal,
    });
  },
});
