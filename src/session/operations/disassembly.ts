// Machine code at a stop: a window around the pc (a third of it before, so the lead-up shows), a
// function from its start, or a range; capped at `count` instructions, with the source lines the
// instructions belong to when asked.

import type { DebuggerBackend, DisassembleSpan, FrameSelector } from '../../backends/debuggerBackend.js';
import type { Instruction } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import { cut, LIMITS } from '../limits.js';

export interface DisassembleOptions {
  function?: string | undefined;
  start?: string | undefined;
  end?: string | undefined;
  count?: number | undefined;
  withSource?: boolean | undefined;
  thread?: number | undefined;
  frame?: number | undefined;
}

export interface SourceText {
  file: string;
  line: number;
  text: string;
}

export interface DisassemblyResult {
  /** The pc of the selected frame, when there is one. */
  pc?: bigint;
  instructions: Instruction[];
  /** More instructions follow the ones shown. */
  more: boolean;
  /** The source lines the instructions belong to (with_source). */
  source: SourceText[];
}

export function toBigInt(text: string | undefined): bigint | undefined {
  const m = text === undefined ? null : /0x[0-9a-fA-F]+/.exec(text);
  return m ? BigInt(m[0]) : undefined;
}

/** The source text of the lines the instructions belong to, one read per file. */
async function sourceOf(
  backend: DebuggerBackend,
  list: readonly Instruction[],
  signal: AbortSignal | undefined,
): Promise<SourceText[]> {
  // By full path where known: a bare name like loop.c can match a file of glibc's as well.
  const byFile = new Map<string, { file: string; lines: Set<number> }>();
  for (const i of list) {
    if (i.file === undefined || i.line === undefined) continue;
    const path = i.fullname ?? i.file;
    const entry = byFile.get(path) ?? { file: i.file, lines: new Set<number>() };
    entry.lines.add(i.line);
    byFile.set(path, entry);
  }
  const out: SourceText[] = [];
  for (const [path, { file, lines }] of byFile) {
    const from = Math.min(...lines);
    const to = Math.min(Math.max(...lines), from + LIMITS.sourceLinesMax);
    const read = await backend.sourceLines(path, from, to, signal).catch(() => []);
    for (const l of read) if (lines.has(l.line)) out.push({ file, line: l.line, text: cut(l.text, 200).text });
  }
  return out;
}

export async function disassembleAt(
  backend: DebuggerBackend,
  options: DisassembleOptions,
  signal: AbortSignal | undefined,
): Promise<DisassemblyResult> {
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
  const before = Math.floor(count / 3);
  let span: DisassembleSpan;
  if (options.function !== undefined) span = { function: options.function };
  else if (options.start !== undefined) {
    // x86 instructions are at most 15 bytes: this covers count of them.
    span = { start: options.start, end: options.end ?? `(${options.start})+${count * 15}` };
  } else span = { around: 'pc', before, after: count - before };
  const { instructions: all, pc: pcText } = await backend.disassemble(
    { ...selector, span, withSource: options.withSource ?? false },
    signal,
  );
  const pc = toBigInt(pcText);
  let from = 0;
  if ('around' in span) {
    // A third of the window before the pc, so the lead-up to it shows.
    const at = Math.max(
      0,
      all.findIndex((i) => toBigInt(i.address) === pc),
    );
    from = Math.max(0, Math.min(at - before, all.length - count));
  }
  const shown = all.slice(from, from + count);
  return {
    ...(pc !== undefined ? { pc } : {}),
    instructions: shown,
    more: all.length > from + count,
    source: options.withSource ? await sourceOf(backend, shown, signal) : [],
  };
}
