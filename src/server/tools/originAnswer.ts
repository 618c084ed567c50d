// The origin part of an answer (dbg_run action=origin, dbg_start origin=true): the write behind
// a bad value, how it was found and what it cost, as data and as a few lines of text. Bounded:
// a handful of frames, values cut short, under 1.5 KB whatever the program.

import * as z from 'zod/v4';
import type { OriginFacts } from '../../session/session.js';
import { printable } from '../render.js';
import { compact } from '../wire.js';

const placeShape = z.object({
  function: z.string().optional(),
  file: z.string().optional(),
  line: z.number().optional(),
});

const blockEventShape = z.object({
  at: placeShape.describe('The program’s calling line.'),
  address: z.string(),
  size: z.number().optional(),
});

export const originShape = z
  .object({
    expression: z.string().describe('The value whose origin this is, in the program’s words where debug info allows.'),
    address: z.string().describe('Its address (the same in every re-execution: ASLR is off).'),
    kind: z
      .enum(['write', 'never_written', 'double_free', 'not_reproduced'])
      .describe(
        'write: the stop is at the last write; never_written: nothing wrote it after main; double_free: block.freed[0] is the first free; not_reproduced: the re-execution did not reach the same failure with the same value, no write is named.',
      ),
    write: z
      .object({
        function: z.string().optional(),
        file: z.string().optional(),
        line: z.number().optional().describe('The line of the writing instruction.'),
        thread: z.number().optional(),
        before: z.string().optional(),
        after: z.string().optional(),
        called_from: placeShape.optional().describe('The program’s own call, when the write was inside a library.'),
        stack: z.array(placeShape),
      })
      .optional()
      .describe('Absent unless kind=write.'),
    why: z.string().optional().describe('Absent for kind=write.'),
    block: z
      .object({
        allocated: blockEventShape.optional(),
        freed: z.array(blockEventShape),
        reused: blockEventShape.optional(),
        unknown: z.string().optional(),
      })
      .optional()
      .describe('The heap block the value lies in; absent when the search did not follow the allocator.'),
    technique: z.string().describe('How it was found: re-execution with a hardware or software watchpoint.'),
    cost: z.object({ ms: z.number(), runs: z.number(), hits: z.number().describe('Writes followed.') }),
    back: z.string().describe('How to get back to the failure.'),
    stop_id: z.number().optional().describe('The stop at the write; absent when the program is not stopped at one.'),
  })
  .describe('The last write before the stop to the value it was about.');

export type OriginWire = z.infer<typeof originShape>;

const cut = (text: string | undefined, max = 80): string | undefined =>
  text === undefined ? undefined : text.length > max ? `${text.slice(0, max - 1)}…` : text;

function place(p: { function?: string; file?: string; line?: number }): string {
  const at = p.file ? `${p.file}:${p.line ?? '?'}` : '';
  return [p.function, at ? (p.function ? `(${at})` : at) : ''].filter(Boolean).join(' ');
}

export function originWire(o: OriginFacts, stopId?: number): OriginWire {
  const w = o.write;
  return compact({
    expression: cut(o.expression, 160) as string,
    address: o.address,
    kind: o.kind,
    write: w
      ? compact({
          function: w.function,
          file: w.file,
          line: w.line,
          thread: w.thread,
          before: cut(w.before),
          after: cut(w.after),
          called_from: w.calledFrom ? compact({ ...w.calledFrom }) : undefined,
          stack: w.stack.slice(0, 6).map((f) => compact({ ...f })),
        })
      : undefined,
    why: cut(o.why, 400),
    block: o.block
      ? compact({
          allocated: o.block.allocated
            ? compact({ ...o.block.allocated, at: compact({ ...o.block.allocated.at }) })
            : undefined,
          freed: o.block.freed.slice(0, 4).map((f) => compact({ ...f, at: compact({ ...f.at }) })),
          reused: o.block.reused ? compact({ ...o.block.reused, at: compact({ ...o.block.reused.at }) }) : undefined,
          unknown: cut(o.block.unknown, 200),
        })
      : undefined,
    technique: o.technique,
    cost: o.cost,
    back: o.back,
    stop_id: o.kind === 'write' ? stopId : undefined,
  });
}

export function renderOrigin(o: OriginWire): string[] {
  const lines: string[] = [];
  const w = o.write;
  if (o.kind === 'write' && w) {
    const values = w.before !== undefined || w.after !== undefined ? `: ${w.before ?? '?'} → ${w.after ?? '?'}` : '';
    lines.push(
      `origin of ${o.expression} (${o.address}): written in ${place(w)}${w.thread !== undefined ? `, thread ${w.thread}` : ''}${values}`,
    );
    if (w.called_from) lines.push(`  called from ${place(w.called_from)}`);
    if (w.stack.length > 1) lines.push(`  stack: ${w.stack.map(place).join(' ← ')}`);
  } else {
    lines.push(
      `origin of ${o.expression} (${o.address}): ${o.kind === 'never_written' ? 'never written' : o.kind === 'double_free' ? 'double free' : 'no write named'}: ${o.why ?? ''}`,
    );
  }
  const b = o.block;
  if (b?.allocated) lines.push(`  block ${b.allocated.address}: allocated in ${place(b.allocated.at)}`);
  for (const f of b?.freed ?? []) lines.push(`  freed in ${place(f.at)}`);
  if (b?.reused) lines.push(`  reused by the allocation in ${place(b.reused.at)}`);
  lines.push(`  found by ${o.technique}: ${o.cost.runs} runs, ${o.cost.hits} writes followed, ${o.cost.ms} ms`);
  lines.push(`  back: ${o.back}`);
  return lines.map(printable);
}
