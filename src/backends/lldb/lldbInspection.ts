// Reading the stopped program through lldb-dap: stacks (arguments from the frame names),
// threads, variables, expressions (without side effects), registers, symbols.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Frame, Register, Thread, Variable } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import type { FrameSelector, ValueFormat } from '../debuggerBackend.js';
import type { LldbContext } from './lldbContext.js';
import { parseSymbolSummary, tidyValue } from './lldbNarrow.js';
import { assertOneLine, checkReadOnly, formattedResult, renderValue } from './lldbValues.js';

export async function stack(
  g: LldbContext,
  options: { threadId?: number; from?: number; to?: number; withArgs?: boolean },
  signal?: AbortSignal,
): Promise<Frame[]> {
  const thread = options.threadId ?? g.state.stopThread;
  if (thread === undefined) throw new DebuggerError('wrong_state', 'no thread is stopped');
  const from = options.from ?? 0;
  const to = options.to ?? from + 19;
  const frames = await g.frames(thread, from, to, signal);
  return frames.map(({ frame }) => {
    if (options.withArgs) return { ...frame, args: frame.args ?? [] };
    const { args: _args, ...rest } = frame;
    return rest;
  });
}

/**
 * Frames on a thread's stack, counting at most `max`. A `stackTrace` of one frame at level N is
 * empty past the end, so a binary search finds the depth in about log2(max) small requests rather
 * than formatting every frame (`totalFrames` is a paging hint: levels + 20, not a count).
 */
export async function stackDepth(
  g: LldbContext,
  threadId: number | undefined,
  max: number,
  signal?: AbortSignal,
): Promise<number> {
  const thread = threadId ?? g.state.stopThread;
  if (thread === undefined) throw new DebuggerError('wrong_state', 'no thread is stopped');
  const exists = async (level: number): Promise<boolean> => {
    const body = await g.request('stackTrace', { threadId: thread, startFrame: level, levels: 1 }, { signal });
    return body.stackFrames.length > 0;
  };
  if (await exists(max - 1)) return max;
  let lo = 0; // a level known to exist
  let hi = max - 1; // a level known not to
  if (!(await exists(0))) return 0;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await exists(mid)) lo = mid;
    else hi = mid;
  }
  return lo + 1;
}

export async function threads(
  g: LldbContext,
  signal?: AbortSignal,
): Promise<{ threads: Thread[]; currentThreadId?: number }> {
  const body = await g.request('threads', undefined, { signal });
  // lldb-dap's thread ids are the OS's (the LWP): the lock owner glibc records is one of them.
  const list: Thread[] = body.threads.map((t) => ({
    id: t.id,
    targetId: `LWP ${t.id}`,
    osThreadId: t.id,
    ...(t.name ? { name: t.name } : {}),
    state: 'stopped',
    group: 'i1',
  }));
  const current = g.state.stopThread;
  return current !== undefined && list.some((t) => t.id === current)
    ? { threads: list, currentThreadId: current }
    : { threads: list };
}

/** The Locals scope of a frame (which also selects it in LLDB). */
async function localsScope(g: LldbContext, frameId: number, signal?: AbortSignal): Promise<DebugProtocol.Scope> {
  const body = await g.request('scopes', { frameId }, { signal });
  g.state.selectedFrame = frameId;
  const scope = body.scopes.find((s) => s.presentationHint === 'locals') ?? body.scopes[0];
  if (!scope) throw new DebuggerError('debugger_error', 'lldb-dap gave this frame no scopes');
  return scope;
}

/**
 * Locals and arguments. lldb-dap's Locals scope holds both, arguments first (their order in the
 * debug info); the frame's name (FRAME_FORMAT) says which names are arguments.
 */
export async function variables(
  g: LldbContext,
  which: 'locals' | 'args' | 'all',
  selector: FrameSelector,
  options: { types?: boolean },
  signal?: AbortSignal,
): Promise<Variable[]> {
  const thread = selector.threadId ?? g.state.stopThread;
  if (thread === undefined) throw new DebuggerError('wrong_state', 'no thread is stopped');
  const level = selector.frame ?? 0;
  const [entry] = await g.frames(thread, level, level, signal);
  if (!entry) throw new DebuggerError('invalid_argument', `frame ${level} does not exist`, { fields: ['frame'] });
  const scope = await localsScope(g, entry.id, signal);
  const body = await g.request('variables', { variablesReference: scope.variablesReference }, { signal });
  const argNames = (entry.frame.args ?? []).map((a) => a.name);
  const out: Variable[] = [];
  for (const v of body.variables) {
    // The first variable of each argument's name is the argument; a later one shadows it.
    const argAt = argNames.indexOf(v.name);
    const isArg = argAt >= 0;
    if (isArg) argNames.splice(argAt, 1);
    if ((which === 'locals' && isArg) || (which === 'args' && !isArg)) continue;
    const variable: Variable = { name: v.name, value: await renderValue(g, v, signal) };
    if (options.types && v.type) variable.type = v.type;
    if (which === 'all' && isArg) variable.isArg = true;
    out.push(variable);
  }
  return out;
}

const FORMAT_LETTERS: Partial<Record<ValueFormat, string>> = { decimal: 'd', octal: 'o', binary: 'b' };

/** A failed LLDB expression, in its own words without the notes around them. */
function expressionError(text: string): DebuggerError {
  if (/Interpreter doesn't handle one of the expression's opcodes|can't be interpreted|JIT/.test(text)) {
    return new DebuggerError(
      'debugger_error',
      'this expression needs code run in the program (a function call): calling functions of the program is disabled on this server (start it with --inferior-calls on); read the values the call would use instead',
      undefined,
      { reason: 'side-effect' },
    );
  }
  const lines = text
    .split('\n')
    .filter((l) => !/^note: |Expression evaluation in pure C not supported/.test(l) && l.trim() !== '')
    .slice(0, 3);
  return new DebuggerError('debugger_error', lines.join('\n').replace(/^error: /, '') || 'the expression failed');
}

/** One expression through LLDB's command `expression`, without JIT when calls are off. */
export async function evaluateCommand(
  g: LldbContext,
  expression: string,
  selector: FrameSelector,
  flags: string,
  signal?: AbortSignal,
): Promise<string> {
  const noJit = g.options.allowInferiorCalls ? '' : ' --allow-jit false';
  const text = await g.repl(`expression${noJit}${flags} -- ${expression}`, selector, { signal });
  if (/^error: /m.test(text)) throw expressionError(text);
  return text;
}

/** A variable path read by lldb-dap's `hover` context: nothing runs, nothing is allocated. */
export async function readPath(
  g: LldbContext,
  expression: string,
  frameId: number,
  hex: boolean,
  signal?: AbortSignal,
): Promise<DebugProtocol.EvaluateResponse['body'] | undefined> {
  try {
    return await g.request(
      'evaluate',
      { expression, frameId, context: 'hover', ...(hex ? { format: { hex: true } } : {}) },
      { signal },
    );
  } catch (e) {
    if (e instanceof DebuggerError && e.code === 'debugger_error') return undefined;
    throw e;
  }
}

/** A scalar read in hex, shown in another number format (decimal keeps the sign LLDB printed). */
function inFormat(natural: string, hex: string, format: ValueFormat): string | undefined {
  const bits = /^0x[0-9a-fA-F]+$/.test(hex) ? BigInt(hex) : undefined;
  if (bits === undefined) return undefined;
  if (format === 'decimal') return /^-?\d+$/.test(natural) ? natural : bits.toString(10);
  if (format === 'octal') return `0${bits.toString(8)}`;
  return bits.toString(2);
}

/**
 * Evaluates without side effects. First as a variable path (`a.b`, `p->x`, `arr[2]`, `*p`,
 * `&x`), which lldb-dap's `hover` context reads without running or allocating anything; else,
 * when calls are allowed, through lldb-dap's expression evaluator; else through the `expression`
 * command without JIT, whose interpreter cannot call a function, then its result variable is
 * read back. That last way is kept for what is not a path (`x + 1`, a cast): LLDB's interpreter
 * gives its result a place in the target's memory (measured: the first such expression mapped a
 * page of the program's address space, through lldb-server), though it runs none of its code.
 */
export async function evaluate(
  g: LldbContext,
  expression: string,
  selector: FrameSelector & { format?: ValueFormat },
  signal?: AbortSignal,
): Promise<string> {
  assertOneLine(expression, 'expression');
  checkReadOnly(expression, 'expression', true, false);
  const format = selector.format ?? 'natural';
  const frameId = await g.frameId(selector, signal);
  const letter = FORMAT_LETTERS[format];
  const path = await readPath(g, expression, frameId, format === 'hex', signal);
  if (path && letter !== undefined) {
    if (path.variablesReference > 0 && !/^0x/.test(path.result)) return '{...}';
    const hex = await readPath(g, expression, frameId, true, signal);
    const value = hex ? inFormat(path.result, hex.result, format) : undefined;
    if (value !== undefined) return value;
  } else if (path) {
    return renderValue(g, { value: path.result, type: path.type, variablesReference: path.variablesReference }, signal);
  }
  if (letter !== undefined) {
    const text = await evaluateCommand(g, expression, selector, ` --format ${letter}`, signal);
    const value = formattedResult(text);
    if (value === undefined) throw new DebuggerError('debugger_error', text.trim() || 'the expression has no value');
    return value;
  }
  const hex = format === 'hex' ? { format: { hex: true } } : {};
  if (g.options.allowInferiorCalls) {
    try {
      const body = await g.request('evaluate', { expression, frameId, context: 'watch', ...hex }, { signal });
      return await renderValue(g, { value: body.result, type: body.type, variablesReference: body.variablesReference });
    } catch (e) {
      throw e instanceof DebuggerError && e.code === 'debugger_error' ? expressionError(e.message) : e;
    }
  }
  const text = await evaluateCommand(g, expression, selector, '', signal);
  const result = /^\([^\n]*?\) (\$\d+) = /m.exec(text)?.[1];
  if (result === undefined) return text.trim();
  // The result variable is a copy kept by LLDB: reading it back runs nothing.
  const body = await g.request('evaluate', { expression: result, frameId, context: 'watch', ...hex }, { signal });
  return renderValue(g, { value: body.result, type: body.type, variablesReference: body.variablesReference });
}

export async function assign(
  g: LldbContext,
  target: string,
  value: string,
  selector: FrameSelector,
  signal?: AbortSignal,
): Promise<string> {
  assertOneLine(target, 'target');
  assertOneLine(value, 'value');
  // The value is read only; the assignment is the one write allowed.
  checkReadOnly(value, 'value', true, false);
  if (g.options.allowInferiorCalls) {
    const frameId = await g.frameId(selector, signal);
    const body = await g
      .request('evaluate', { expression: `${target} = ${value}`, frameId, context: 'watch' }, { signal })
      .catch((e: unknown) => {
        throw e instanceof DebuggerError && e.code === 'debugger_error' ? expressionError(e.message) : e;
      });
    return renderValue(g, { value: body.result, type: body.type, variablesReference: body.variablesReference });
  }
  await evaluateCommand(g, `${target} = (${value})`, selector, '', signal);
  return evaluate(g, target, selector, signal);
}

/** The general registers end where the sub-registers begin (x86-64: eax, AArch64: w0). */
const FIRST_SUBREGISTER = /^(eax|w0)$/;

interface RegisterEntry {
  name: string;
  value: string;
}

/** The register sets of a frame (General Purpose, Floating Point, vector…), read lazily. */
async function registerSets(
  g: LldbContext,
  selector: FrameSelector,
  signal?: AbortSignal,
): Promise<{ name: string; ref: number }[]> {
  const frameId = await g.frameId(selector, signal);
  const body = await g.request('scopes', { frameId }, { signal });
  g.state.selectedFrame = frameId;
  const scope = body.scopes.find((s) => s.presentationHint === 'registers' || s.name === 'Registers');
  if (!scope) throw new DebuggerError('debugger_error', 'lldb-dap gave this frame no registers');
  const sets = await g.request('variables', { variablesReference: scope.variablesReference }, { signal });
  return sets.variables.map((v) => ({ name: v.name, ref: v.variablesReference }));
}

function formatRegister(value: string, format: ValueFormat): string {
  // `0x00007ffff7e59f16 libc.so.6\`__futex_abstimed_wait_common + 198 …`: the number, then a symbol.
  const hex = /^0x[0-9a-fA-F]+/.exec(value)?.[0];
  if (hex === undefined) return value.split('\n')[0] ?? value;
  const n = BigInt(hex);
  switch (format) {
    case 'decimal':
      return n.toString(10);
    case 'octal':
      return `0${n.toString(8)}`;
    case 'binary':
      return n.toString(2);
    default:
      return tidyValue(hex.toLowerCase());
  }
}

export async function registers(
  g: LldbContext,
  selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
  signal?: AbortSignal,
): Promise<Register[]> {
  const sets = await registerSets(g, selector, signal);
  const format = selector.format ?? 'hex';
  const read = async (ref: number): Promise<RegisterEntry[]> =>
    (await g.request('variables', { variablesReference: ref }, { signal })).variables.map((v) => ({
      name: v.name,
      value: v.value,
    }));
  const general = sets[0] ? await read(sets[0].ref) : [];
  if (!selector.names || selector.names.length === 0) {
    const end = general.findIndex((r) => FIRST_SUBREGISTER.test(r.name));
    return general
      .slice(0, end < 0 ? general.length : end)
      .map((r, i) => ({ number: i, name: r.name, value: formatRegister(r.value, format) }));
  }
  const all: RegisterEntry[] = [...general];
  const out: Register[] = [];
  for (const want of selector.names) {
    let at = all.findIndex((r) => r.name === want);
    for (let s = 1; at < 0 && s < sets.length; s++) {
      const set = sets[s];
      if (!set) continue;
      all.push(...(await read(set.ref)));
      sets[s] = { name: set.name, ref: 0 };
      at = all.findIndex((r) => r.name === want);
    }
    const found = all[at];
    if (!found) throw new DebuggerError('invalid_argument', `no register named ${JSON.stringify(want)}`);
    out.push({ number: at, name: found.name, value: formatRegister(found.value, format) });
  }
  return out;
}

const STACK_POINTER: Readonly<Record<string, string>> = { x64: 'rsp', arm64: 'sp', ia32: 'esp' };

export async function stackPointer(
  g: LldbContext,
  selector: FrameSelector,
  signal?: AbortSignal,
): Promise<bigint | undefined> {
  const name = STACK_POINTER[process.arch];
  if (name === undefined) return undefined;
  const [sp] = await registers(g, { ...selector, names: [name], format: 'hex' }, signal);
  const m = /^0x[0-9a-fA-F]+/.exec(sp?.value ?? '');
  return m ? BigInt(m[0]) : undefined;
}

/** `image lookup -a ADDR`: the symbol an address lies in ("ledger"). */
export async function symbolAt(g: LldbContext, address: bigint, signal?: AbortSignal): Promise<string | undefined> {
  const text = await g.repl(`image lookup -a 0x${address.toString(16)}`, undefined, { signal, timeoutMs: 2000 });
  return parseSymbolSummary(text);
}
