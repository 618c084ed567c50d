import * as z from 'zod/v4';
import { defineTool } from '../defineTool.js';
import { includeLocals, inspectPlan, line, onTimeout, sessionId, stackDepth, threadId, timeoutMs } from '../schemas.js';
import { runAnswer } from './runAnswer.js';

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
  'kill',
  'restart',
  'run',
] as const;

const input = z.strictObject({
  session_id: sessionId,
  action: z
    .enum(ACTIONS)
    .describe(
      'next/step: a source line (step enters calls); stepi/nexti: one instruction; finish: out of the frame; until/advance: to location; jump: resume at location; run: start a loaded program; restart: from scratch.',
    ),
  count: z.number().int().min(1).max(10_000).optional().describe('Repeat next/step/stepi/nexti this many times.'),
  thread: threadId.optional(),
  location: line(1024).optional().describe('For until, advance, jump: a GDB location (file.c:42, func, *ADDR).'),
  timeout_ms: timeoutMs.optional(),
  on_timeout: onTimeout.optional().describe('At the deadline: return running (default) or interrupt and inspect.'),
  inspect: inspectPlan.optional(),
  stack_depth: stackDepth.optional(),
  include_locals: includeLocals.optional(),
});

const output = z.object({
  outcome: z.looseObject({ kind: z.enum(['stopped', 'exited', 'running', 'dead']) }),
  views: z.looseObject({}).optional(),
  failures: z.array(z.string()).optional(),
  output: z.looseObject({}).optional().describe('What the program printed during the run, with the dbg_io cursor.'),
  output_cursor: z.number().optional(),
  never_hit: z.array(z.string()).optional().describe('On exit: breakpoints that were never hit.'),
  session: z.looseObject({}),
});

export const runTool = defineTool({
  name: 'dbg_run',
  title: 'Run control',
  description: [
    'Moves the program and waits for the next stop or exit, up to timeout_ms; then gathers the same inspection plan as dbg_start at the stop reached.',
    'At the deadline the answer is state running (nothing is lost; the stop is reported later) unless on_timeout=interrupt.',
    'interrupt stops a running program at once (it never waits behind another call); kill ends it; restart runs it again from the start.',
    'On exit: the exit code or killing signal, and the breakpoints never hit.',
  ].join(' '),
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
      inspect: args.inspect,
      stackDepth: args.stack_depth,
      includeLocals: args.include_locals,
      interrupted: args.action === 'interrupt' || undefined,
      outputCursor: cursor,
      signal: ctx.signal,
    });
  },
});
