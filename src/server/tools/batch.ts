import * as z from 'zod/v4';
import type { DebuggerBackend } from '../../backends/debuggerBackend.js';
import { gatherView, VIEW_NAMES, type ViewRequest } from '../../session/evidence.js';
import type { SessionSnapshot } from '../../session/sessionState.js';
import { DebuggerError, toDebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { renderView } from '../render.js';
import { describeIssues, frameLevel, sessionId, stackDepth, stopId, threadId } from '../schemas.js';
import { compact, viewWire, type Wire } from '../wire.js';
import { disassembleAt, disassembleFields } from './disassemble.js';
import { evaluateExpressions, expressionList, valueFormat } from './evaluate.js';
import { memoryAddress, memoryLength, readMemoryAt } from './memory.js';

const thread = threadId.optional();
const frame = frameLevel.optional();

/** What each op really takes. tools/list advertises only `op` (the fields are those of the tool
 * of the same name, already listed), so the ops are checked here. */
export const operation = z.discriminatedUnion('op', [
  z.strictObject({
    op: z.literal('inspect'),
    view: z.enum(VIEW_NAMES).describe('As dbg_inspect.'),
    thread,
    frame,
    stack_depth: stackDepth.optional(),
    from: z.number().int().min(0).max(1_000_000).optional().describe('First frame (stack) or thread (threads).'),
  }),
  z.strictObject({
    op: z.literal('evaluate'),
    expressions: expressionList,
    thread,
    frame,
    format: valueFormat.optional(),
  }),
  z.strictObject({ op: z.literal('memory'), address: memoryAddress, length: memoryLength.optional() }),
  z.strictObject({ op: z.literal('disassemble'), ...disassembleFields }),
]);
type Operation = z.output<typeof operation>;

const input = z.strictObject({
  session_id: sessionId,
  operations: z
    .array(z.looseObject({ op: z.enum(['inspect', 'evaluate', 'memory', 'disassemble']) }))
    .min(1)
    .max(16)
    .describe('Each {op, …fields}.'),
  stop_id: stopId.optional(),
});

const output = z.object({
  stop_id: z.number(),
  results: z.array(z.looseObject({})),
  session: z.looseObject({}),
});

/** Codes that belong to one operation; anything else (the debugger died, a cancel) ends the batch. */
const OWN_ERRORS = new Set(['debugger_error', 'invalid_argument', 'wrong_state', 'limit_exceeded']);

/** One view as data and text lines; a view that could not be gathered at all is an error. */
export async function inspectView(
  backend: DebuggerBackend,
  snapshot: SessionSnapshot,
  request: ViewRequest,
  signal: AbortSignal | undefined,
): Promise<{ data: Wire; lines: string[] }> {
  const outcome = await gatherView(backend, snapshot, request, signal);
  if (!outcome.data) {
    throw new DebuggerError(
      'debugger_error',
      `the ${request.view} view could not be gathered: ${outcome.failures.join('; ')}`,
    );
  }
  const failures = outcome.failures.length > 0 ? outcome.failures : undefined;
  return {
    data: compact({ view: request.view, data: viewWire(outcome.data), failures }),
    lines: [...renderView(outcome.data), ...(failures ?? []).map((f) => `not gathered: ${f}`)],
  };
}

async function runOne(
  op: Operation,
  backend: DebuggerBackend,
  snapshot: SessionSnapshot,
  signal: AbortSignal | undefined,
): Promise<{ data: Wire; lines: string[] }> {
  switch (op.op) {
    case 'inspect':
      return inspectView(
        backend,
        snapshot,
        compact({ view: op.view, threadId: op.thread, frame: op.frame, stackDepth: op.stack_depth, from: op.from }),
        signal,
      );
    case 'evaluate': {
      const selector = compact({ threadId: op.thread, frame: op.frame });
      const { results, lines } = await evaluateExpressions(
        backend,
        op.expressions,
        selector,
        op.format ?? 'natural',
        signal,
      );
      return { data: { results }, lines };
    }
    case 'memory':
      return readMemoryAt(backend, op.address, op.length ?? 64, signal);
    case 'disassemble':
      return disassembleAt(
        backend,
        {
          function: op.function,
          start: op.start,
          end: op.end,
          count: op.count,
          withSource: op.with_source,
          thread: op.thread,
          frame: op.frame,
        },
        signal,
      );
  }
}

export const batchTool = defineTool({
  name: 'dbg_batch',
  title: 'Batch of reads',
  description:
    "Up to 16 reads at one stop, nothing in between: inspect, evaluate, memory, disassemble ops with their tools' fields. Results in order.",
  input,
  output,
  requires: ['stopped'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const operations = args.operations.map((raw, i) => {
      const parsed = operation.safeParse(raw);
      if (parsed.success) return parsed.data;
      const { message, fields } = describeIssues(parsed.error);
      throw new DebuggerError('invalid_argument', `operations.${i}: ${message}`, {
        fields: fields.map((f) => `operations.${i}.${f}`),
      });
    });
    const session = ctx.sessions.get(args.session_id);
    const { stop, results, lines } = await session.query(
      ['stopped'],
      'run the batch',
      async (backend, signal) => {
        const stop = session.snapshot.stopId;
        const results: Wire[] = [];
        const lines: string[] = [];
        for (const [i, op] of operations.entries()) {
          try {
            const one = await runOne(op, backend, session.snapshot, signal);
            results.push({ op: op.op, ...one.data });
            lines.push(`#${i + 1} ${op.op}:`, ...one.lines.map((l) => `  ${l}`));
          } catch (e) {
            const err = toDebuggerError(e);
            if (!OWN_ERRORS.has(err.code)) throw err;
            results.push({ op: op.op, error: { code: err.code, message: err.message } });
            lines.push(`#${i + 1} ${op.op}: error (${err.code}): ${err.message}`);
          }
        }
        return { stop, results, lines };
      },
      { ...(args.stop_id !== undefined ? { stopId: args.stop_id } : {}), signal: ctx.signal },
    );
    return {
      data: { stop_id: stop, results },
      text: [`${results.length} operations at stop ${stop}`, ...lines].join('\n'),
      session,
    };
  },
});
