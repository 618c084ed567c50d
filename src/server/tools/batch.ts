import * as z from 'zod/v4';
import { VIEW_NAMES } from '../../session/evidence.js';
import type { BatchOperation, BatchResult, Session } from '../../session/session.js';
import { DebuggerError } from '../../util/errors.js';
import { observationLine } from '../answers/observations.js';
import { defineSessionTool } from '../defineTool.js';
import { printable, renderView } from '../render.js';
import { describeIssues, frameLevel, sessionId, stackDepth, stopId, threadId } from '../schemas.js';
import { compact, viewWire, type Wire } from '../wire.js';
import { disassembleFields, disassemblyAnswer } from './disassemble.js';
import {
  callWarning,
  evaluationTimeout,
  expressionList,
  renderEvaluation,
  selectorOf,
  valueFormat,
} from './evaluate.js';
import { memoryAddress, memoryAnswer, memoryLength } from './memory.js';

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
  results: z
    .array(z.looseObject({ op: z.enum(['inspect', 'evaluate', 'memory', 'disassemble']) }))
    .describe('In order: each the answer of the tool of its op (without session), or error {code, message}.'),
  session: z.looseObject({}),
});

function toOperation(op: Operation): BatchOperation {
  switch (op.op) {
    case 'inspect':
      return {
        op: 'inspect',
        request: compact({
          view: op.view,
          threadId: op.thread,
          frame: op.frame,
          stackDepth: op.stack_depth,
          from: op.from,
        }),
      };
    case 'evaluate':
      return { op: 'evaluate', expressions: op.expressions, selector: selectorOf(op), format: op.format ?? 'natural' };
    case 'memory':
      return { op: 'memory', address: op.address, length: op.length ?? 64 };
    case 'disassemble':
      return {
        op: 'disassemble',
        options: {
          function: op.function,
          start: op.start,
          end: op.end,
          count: op.count,
          withSource: op.with_source,
          thread: op.thread,
          frame: op.frame,
        },
      };
  }
}

/** One result as data and text lines. */
function resultAnswer(r: BatchResult, withSource: boolean): { data: Wire; lines: string[] } {
  if ('error' in r) {
    return {
      data: { op: r.op, error: { code: r.error.code, message: r.error.message } },
      lines: [`error (${r.error.code}): ${printable(r.error.message)}`],
    };
  }
  switch (r.op) {
    case 'inspect': {
      const v = r.view;
      const failures = v.failures.length > 0 ? v.failures : undefined;
      const view = v.data ? viewWire(v.data) : undefined;
      return {
        data: compact({ op: r.op, view: v.data?.view, data: view, failures }),
        lines: [...(v.data ? renderView(v.data) : []), ...(failures ?? []).map((f) => `not gathered: ${f}`)],
      };
    }
    case 'evaluate':
      return { data: { op: r.op, results: r.results.map(compact) }, lines: r.results.map(renderEvaluation) };
    case 'memory': {
      const m = memoryAnswer(r.memory);
      return { data: { op: r.op, ...m.data }, lines: m.lines };
    }
    case 'disassemble': {
      const d = disassemblyAnswer(r.disassembly, withSource);
      return { data: { op: r.op, ...d.data }, lines: d.lines };
    }
  }
}

/** The observation a batch result was kept as. */
function observationOf(session: Session, r: BatchResult): string | undefined {
  if ('error' in r) return undefined;
  switch (r.op) {
    case 'inspect':
      return r.view.observationId;
    case 'evaluate':
      return session.observations.of(r.results)?.id;
    case 'memory':
      return session.observations.of(r.memory)?.id;
    case 'disassemble':
      return session.observations.of(r.disassembly)?.id;
  }
}

export const batchTool = defineSessionTool({
  name: 'dbg_batch',
  title: 'Batch of reads',
  description:
    "Up to 16 reads at one stop, nothing in between: inspect, evaluate, memory, disassemble ops with their tools' fields. Results in order.",
  input,
  output,
  requires: ['stopped'],
  doing: 'run a batch of reads',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const operations = args.operations.map((raw, i) => {
      const parsed = operation.safeParse(raw);
      if (parsed.success) return parsed.data;
      const { message, fields } = describeIssues(parsed.error, operation);
      throw new DebuggerError('invalid_argument', `operations.${i}: ${message}`, {
        fields: fields.map((f) => `operations.${i}.${f}`),
      });
    });
    const { stopId, results } = await ctx.session
      .batch(operations.map(toOperation), ctx.call({ doing: 'run the batch', stopId: args.stop_id }))
      .catch((e: unknown) => {
        throw evaluationTimeout(e, ctx.config.commandTimeoutMs);
      });
    const warning = callWarning(
      operations.flatMap((op) => (op.op === 'evaluate' ? op.expressions : [])),
      ctx.config.allowInferiorCalls,
    );
    const data: Wire[] = [];
    const lines: string[] = [];
    results.forEach((r, i) => {
      const op = operations[i];
      const one = resultAnswer(r, op?.op === 'disassemble' ? (op.with_source ?? false) : false);
      const obs = observationOf(ctx.session, r);
      if (obs) {
        if (r.op !== 'inspect') ctx.session.observations.attach(obs, { data: one.data, text: one.lines.join('\n') });
        one.data['observation_id'] = obs;
        one.lines.push(observationLine([obs]));
      }
      data.push(one.data);
      if ('error' in r) lines.push(`#${i + 1} ${r.op}: ${one.lines[0]}`);
      else lines.push(`#${i + 1} ${r.op}:`, ...one.lines.map((l) => `  ${l}`));
    });
    return {
      data: { stop_id: stopId, results: data as z.infer<typeof output>['results'] },
      text: [`${results.length} operations at stop ${stopId}`, ...lines].join('\n'),
      session: ctx.session,
      warnings: warning ? [warning] : [],
    };
  },
});
