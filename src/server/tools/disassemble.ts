import * as z from 'zod/v4';
import type { DebuggerBackend, DisassembleRequest, FrameSelector } from '../../backends/debuggerBackend.js';
import type { Instruction } from '../../model/model.js';
import { cut, LIMITS } from '../../session/limits.js';
import { DebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { printable } from '../render.js';
import { frameLevel, line, sessionId, stopId, threadId } from '../schemas.js';
import { compact, instructionsWire, type Wire } from '../wire.js';

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

const output = z.object({
  pc: z.string().optional(),
  instructions: z.array(z.looseObject({})),
  more: z.boolean().optional(),
  source: z.array(z.looseObject({})).optional(),
  session: z.looseObject({}),
});

export interface DisassembleOptions {
  function?: string | undefined;
  start?: string | undefined;
  end?: string | undefined;
  count?: number | undefined;
  withSource?: boolean | undefined;
  thread?: number | undefined;
  frame?: number | undefined;
}

function toBigInt(text: string | undefined): bigint | undefined {
  const m = text === undefined ? null : /0x[0-9a-fA-F]+/.exec(text);
  return m ? BigInt(m[0]) : undefined;
}

/** The pc of the selected frame, or undefined when there is none (nothing runs). */
async function framePc(
  backend: DebuggerBackend,
  selector: FrameSelector,
  signal: AbortSignal | undefined,
): Promise<bigint | undefined> {
  try {
    return toBigInt(await backend.evaluate('$pc', selector, signal));
  } catch {
    return undefined;
  }
}

/** The source text of the lines the instructions belong to, one read per file. */
async function sourceOf(
  backend: DebuggerBackend,
  list: readonly Instruction[],
  signal: AbortSignal | undefined,
): Promise<{ file: string; line: number; text: string }[]> {
  // By full path where known: a bare name like loop.c can match a file of glibc's as well.
  const byFile = new Map<string, { file: string; lines: Set<number> }>();
  for (const i of list) {
    if (i.file === undefined || i.line === undefined) continue;
    const path = i.fullname ?? i.file;
    const entry = byFile.get(path) ?? { file: i.file, lines: new Set<number>() };
    entry.lines.add(i.line);
    byFile.set(path, entry);
  }
  const out: { file: string; line: number; text: string }[] = [];
  for (const [path, { file, lines }] of byFile) {
    const from = Math.min(...lines);
    const to = Math.min(Math.max(...lines), from + LIMITS.sourceLinesMax);
    const read = await backend.sourceLines(path, from, to, signal).catch(() => []);
    for (const l of read) if (lines.has(l.line)) out.push({ file, line: l.line, text: cut(l.text, 200).text });
  }
  return out;
}

/** Disassembles around the pc, a function or a range, capped at count: the core of dbg_disassemble and dbg_batch. */
export async function disassembleAt(
  backend: DebuggerBackend,
  options: DisassembleOptions,
  signal: AbortSignal | undefined,
): Promise<{ data: Wire; lines: string[] }> {
  if (options.function !== undefined && options.start !== undefined) {
    throw new DebuggerError('invalid_argument', 'give function or start, not both', { fields: ['function', 'start'] });
  }
  if (options.end !== undefined && options.start === undefined) {
    throw new DebuggerError('invalid_argument', 'end needs start', { fields: ['end'] });
  }
  const count = options.count ?? LIMITS.disassembleDefault;
  const selector: FrameSelector = {
    ...(options.thread !== undefined ? { threadId: options.thread } : {}),
    ...(options.frame !== undefined ? { frame: options.frame } : {}),
  };
  const pc = await framePc(backend, selector, signal);
  const aroundPc = options.function === undefined && options.start === undefined;
  if (aroundPc && pc === undefined) {
    throw new DebuggerError(
      'wrong_state',
      'there is no pc to disassemble around (nothing runs): give function or start',
    );
  }
  const request: DisassembleRequest = { ...selector, withSource: options.withSource ?? false };
  if (options.function !== undefined) request.function = options.function;
  if (options.start !== undefined) {
    request.start = options.start;
    // x86 instructions are at most 15 bytes: this covers count of them.
    request.end = options.end ?? `(${options.start})+${count * 15}`;
  }
  const all = await backend.disassemble(request, signal);
  let from = 0;
  if (aroundPc) {
    // A third of the window before the pc, so the lead-up to it shows.
    const at = Math.max(
      0,
      all.findIndex((i) => toBigInt(i.address) === pc),
    );
    from = Math.max(0, Math.min(at - Math.floor(count / 3), all.length - count));
  }
  const shown = all.slice(from, from + count);
  const more = all.length > from + count;
  const source = options.withSource ? await sourceOf(backend, shown, signal) : [];
  const lines: string[] = [];
  let lastLine: string | undefined;
  for (const i of shown) {
    if (options.withSource && i.line !== undefined) {
      const key = `${i.file}:${i.line}`;
      if (key !== lastLine) {
        const text = source.find((s) => s.file === i.file && s.line === i.line)?.text;
        lines.push(`${key}${text !== undefined ? `  ${printable(text.trim())}` : ''}`);
        lastLine = key;
      }
    }
    const address = toBigInt(i.address);
    const mark = address !== undefined && address === pc ? '=>' : '  ';
    const at = i.function !== undefined ? ` <${i.function}+${i.offset ?? 0}>` : '';
    lines.push(`${mark} 0x${(address ?? 0n).toString(16)}${at}: ${printable(i.instruction)}`);
  }
  if (shown.length === 0) lines.push('no instructions there');
  if (more) lines.push(`… more instructions: raise count (max ${LIMITS.disassembleMax}) or give start`);
  return {
    data: compact({
      pc: pc === undefined ? undefined : `0x${pc.toString(16)}`,
      instructions: instructionsWire(shown),
      more: more || undefined,
      source: source.length > 0 ? source : undefined,
    }),
    lines,
  };
}

export const disassembleTool = defineTool({
  name: 'dbg_disassemble',
  title: 'Disassemble',
  description:
    'AT&T instructions around the pc (default), of a function, or a start/end range; the text marks the pc =>.',
  input,
  output,
  requires: ['stopped', 'loaded'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const session = ctx.sessions.get(args.session_id);
    const result = await session.query(
      ['stopped', 'loaded'],
      'disassemble',
      (backend, signal) =>
        disassembleAt(
          backend,
          {
            function: args.function,
            start: args.start,
            end: args.end,
            count: args.count,
            withSource: args.with_source,
            thread: args.thread,
            frame: args.frame,
          },
          signal,
        ),
      { ...(args.stop_id !== undefined ? { stopId: args.stop_id } : {}), signal: ctx.signal },
    );
    return { data: result.data, text: result.lines.join('\n'), session };
  },
});
