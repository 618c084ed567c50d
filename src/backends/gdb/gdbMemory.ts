// Memory and machine code: reading (page by page where part of a range is unmapped), writing,
// and disassembly around the pc, of a function, or of a range.

import type { Instruction, MemoryBlock } from '../../model/model.js';
import {
  dataDisassemble,
  dataEvaluateExpression,
  dataReadMemoryBytes,
  dataWriteMemoryBytes,
} from '../../protocols/mi/commands/data.js';
import { DebuggerError } from '../../util/errors.js';
import type { DisassembleRequest, Disassembly } from '../debuggerBackend.js';
import type { GdbContext } from './gdbContext.js';
import { isUnreadable } from './gdbErrors.js';
import { narrowDisassembly, narrowMemory, narrowValue } from './gdbNarrow.js';
import { requireReadOnly } from './gdbReadOnly.js';

/** Readability of memory changes only at page boundaries (4 KiB, or a multiple of it). */
const MEMORY_PAGE = 4096n;
/** x86 instructions are at most 15 bytes; a window of N of them spans at most 15·N bytes. */
const MAX_INSTRUCTION_BYTES = 15;

export async function readMemory(
  g: GdbContext,
  address: string,
  count: number,
  signal?: AbortSignal,
): Promise<MemoryBlock[]> {
  requireReadOnly(address, 'address');
  try {
    const blocks = narrowMemory((await dataReadMemoryBytes(g.mi, { address, count }, { signal })).results);
    if (blocks.length === 1 && blocks[0]?.hex.length === count * 2) return blocks;
  } catch (e) {
    if (!isUnreadable(e)) throw e;
  }
  // Part of the range is unreadable. GDB 13 then answers with the readable part plus one byte
  // past the page boundary that it made up (end="0x…f001"), or with "Unable to read memory."
  // when the range starts readable; so read page by page: readability changes only there.
  const at = await dataEvaluateExpression(g.mi, { expression: `(char *)(${address})` }, { signal });
  const text = /^0x[0-9a-fA-F]+/.exec(narrowValue(at.results))?.[0];
  if (text === undefined) throw new DebuggerError('debugger_error', `${address} is not an address`);
  const start = BigInt(text);
  const end = start + BigInt(count);
  let hex = '';
  for (let from = start; from < end; ) {
    const pageEnd = (from / MEMORY_PAGE + 1n) * MEMORY_PAGE;
    const to = pageEnd < end ? pageEnd : end;
    const bytes = Number(to - from);
    try {
      const r = await dataReadMemoryBytes(g.mi, { address: `0x${from.toString(16)}`, count: bytes }, { signal });
      const block = narrowMemory(r.results)[0];
      if (block?.hex.length !== bytes * 2) break;
      hex += block.hex;
    } catch (e) {
      if (isUnreadable(e)) break;
      throw e;
    }
    from = to;
  }
  if (hex === '') {
    throw new DebuggerError(
      'debugger_error',
      `cannot read memory at 0x${start.toString(16)}: nothing is mapped there`,
      { address: `0x${start.toString(16)}` },
      { reason: 'unreadable' },
    );
  }
  return [{ address: `0x${start.toString(16)}`, hex, unreadable: count - hex.length / 2 }];
}

export async function writeMemory(g: GdbContext, address: string, hex: string, signal?: AbortSignal): Promise<void> {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex))
    throw new DebuggerError('invalid_argument', 'bytes must be pairs of hex digits');
  await dataWriteMemoryBytes(g.mi, { address, hex }, { signal });
}

/** The pc of the selected frame, or undefined when there is none (nothing runs). */
async function framePc(g: GdbContext, request: DisassembleRequest, signal?: AbortSignal): Promise<bigint | undefined> {
  try {
    const r = await dataEvaluateExpression(g.mi, { ...g.frame(request), expression: '$pc' }, { signal });
    const m = /0x[0-9a-fA-F]+/.exec(narrowValue(r.results));
    return m ? BigInt(m[0]) : undefined;
  } catch {
    return undefined;
  }
}

export async function disassemble(
  g: GdbContext,
  request: DisassembleRequest,
  signal?: AbortSignal,
): Promise<Disassembly> {
  const span0 = request.span;
  if ('start' in span0) {
    requireReadOnly(span0.start, 'start');
    requireReadOnly(span0.end, 'end');
  }
  if ('function' in span0) requireReadOnly(span0.function, 'function');
  const at = g.frame(request);
  const form = { source: request.withSource ?? false, opcodes: request.withOpcodes ?? false };
  const span = request.span;
  if ('around' in span && span.before === 0) {
    // Only the instruction at the pc and what follows (the crash view's faulting instruction):
    // the first instruction's address is the pc, so the pc needs no reading of its own.
    const r = await dataDisassemble(
      g.mi,
      { ...at, ...form, span: { start: '$pc', end: `$pc+${(span.after + 1) * MAX_INSTRUCTION_BYTES + 1}` } },
      { signal },
    );
    const instructions = narrowDisassembly(r.results).slice(0, span.after + 1);
    const pc = instructions[0]?.address;
    return pc === undefined ? { instructions } : { instructions, pc };
  }
  const pc = await framePc(g, request, signal);
  const pcText = pc === undefined ? undefined : `0x${pc.toString(16)}`;
  const withPc = (instructions: Instruction[]): Disassembly =>
    pcText === undefined ? { instructions } : { instructions, pc: pcText };
  if ('function' in span) {
    const r = await dataDisassemble(g.mi, { ...at, ...form, span: { around: span.function } }, { signal });
    return withPc(narrowDisassembly(r.results));
  }
  if ('start' in span) {
    const r = await dataDisassemble(g.mi, { ...at, ...form, span }, { signal });
    return withPc(narrowDisassembly(r.results));
  }
  if (pcText === undefined) {
    throw new DebuggerError(
      'wrong_state',
      'there is no pc to disassemble around (nothing runs): give function or start',
    );
  }
  try {
    const r = await dataDisassemble(g.mi, { ...at, ...form, span: { around: pcText } }, { signal });
    return withPc(narrowDisassembly(r.results));
  } catch {
    // No function around the pc (stripped code): a window starting at the pc.
    const r = await dataDisassemble(g.mi, { ...at, ...form, span: { start: pcText, end: `${pcText}+64` } }, { signal });
    return withPc(narrowDisassembly(r.results));
  }
}
