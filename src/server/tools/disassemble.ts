import * as z from 'zod/v4';
import { LIMITS } from '../../session/limits.js';
import type { DisassemblyResult } from '../../session/operations/disassembly.js';
import { observationIdOut, withObservation } from '../answers/observations.js';
import { instructionShape } from '../answers/shapes.js';
import { defineSessionTool } from '../defineTool.js';
import { printable } from '../render.js';
import { frameLevel, line, sessionId, stopId, threadId } from '../schemas.js';
import { compact, instructionsWire } from '../wire.js';

export const disassembleFields = {
  function: line(1024).optional().describe('From its start.'),
  start: line(1024).optional().describe('Address: 0x401000, $pc-16.'),
  end: line(1024).optional().describe('Exclusive.'),
  count: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.disassembleMax)
    .optional()
    .describe(`Default ${LIMITS.disassembleDefault}.`),
  with_source: z.boolean().optional().describe('Add source lines.'),
  thread: threadId.optional(),
  frame: frameLevel.optional(),
};

const input = z.strictObject({ session_id: sessionId, ...disassembleFields, stop_id: stopId.optional() });

export const disassemblyShape = z.object({
  pc: z.string().optional().describe('The pc of the selected frame; absent when nothing runs.'),
  instructions: z.array(instructionShape),
  more: z.boolean().optional().describe('Present (true) when more instructions follow.'),
  source: z
    .array(z.object({ file: z.string(), line: z.number(), text: z.string() }))
    .optional()
    .describe('with_source: the lines the instructions belong to; absent otherwise.'),
});

const output = z.object({
  ...disassemblyShape.shape,
  observation_id: observationIdOut.optional(),
  session: z.looseObject({}),
});

/** A disassembly as data and lines (pc marked =>): the core of dbg_disassemble and of dbg_batch's op. */
export function disassemblyAnswer(
  d: DisassemblyResult,
  withSource: boolean,
): { data: z.infer<typeof disassemblyShape>; lines: string[] } {
  const lines: string[] = [];
  let lastLine: string | undefined;
  for (const i of d.instructions) {
    if (withSource && i.line !== undefined) {
      const key = `${i.file}:${i.line}`;
      if (key !== lastLine) {
        const text = d.source.find((s) => s.file === i.file && s.line === i.line)?.text;
        lines.push(printable(`${key}${text !== undefined ? `  ${text.trim()}` : ''}`));
        lastLine = key;
      }
    }
    const m = /0x[0-9a-fA-F]+/.exec(i.address);
    const address = m ? BigInt(m[0]) : undefined;
    const mark = address !== undefined && address === d.pc ? '=>' : '  ';
    const at = i.function !== undefined ? ` <${i.function}+${i.offset ?? 0}>` : '';
    lines.push(printable(`${mark} 0x${(address ?? 0n).toString(16)}${at}: ${i.instruction}`));
  }
  if (d.instructions.length === 0) lines.push('no instructions there');
  if (d.more) lines.push(`… more instructions: raise count (max ${LIMITS.disassembleMax}) or give start`);
  return {
    data: compact({
      pc: d.pc === undefined ? undefined : `0x${d.pc.toString(16)}`,
      instructions: instructionsWire(d.instructions),
      more: d.more || undefined,
      source: d.source.length > 0 ? d.source : undefined,
    }),
    lines,
  };
}

export const disassembleTool = defineSessionTool({
  name: 'dbg_disassemble',
  title: 'Disassemble',
  description:
    'AT&T instructions around the pc (default), of a function, or a start/end range; the text marks the pc =>.',
  input,
  output,
  requires: ['stopped', 'loaded'],
  doing: 'disassemble',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const result = await ctx.session.disassemble(
      {
        function: args.function,
        start: args.start,
        end: args.end,
        count: args.count,
        withSource: args.with_source,
        thread: args.thread,
        frame: args.frame,
      },
      ctx.call({ stopId: args.stop_id }),
    );
    const { data, lines } = disassemblyAnswer(result, args.with_source ?? false);
    return {
      ...withObservation(ctx.session.observations, result, { data, text: lines.join('\n') }),
      session: ctx.session,
    };
  },
});
