import * as z from 'zod/v4';
import { VIEW_NAMES } from '../../session/evidence.js';
import { DebuggerError } from '../../util/errors.js';
import { viewShapes } from '../answers/shapes.js';
import { defineSessionTool } from '../defineTool.js';
import { renderView } from '../render.js';
import { frameLevel, includeLocals, line, sessionId, stackDepth, stopId, threadId } from '../schemas.js';
import { compact, viewWire } from '../wire.js';

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
  view: z.enum(VIEW_NAMES),
  data: z.union(Object.values(viewShapes)).describe('The view, in the shape of docs/schema for its name.'),
  failures: z.array(z.string()).optional().describe('Parts that could not be gathered, and why; absent when none.'),
  session: z.looseObject({}),
});

export const inspectTool = defineSessionTool({
  name: 'dbg_inspect',
  title: 'Inspect',
  description:
    'One view of the stopped program, bounded: stacks paged (from), values cut at 300 chars, 32 variables a frame, 32 threads a page. stop_id guards against a program that moved.',
  input,
  output,
  requires: ['stopped'],
  doing: 'inspect the program',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const outcome = await ctx.session.inspect(
      compact({
        view: args.view,
        threadId: args.thread,
        frame: args.frame,
        stackDepth: args.stack_depth,
        from: args.from,
        includeLocals: args.include_locals,
        file: args.file,
        line: args.line,
        registers: args.registers,
      }),
      ctx.call({ doing: `show the ${args.view} view`, stopId: args.stop_id }),
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
      session: ctx.session,
    };
  },
});
