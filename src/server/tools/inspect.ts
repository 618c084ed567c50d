import * as z from 'zod/v4';
import { gatherView, VIEW_NAMES } from '../../session/evidence.js';
import { DebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { renderView } from '../render.js';
import { frameLevel, includeLocals, line, sessionId, stackDepth, stopId, threadId } from '../schemas.js';
import { viewWire } from '../wire.js';

const input = z.strictObject({
  session_id: sessionId,
  view: z.enum(VIEW_NAMES).describe('crash: all-in-one; threads: with stacks.'),
  thread: threadId.optional(),
  frame: frameLevel.optional(),
  stack_depth: stackDepth.optional(),
  from: z.number().int().min(0).max(1_000_000).optional().describe('Paging: first frame or thread.'),
  include_locals: includeLocals.optional(),
  file: line(4096).optional().describe('source: file.'),
  line: z.number().int().min(1).max(10_000_000).optional().describe('source: line.'),
  registers: z.array(line(32)).max(64).optional().describe('Default: general.'),
  stop_id: stopId.optional(),
});

const output = z.object({
  view: z.string(),
  data: z.looseObject({}).optional(),
  failures: z.array(z.string()).optional(),
  session: z.looseObject({}),
});

export const inspectTool = defineTool({
  name: 'dbg_inspect',
  title: 'Inspect',
  description:
    'One view of the stopped program, bounded: stacks paged (from), values cut at 300 chars, 32 variables a frame, 32 threads a page. stop_id guards against a program that moved.',
  input,
  output,
  requires: ['stopped'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const session = ctx.sessions.get(args.session_id);
    const outcome = await session.query(
      ['stopped'],
      `show the ${args.view} view`,
      (backend, signal) =>
        gatherView(
          backend,
          session.snapshot,
          {
            view: args.view,
            ...(args.thread !== undefined ? { threadId: args.thread } : {}),
            ...(args.frame !== undefined ? { frame: args.frame } : {}),
            ...(args.stack_depth !== undefined ? { stackDepth: args.stack_depth } : {}),
            ...(args.from !== undefined ? { from: args.from } : {}),
            ...(args.include_locals !== undefined ? { includeLocals: args.include_locals } : {}),
            ...(args.file !== undefined ? { file: args.file } : {}),
            ...(args.line !== undefined ? { line: args.line } : {}),
            ...(args.registers !== undefined ? { registers: args.registers } : {}),
          },
          signal,
        ),
      { ...(args.stop_id !== undefined ? { stopId: args.stop_id } : {}), signal: ctx.signal },
    );
    if (!outcome.data) {
      throw new DebuggerError(
        'debugger_error',
        `the ${args.view} view could not be gathered: ${outcome.failures.join('; ')}`,
      );
    }
    const lines = renderView(outcome.data);
    if (outcome.failures.length > 0) lines.push(...outcome.failures.map((f) => `not gathered: ${f}`));
    return {
      data: {
        view: args.view,
        data: viewWire(outcome.data),
        ...(outcome.failures.length > 0 ? { failures: outcome.failures } : {}),
      },
      text: lines.join('\n'),
      session,
    };
  },
});
