// Values as the answers show them, and what an expression may do. lldb-dap names an aggregate by
// its type (`rec` is "record", `numbers` is "int[4]") and hands out its members by reference; the
// answers want GDB's one-line form (`{id = 7, score = 2.5, name = "seven"}`), so the members are
// read here, bounded in depth and count. And since LLDB evaluates expressions by running them
// (its IR interpreter writes memory for `x = 1`), the operators that write are refused before an
// expression reaches it, outside string and character literals.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebuggerError } from '../../util/errors.js';
import { expressionEffects } from '../shares/expressionEffects.js';
import type { LldbContext } from './lldbContext.js';
import { tidyValue } from './lldbNarrow.js';

/** Levels of members read below a value, members per level, and members per value in all. */
const MAX_DEPTH = 2;
const MAX_CHILDREN = 24;
const MAX_TOTAL = 64;
/** Characters past which no more members are read (the answers cut values at 300). */
const MAX_TEXT = 1024;

interface Budget {
  members: number;
}

/** A value lldb-dap shows as its type or its size, whose members say what it holds. */
function isBareAggregate(value: string, type: string | undefined): boolean {
  return value === '' || value === type || /^[\w:<>, ]+\[\d+\]$/.test(value) || value === '{...}';
}

/** A pointer, a string, a character, a number: complete as it is. */
function isComplete(value: string): boolean {
  return /^(0x[0-9a-fA-F]+|[LuU]?8?["']|-?\d|true$|false$|nullptr$|NULL$)/.test(value);
}

/** A DAP value on one line, its members read (bounded) when lldb-dap only named its type. */
export async function renderValue(
  g: LldbContext,
  v: { value: string; type?: string | undefined; variablesReference: number },
  signal?: AbortSignal,
  depth = 0,
  budget: Budget = { members: MAX_TOTAL },
): Promise<string> {
  const value = tidyValue(v.value);
  if (v.variablesReference <= 0 || isComplete(value)) return value;
  if (depth >= MAX_DEPTH || budget.members <= 0) return isBareAggregate(value, v.type) ? '{...}' : value;
  const count = Math.min(MAX_CHILDREN, budget.members);
  // One more than shown says whether there are more.
  const body = await g.request(
    'variables',
    { variablesReference: v.variablesReference, start: 0, count: count + 1 },
    { signal },
  );
  const children: DebugProtocol.Variable[] = body.variables.slice(0, count);
  let more = body.variables.length > count;
  budget.members -= children.length;
  const parts: string[] = [];
  let length = 0;
  for (const c of children) {
    const inner = await renderValue(g, c, signal, depth + 1, budget);
    // Array elements are `[0]`, `[1]`…: GDB lists them without names.
    const part = /^\[\d+\]$/.test(c.name) ? inner : `${c.name} = ${inner}`;
    parts.push(part);
    length += part.length + 2;
    if (length > MAX_TEXT) {
      more ||= parts.length < children.length;
      break;
    }
  }
  if (more) parts.push('...');
  const summary = isBareAggregate(value, v.type) ? '' : `${value} `;
  return `${summary}{${parts.join(', ')}}`;
}

/**
 * Whether an expression writes: `=` and its compound forms (`+=`, `<<=`…), `++`, `--`, `new` and
 * `delete`, read by the one analysis (shares/expressionEffects.ts: comments, literals, raw strings).
 * The comparisons `==`, `!=`, `<=` and `>=` do not. Text left open (a literal, a comment) counts:
 * where the code resumes cannot be known.
 */
export function writesProgram(expression: string): boolean {
  return expressionEffects(expression, 'lldb').some((e) => e.kind === 'write' || e.kind === 'unreadable');
}

/**
 * Whether an expression may call a function (`f(x)`, `obj.m()`, `(*fp)(1)`, a cast function
 * pointer `((int(*)(const char*))&system)("…")`). Conditions and logpoint expressions run through
 * LLDB's expression evaluator with JIT, which calls functions.
 */
export function callsFunction(expression: string): boolean {
  return expressionEffects(expression, 'lldb').some((e) => e.kind === 'program-call');
}

/** Refuses an expression that would change the program where only reads are allowed. */
export function checkReadOnly(expression: string, field: string, allowCalls: boolean, calls = true): void {
  const effects = expressionEffects(expression, 'lldb');
  const write = effects.find((e) => e.kind === 'write' || e.kind === 'unreadable');
  if (write !== undefined) {
    throw new DebuggerError(
      'invalid_argument',
      `${field}: this expression would change the program (${write.reason}): only dbg_evaluate assign changes values`,
      { fields: [field] },
      { reason: 'side-effect' },
    );
  }
  const call = effects.find((e) => e.kind === 'program-call');
  if (call !== undefined && calls && !allowCalls) {
    throw new DebuggerError(
      'invalid_argument',
      `${field}: calling functions of the program is disabled on this server (start it with --inferior-calls on): ${call.reason}; read the values the call would use instead`,
      { fields: [field] },
      { reason: 'side-effect' },
    );
  }
}

/** An LLDB command line may not carry a line break: lldb-dap runs each line as a command. */
export function assertOneLine(text: string, field: string): void {
  if (/[\r\n\0]/.test(text)) {
    throw new DebuggerError('invalid_argument', `${field}: must be one line without NUL`, { fields: [field] });
  }
}

/**
 * A value in a number format, from LLDB's own formatting of the expression (`-f d`, `-f o`,
 * `-f b`): `(int) $3 = -12`. An aggregate comes back as more than one line: "{...}".
 */
export function formattedResult(text: string): string | undefined {
  const m = /^\([^)\n]*(?:\([^)\n]*\)[^)\n]*)*\) \$\d+ = (.*)$/m.exec(text);
  if (!m || m[1] === undefined) return undefined;
  const value = m[1].trim();
  if (value === '{') return '{...}';
  // `0b00000000000000000000000000010100`: GDB's binary has neither the prefix nor the padding.
  const binary = /^0b0*([01]+)$/.exec(value);
  return binary?.[1] ? binary[1] : tidyValue(value);
}
