// -data-* and -var-* commands: expressions, registers, memory, disassembly.

import type { MiCommandResult, MiSendOptions } from '../miConnection.js';
import { frameArgs, type MiFrameOptions, type MiSender } from './miSender.js';

export function dataEvaluateExpression(
  mi: MiSender,
  o: MiFrameOptions & { expression: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('data-evaluate-expression', [...frameArgs(o), o.expression], s);
}

export function dataListRegisterNames(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('data-list-register-names', [], s);
}

/** MI's register formats: N natural, x hex, d decimal, o octal, t binary. */
export type RegisterFormat = 'N' | 'x' | 'd' | 'o' | 't';

export function dataListRegisterValues(
  mi: MiSender,
  o: MiFrameOptions & { format: RegisterFormat; numbers: readonly number[] },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send(
    'data-list-register-values',
    [...frameArgs(o), '--skip-unavailable', o.format, ...o.numbers.map(String)],
    s,
  );
}

export function dataReadMemoryBytes(
  mi: MiSender,
  o: { address: string; count: number },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('data-read-memory-bytes', [o.address, String(o.count)], s);
}

export function dataWriteMemoryBytes(
  mi: MiSender,
  o: { address: string; hex: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('data-write-memory-bytes', [o.address, o.hex], s);
}

/** What `-data-disassemble` covers: a start-end range, or the function around an address. */
export type DisassembleSpan = { start: string; end: string } | { around: string };

/** Mode: 0 plain, 2 with opcodes, 4 with source, 5 with source and opcodes. */
export function dataDisassemble(
  mi: MiSender,
  o: MiFrameOptions & { span: DisassembleSpan; source: boolean; opcodes: boolean },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  const mode = o.source ? (o.opcodes ? '5' : '4') : o.opcodes ? '2' : '0';
  const span = 'around' in o.span ? ['-a', o.span.around] : ['-s', o.span.start, '-e', o.span.end];
  return mi.send('data-disassemble', [...frameArgs(o), ...span, '--', mode], s);
}

export function varCreate(
  mi: MiSender,
  o: MiFrameOptions & { expression: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('var-create', [...frameArgs(o), '-', '*', o.expression], s);
}

export function varEvaluateExpression(
  mi: MiSender,
  o: { name: string; format: 'natural' | 'hexadecimal' | 'decimal' | 'octal' | 'binary' },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('var-evaluate-expression', ['-f', o.format, o.name], s);
}

export function varDelete(mi: MiSender, name: string, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('var-delete', [name], s);
}
