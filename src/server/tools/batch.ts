import * as z from 'zod/v4';
import type { DebuggerBackend } from '../../backends/debuggerBackend.js';
import { gatherView, VIEW_NAMES } from '../../session/evidence.js';
import type { SessionSnapshot } from '../../session/sessionState.js';
import { DebuggerError, toDebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { renderView } from '../render.js';
import { frameLevel, sessionId, stackDepth, stopId, threadId } from '../schemas.js';
import { compact, viewWire, type Wire } from '../wire.js';
import { disassembleAt, disassembleFields } from './disassemble.js';
import { evaluateExpressions, expressionList, valueFormat } from './evaluate.js';
import { memoryAddress, memoryLength, readMemoryAt } from './memory.js';

const thread = threadId.optional();
const frame = frameLevel.optional();

const operation = z.discriminatedUnion('op', [
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
  operations: z.array(operation).min(1).max(16).describe('Reads to run in order, like the tools of the same name.'),
  stop_id: stopId.optional(),
});

const output = z.object({
  stop_id: z.number(),
  results: z.array(z.looseObject({ op: z.string() })).describe("In order: each op's data, or its error."),
  session: z.looseObject({}),
});

/** Codes that belong to one operation; anything else (the debugger died, a cancel) ends the batch. */
const OWN_ERRORS = new Set(['debugger_error', 'invalid_argument', 'wrong_state', 'limit_exceeded']);

async function runOne(
  op: Operation,
  backend: DebuggerBackend,
  snapshot: SessionSnapshot,
  signal: AbortSignal | undefined,
): Promise<{ data: Wire; lines: string[] }> {
  switch (op.op) {
    case 'inspect': {
      const outcome = await gatherView(
        backend,
        snapshot,
        compact({
          view: op.view,
          threadId: op.thread,
          frame: op.frame,
          stackDepth: op.stack_depth,
          from: op.from,
        }),
        signal,
      );
      if (!outcome.data) {
        throw new DebuggerError(
          'debugger_error',
          `the ${op.view} view could not be gathered: ${outcome.failures.join('; ')}`,
        );
      }
      const failures = outcome.failures.length > 0 ? outcome.failures : undefined;
      return {
        data: compact({ view: op.view, data: viewWire(outcome.data), failures }),
        lines: [...renderView(outcome.data), ...(failures ?? []).map((f) => `not gathered: ${f}`)],
      };
    }
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
  title: 'Several reads at one stop',
  description: [
    'Runs up to 16 reads (op: inspect, evaluate, memory, disassemble; same fields as those tools) in one call, all at the same stop: nothing can run in between.',
    "Each result is that op's data or its own error, in order. With stop_id, fails with stale_context unless that is still the current stop. Needs a stopped program.",
  ].join(' '),
  input,
  output,
  requires: ['stopped'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const session = ctx.sessions.get(args.session_id);
    const { stop, results, lines } = await session.query(
      ['stopped'],
      'run the batch',
      async (backend, signal) => {
        const stop = session.snapshot.stopId;
        const results: Wire[] = [];
        const lines: string[] = [];
        for (const [i, op] of args.operations.entries()) {
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
