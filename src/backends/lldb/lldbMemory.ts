// Memory and machine code through lldb-dap: reading (the adapter says how much past the readable
// part is unmapped), writing, and disassembly around the pc, of a function, or of a range.

import type { MemoryBlock } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import type { DisassembleRequest, Disassembly, FrameSelector } from '../debuggerBackend.js';
import type { LldbContext } from './lldbContext.js';
import { evaluateCommand, readPath } from './lldbInspection.js';
import { narrowInstructions, tidyValue } from './lldbNarrow.js';
import { assertOneLine, checkReadOnly } from './lldbValues.js';

/** Instructions read for a function or a range at most (the answers show 400 at most). */
const MAX_INSTRUCTIONS = 1024;

/**
 * The address an expression names, as C reads it: a pointer's value, an array's first element.
 * lldb-dap's `readMemory` takes an address only. A variable path (`edge`, `&rec`, `greeting`)
 * is read as such; anything else is cast to an integer by LLDB's `expression` (no JIT), which
 * gives its result a place in the target (see lldbInspection.evaluate): measured, that mapping
 * landed on the unmapped page after `edge` and made it readable, so it is the last resort.
 */
export async function addressOf(
  g: LldbContext,
  expression: string,
  selector: FrameSelector = {},
  signal?: AbortSignal,
): Promise<bigint> {
  const text = expression.trim();
  if (/^0x[0-9a-fA-F]{1,16}$/.test(text) || /^\d{1,20}$/.test(text)) return BigInt(text);
  assertOneLine(text, 'address');
  checkReadOnly(text, 'address', true, false);
  const frameId = await g.frameId(selector, signal).catch(() => undefined);
  const path = frameId === undefined ? undefined : await readPath(g, text, frameId, true, signal);
  if (path) {
    const pointer = /^0x[0-9a-fA-F]+/.exec(path.result)?.[0];
    if (pointer !== undefined && path.variablesReference >= 0 && !/\[\d*\]$/.test(path.type ?? '')) {
      return BigInt(pointer);
    }
    // An array names its first element's address, which lldb-dap gives as the value's location.
    if (/\[\d*\]$/.test(path.type ?? '') && path.memoryReference) return BigInt(path.memoryReference);
  }
  const said = await evaluateCommand(g, `(unsigned long long)(${text})`, selector, ' --format x', signal);
  const m = /= (0x[0-9a-fA-F]+)\s*$/m.exec(said);
  if (!m?.[1]) throw new DebuggerError('debugger_error', `${expression} is not an address`);
  return BigInt(m[1]);
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

export async function readMemory(
  g: LldbContext,
  address: string,
  count: number,
  signal?: AbortSignal,
): Promise<MemoryBlock[]> {
  const at = await addressOf(g, address, {}, signal);
  const body = await g.request('readMemory', { memoryReference: hex(at), count }, { signal });
  const bytes = Buffer.from(body.data ?? '', 'base64');
  if (bytes.length === 0) {
    throw new DebuggerError(
      'debugger_error',
      `cannot read memory at ${hex(at)}: nothing is mapped there`,
      { address: hex(at) },
      { reason: 'unreadable' },
    );
  }
  return [{ address: hex(at), hex: bytes.toString('hex'), unreadable: Math.max(0, count - bytes.length) }];
}

export async function writeMemory(
  g: LldbContext,
  address: string,
  hexBytes: string,
  signal?: AbortSignal,
): Promise<void> {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hexBytes)) {
    throw new DebuggerError('invalid_argument', 'bytes must be pairs of hex digits');
  }
  const at = await addressOf(g, address, {}, signal);
  const data = Buffer.from(hexBytes, 'hex');
  const body = await g.request('writeMemory', { memoryReference: hex(at), data: data.toString('base64') }, { signal });
  if (body.bytesWritten !== undefined && body.bytesWritten < data.length) {
    throw new DebuggerError(
      'debugger_error',
      `only ${body.bytesWritten} of ${data.length} bytes were written at ${hex(at)}`,
    );
  }
}

async function instructionsAt(g: LldbContext, start: bigint, offset: number, count: number, signal?: AbortSignal) {
  const body = await g.request(
    'disassemble',
    { memoryReference: hex(start), instructionOffset: offset, instructionCount: count, resolveSymbols: true },
    { signal },
  );
  return narrowInstructions(body.instructions);
}

/** Where a function begins and how many instructions it has (`disassemble -n` lists them). */
async function functionExtent(
  g: LldbContext,
  name: string,
  signal?: AbortSignal,
): Promise<{ start: bigint; count: number }> {
  if (!/^[\w:~<>,.*&() [\]-]+$/.test(name)) {
    throw new DebuggerError('invalid_argument', `function: ${JSON.stringify(name)} is not a function name`, {
      fields: ['function'],
    });
  }
  const text = await g.repl(`disassemble -n "${name}"`, undefined, { signal });
  const addresses = [...text.matchAll(/^\s*(?:->\s*)?(0x[0-9a-fA-F]+) <\+\d+>:/gm)].map((m) => BigInt(m[1] ?? '0'));
  const first = addresses[0];
  if (first === undefined) {
    const said = text.trim().split('\n')[0] ?? '';
    throw new DebuggerError('debugger_error', said.replace(/^error: /, '') || `no function ${name}`);
  }
  // `disassemble -n` of a name with several matches lists each: the first function is the one shown.
  let count = 1;
  while (count < addresses.length && (addresses[count] ?? 0n) > (addresses[count - 1] ?? 0n)) count++;
  return { start: first, count: Math.min(count, MAX_INSTRUCTIONS) };
}

export async function disassemble(
  g: LldbContext,
  request: DisassembleRequest,
  signal?: AbortSignal,
): Promise<Disassembly> {
  const thread = request.threadId ?? g.state.stopThread;
  const level = request.frame ?? 0;
  const frame = thread === undefined ? undefined : (await g.frames(thread, level, level, signal))[0];
  const pcText = frame?.frame.address;
  const pc = pcText === undefined ? undefined : BigInt(pcText);
  const withPc = (instructions: ReturnType<typeof narrowInstructions>): Disassembly =>
    pcText === undefined ? { instructions } : { instructions, pc: tidyValue(pcText) };
  const span = request.span;
  if ('around' in span) {
    if (pc === undefined) {
      throw new DebuggerError(
        'wrong_state',
        'there is no pc to disassemble around (nothing runs): give function or start',
      );
    }
    return withPc(await instructionsAt(g, pc, -span.before, span.before + span.after + 1, signal));
  }
  if ('function' in span) {
    const { start, count } = await functionExtent(g, span.function, signal);
    return withPc(await instructionsAt(g, start, 0, count, signal));
  }
  const selector = { ...(thread !== undefined ? { threadId: thread } : {}), frame: level };
  const start = await addressOf(g, span.start, selector, signal);
  const end = await addressOf(g, span.end, selector, signal);
  if (end <= start) throw new DebuggerError('invalid_argument', 'end: must lie after start', { fields: ['end'] });
  const count = Number(end - start > BigInt(MAX_INSTRUCTIONS) ? BigInt(MAX_INSTRUCTIONS) : end - start);
  const list = await instructionsAt(g, start, 0, count, signal);
  return withPc(list.filter((i) => BigInt(i.address) < end));
}
