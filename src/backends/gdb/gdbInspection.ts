// Reading the stopped program: stacks, threads, variables, expressions, registers, symbols.

import type { Frame, Register, Thread, Variable } from '../../model/model.js';
import {
  dataEvaluateExpression,
  dataListRegisterNames,
  dataListRegisterValues,
  type RegisterFormat,
  varCreate,
  varDelete,
  varEvaluateExpression,
} from '../../protocols/mi/commands/data.js';
import {
  stackInfoDepth,
  stackListArguments,
  stackListFrames,
  stackListVariables,
} from '../../protocols/mi/commands/stack.js';
import { threadInfo } from '../../protocols/mi/commands/target.js';
import { DebuggerError } from '../../util/errors.js';
import type { FrameSelector, StackOptions, ValueFormat } from '../debuggerBackend.js';
import type { GdbContext } from './gdbContext.js';
import { explainEvaluation } from './gdbErrors.js';
import {
  narrowDepth,
  narrowFrameVariables,
  narrowRegisterNames,
  narrowRegisterValues,
  narrowStack,
  narrowStackArgs,
  narrowThreads,
  narrowValue,
  narrowVarName,
} from './gdbNarrow.js';
import { expressionEffect } from './gdbRawPolicy.js';

export async function stack(g: GdbContext, options: StackOptions, signal?: AbortSignal): Promise<Frame[]> {
  const thread = g.frame({ threadId: options.threadId }).thread;
  const r = await stackListFrames(g.mi, { thread, low: options.from, high: options.to }, { signal });
  const frames = narrowStack(r.results);
  g.noteSources(frames);
  if (!options.withArgs || frames.length === 0) return frames;
  // Arguments only for the frames the answer shows: --simple-values looks up every argument's
  // type, and for the folded libc frames under pthread_join that took ~280 ms of a deadlock answer
  // (the two frames shown: ~1 ms).
  const wanted = options.withArgs === true ? frames.map((f) => f.level) : [...options.withArgs(frames)];
  // One after the other on purpose: measured here, GDB answers a second command that arrived
  // in the same read as the first about 2 ms late, so pipelining them made a stack view slower.
  for (const [low, high] of levelRuns(wanted)) {
    const a = await stackListArguments(g.mi, { thread, low, high, values: 'simple-values' }, { signal });
    const byLevel = narrowStackArgs(a.results);
    for (const f of frames) if (f.level >= low && f.level <= high) f.args = byLevel.get(f.level) ?? [];
  }
  return frames;
}

/** Levels as runs of consecutive ones, [low, high] each: one -stack-list-arguments per run. */
export function levelRuns(levels: Iterable<number>): [number, number][] {
  const sorted = [...new Set(levels)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const level of sorted) {
    const last = runs[runs.length - 1];
    if (last && level === last[1] + 1) last[1] = level;
    else runs.push([level, level]);
  }
  return runs;
}

export async function stackDepth(
  g: GdbContext,
  threadId: number | undefined,
  max: number,
  signal?: AbortSignal,
): Promise<number> {
  const r = await stackInfoDepth(g.mi, { thread: g.frame({ threadId }).thread, max }, { signal });
  return narrowDepth(r.results);
}

export async function threads(
  g: GdbContext,
  signal?: AbortSignal,
): Promise<{ threads: Thread[]; currentThreadId?: number }> {
  return narrowThreads((await threadInfo(g.mi, { signal })).results);
}

export async function variables(
  g: GdbContext,
  which: 'locals' | 'args' | 'all',
  selector: FrameSelector,
  options: { types?: boolean },
  signal?: AbortSignal,
): Promise<Variable[]> {
  const at = g.frame(selector);
  let vars = narrowFrameVariables(
    (await stackListVariables(g.mi, { ...at, values: 'all-values' }, { signal })).results,
  );
  if (options.types) {
    // --all-values gives no types; --simple-values gives every type (and scalar values).
    const typed = await stackListVariables(g.mi, { ...at, values: 'simple-values' }, { signal });
    const types = narrowFrameVariables(typed.results);
    vars = vars.map((v, i) => {
      const type = types[i]?.name === v.name ? types[i]?.type : undefined;
      return type === undefined ? v : { ...v, type };
    });
  }
  if (which === 'locals') return vars.filter((v) => !v.isArg);
  if (which === 'args') return vars.filter((v) => v.isArg);
  return vars;
}

const VAR_FORMATS = {
  hex: 'hexadecimal',
  decimal: 'decimal',
  octal: 'octal',
  binary: 'binary',
} as const;

export async function evaluate(
  g: GdbContext,
  expression: string,
  selector: FrameSelector & { format?: ValueFormat },
  signal?: AbortSignal,
): Promise<string> {
  // The interface promises no side effects: GDB would assign or increment here (may-write-memory
  // cannot be relied on alone: registers stay writable once the program runs).
  // Calls of the program's own functions are left to GDB's may-call-functions (the operator's
  // --inferior-calls), which says so; calls through debugger values never reach it.
  const effect = expressionEffect(expression, true);
  if (effect !== undefined) {
    throw new DebuggerError(
      'invalid_argument',
      `${effect}: evaluating only reads; to change a value use assign`,
      { fields: ['expressions'] },
      { reason: 'side-effect' },
    );
  }
  const at = g.frame(selector);
  const format = selector.format ?? 'natural';
  try {
    if (format === 'natural') {
      return narrowValue((await dataEvaluateExpression(g.mi, { ...at, expression }, { signal })).results);
    }
    // -data-evaluate-expression has no format; a variable object does.
    const name = narrowVarName((await varCreate(g.mi, { ...at, expression }, { signal })).results);
    if (!name) throw new DebuggerError('debugger_error', 'the debugger created no variable object');
    try {
      const r = await varEvaluateExpression(g.mi, { name, format: VAR_FORMATS[format] }, { signal });
      return narrowValue(r.results);
    } finally {
      await varDelete(g.mi, name).catch(() => {});
    }
  } catch (e) {
    throw explainEvaluation(e);
  }
}

export async function assign(
  g: GdbContext,
  target: string,
  value: string,
  selector: FrameSelector,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const r = await dataEvaluateExpression(
      g.mi,
      { ...g.frame(selector), expression: `${target} = ${value}` },
      { signal },
    );
    return narrowValue(r.results);
  } catch (e) {
    throw explainEvaluation(e);
  }
}

/**
 * The general registers lead GDB's list, before the first floating-point or vector one:
 * x86-64 rax…gs (24), AArch64 x0…cpsr (34), ARM r0…pc.
 */
export function generalRegisterCount(names: readonly string[]): number {
  const i = names.findIndex((n) => /^(st|v|xmm|ymm|zmm|q|d|f)\d+$|^(fpsr|fpcr|fctrl|mxcsr|fps)$/.test(n));
  return Math.min(i < 0 ? names.length : i, 48);
}

const REGISTER_FORMATS: Record<ValueFormat, RegisterFormat> = {
  natural: 'N',
  hex: 'x',
  decimal: 'd',
  octal: 'o',
  binary: 't',
};

export async function registers(
  g: GdbContext,
  selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
  signal?: AbortSignal,
): Promise<Register[]> {
  g.state.registerNames ??= narrowRegisterNames((await dataListRegisterNames(g.mi, { signal })).results);
  const names = g.state.registerNames;
  let numbers: number[] = [];
  if (selector.names && selector.names.length > 0) {
    for (const want of selector.names) {
      const i = names.indexOf(want);
      if (i < 0) throw new DebuggerError('invalid_argument', `no register named ${JSON.stringify(want)}`);
      numbers.push(i);
    }
  } else {
    // The general registers: the first block of named ones, before vector state.
    const general = generalRegisterCount(names);
    numbers = names.flatMap((n, i) => (n !== '' && i < general ? [i] : []));
  }
  const r = await dataListRegisterValues(
    g.mi,
    { ...g.frame(selector), format: REGISTER_FORMATS[selector.format ?? 'hex'], numbers },
    { signal },
  );
  return narrowRegisterValues(r.results, names);
}

export async function stackPointer(
  g: GdbContext,
  selector: FrameSelector,
  signal?: AbortSignal,
): Promise<bigint | undefined> {
  const value = await evaluate(g, '$sp', selector, signal);
  const m = /0x[0-9a-fA-F]+/.exec(value);
  return m ? BigInt(m[0]) : undefined;
}

/** `info symbol ADDR`: "ledger in section .bss" → "ledger"; a member, "savings + 16 in section .data" → "savings+16". */
export async function symbolAt(g: GdbContext, address: bigint, signal?: AbortSignal): Promise<string | undefined> {
  const said = await g.cli(`info symbol 0x${address.toString(16)}`, { timeoutMs: 2000, captureConsole: true, signal });
  const m = /^(\S+)(?: \+ (\d+))? in section /.exec(said.console.trim());
  return m?.[1] === undefined ? undefined : m[2] === undefined ? m[1] : `${m[1]}+${m[2]}`;
}
