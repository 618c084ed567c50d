// The origin of a bad value: the last write to it before a stop, found by deterministic
// re-execution. From the stop, the value's address is worked out (subjectAt); the program is run
// again from the start (same arguments, environment and stdin; ASLR is off, so the address is the
// same) with a watchpoint on that address, through every write, up to the same failure with the
// same value; the last write before it is then reached by a second re-execution that stops at
// that hit. A re-execution that does not reach the same failure with the same value is said, and
// no write is named: the program is not deterministic (threads racing, time, random input).
//
// No recording is needed, so this works where process record and rr cannot (an AMX CPU under
// GDB 13, a machine without performance counters). Watchpoints are the backend's: a backend on
// a machine whose hardware watchpoints never fire sets them in software and the answer says so.

import type { DebuggerBackend, FrameSelector } from '../../backends/debuggerBackend.js';
import type { Frame, StopEvent } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import type { RunOutcome } from '../runControl.js';
import type { Session } from '../session.js';
import { evaluateAddress, faultingPointerSource, type StopReads } from './loadChain.js';
import { assertCondition, candidateExpressions, conditionOperands } from './subject.js';

/** The value a stop is about: its expression, its address and size, its value there. */
export interface OriginSubject {
  expression: string;
  address: bigint;
  size: number;
  /** The value at the stop as the debugger shows it. */
  value: string;
  /** Its bytes at the stop, as an unsigned little-endian number. */
  raw: bigint | undefined;
  /** How the subject was worked out. */
  from: 'expression' | 'faulting operand' | 'assert condition' | 'double free';
  pointer: boolean;
}

export interface OriginFrame {
  function?: string;
  file?: string;
  line?: number;
}

export interface OriginFacts {
  expression: string;
  address: string;
  /** write: the last write is the answer's stop; never_written; not_reproduced: no write named. */
  kind: 'write' | 'never_written' | 'double_free' | 'not_reproduced';
  write?: {
    function?: string;
    file?: string;
    line?: number;
    thread?: number;
    before?: string;
    after?: string;
    /** The program's own frame that called into a library where the write happened. */
    calledFrom?: OriginFrame;
    stack: OriginFrame[];
  };
  /** For not_reproduced: what the re-execution did instead. */
  why?: string;
  /** The heap block the value lies in, when the search looked: where it was allocated and freed. */
  block?: BlockHistory;
  technique: string;
  cost: { ms: number; runs: number; hits: number };
  /** How to get back to the failure. */
  back: string;
}

export interface OriginResult {
  outcome: RunOutcome;
  origin: OriginFacts;
}

export interface OriginRequest {
  expression?: string;
  timeoutMs: number;
  /** Typed into the program's terminal at each re-execution, as at the first run. */
  stdin?: { text: string; eof: boolean };
}

export interface BlockEvent {
  /** The program's own line that called the allocator or free. */
  at: OriginFrame;
  address: string;
  size?: number;
}

export interface BlockHistory {
  allocated?: BlockEvent;
  /** Frees of the block before the failure, in order (a double free has two). */
  freed: BlockEvent[];
  /** An allocation of the same block after it was freed (a reuse). */
  reused?: BlockEvent;
  /** Why nothing is named, when so (no debug info for the C library's allocator). */
  unknown?: string;
}

/** Writes to follow in one re-execution at most: a value written in a loop forever is out of reach. */
const MAX_HITS = 100_000;

/** The failure as the stop shows it, to recognise in a re-execution. */
interface FailurePoint {
  reason: StopEvent['reason'];
  signal?: string;
  breakpoint?: string;
  function?: string;
  line?: number;
  /** Which occurrence of such a stop (a breakpoint's hit count). */
  occurrence: number;
}

function failurePoint(stop: StopEvent, hits: number | undefined): FailurePoint {
  return {
    reason: stop.reason,
    ...(stop.signal?.name ? { signal: stop.signal.name } : {}),
    ...(stop.breakpoint ? { breakpoint: stop.breakpoint } : {}),
    ...(stop.frame?.function ? { function: stop.frame.function } : {}),
    ...(stop.frame?.line !== undefined ? { line: stop.frame.line } : {}),
    occurrence: hits ?? 1,
  };
}

function samePlace(p: FailurePoint, stop: StopEvent): boolean {
  return (
    p.reason === stop.reason &&
    p.signal === stop.signal?.name &&
    p.breakpoint === stop.breakpoint &&
    p.function === stop.frame?.function &&
    p.line === stop.frame?.line
  );
}

function describePlace(stop: StopEvent): string {
  const what = stop.signal?.name ?? (stop.breakpoint ? `breakpoint ${stop.breakpoint}` : stop.reason);
  const f = stop.frame;
  return `${what}${f?.function ? ` in ${f.function}` : ''}${f?.file ? ` at ${f.file}:${f.line ?? '?'}` : ''}`;
}

function lastHex(text: string): bigint | undefined {
  const all = text.match(/0x[0-9a-f]+/gi);
  const last = all?.[all.length - 1];
  return last ? BigInt(last) : undefined;
}

function hex(v: bigint): string {
  return `0x${v.toString(16)}`;
}

function littleEndian(hexBytes: string): bigint {
  let v = 0n;
  for (let i = hexBytes.length - 2; i >= 0; i -= 2)
    v = (v << 8n) | BigInt(Number.parseInt(hexBytes.slice(i, i + 2), 16));
  return v;
}

async function readRaw(
  backend: DebuggerBackend,
  address: bigint,
  size: number,
  signal?: AbortSignal,
): Promise<bigint | undefined> {
  try {
    const blocks = await backend.readMemory(hex(address), size, signal);
    const bytes = blocks.map((b) => b.hex).join('');
    return bytes.length === size * 2 ? littleEndian(bytes) : undefined;
  } catch {
    return undefined;
  }
}

/** The first frame of the program's own code (with a source line, outside the runtime's). */
function programFrame(backend: DebuggerBackend, frames: readonly Frame[]): Frame | undefined {
  return frames.find((f) => f.line !== undefined && f.file !== undefined && !backend.runtime.isSystemFrame(f));
}

async function sourceText(backend: DebuggerBackend, frame: Frame, signal?: AbortSignal): Promise<string> {
  const file = frame.fullname ?? frame.file;
  if (file === undefined || frame.line === undefined) return '';
  const lines = await backend.sourceLines(file, frame.line, frame.line, signal).catch(() => []);
  return lines.find((l) => l.line === frame.line)?.text ?? '';
}

/** `&(expr)` and `sizeof(expr)` in a frame; undefined when it is not an lvalue there. */
async function lvalue(
  backend: DebuggerBackend,
  expression: string,
  at: FrameSelector,
  signal?: AbortSignal,
): Promise<{ address: bigint; size: number; value: string } | undefined> {
  try {
    const address = lastHex(await backend.evaluate(`&(${expression})`, at, signal));
    const size = Number(await backend.evaluate(`sizeof(${expression})`, { ...at, format: 'decimal' }, signal));
    const value = await backend.evaluate(expression, at, signal);
    if (address === undefined || !Number.isFinite(size) || size <= 0) return undefined;
    return { address, size, value };
  } catch {
    return undefined;
  }
}

function looksLikePointer(value: string): boolean {
  return /^(?:\([^)]*\*\)\s*)?0x[0-9a-f]+/i.test(value.trim());
}

async function subjectFrom(
  backend: DebuggerBackend,
  expression: string,
  at: FrameSelector,
  from: OriginSubject['from'],
  signal?: AbortSignal,
): Promise<OriginSubject | undefined> {
  const lv = await lvalue(backend, expression, at, signal);
  if (!lv) return undefined;
  const size = Math.min(lv.size, 8);
  return {
    expression,
    address: lv.address,
    size,
    value: lv.value,
    raw: await readRaw(backend, lv.address, size, signal),
    from,
    pointer: looksLikePointer(lv.value),
  };
}

/**
 * The value a stop is about: `expression` when given (in the program's innermost frame); for a
 * fault, the memory the dereferenced pointer was loaded from, named by the source line's
 * expression at that address; for a failed assert, the first operand of its condition that is
 * an lvalue.
 */
export async function subjectAt(
  backend: DebuggerBackend,
  stop: StopEvent,
  expression: string | undefined,
  signal?: AbortSignal,
): Promise<OriginSubject> {
  const threadId = stop.threadId;
  const thread = threadId !== undefined ? { threadId } : {};
  const frames = await backend.stack({ ...thread, from: 0, to: 31 }, signal);
  const own = programFrame(backend, frames);
  const ownAt: FrameSelector = { ...thread, frame: own?.level ?? 0 };
  if (expression !== undefined) {
    const s = await subjectFrom(backend, expression, ownAt, 'expression', signal);
    if (!s) {
      throw new DebuggerError(
        'invalid_argument',
        `expression: \`${expression}\` is not a value with an address in ${own?.function ?? 'the current frame'} (give a variable, field or element)`,
        { field: 'expression' },
      );
    }
    return s;
  }
  const signalName = stop.signal?.name;
  if (signalName === 'SIGSEGV' || signalName === 'SIGBUS') {
    const s = await faultSubject(backend, stop, frames, signal);
    if (s) return s;
    throw new DebuggerError(
      'invalid_argument',
      'expression: the dereferenced pointer was not loaded from memory this search can follow (a register argument, arithmetic); give the expression whose origin you want',
      { field: 'expression' },
    );
  }
  const ownText = own ? await sourceText(backend, own, signal) : '';
  const freed = signalName === 'SIGABRT' ? /\bfree\s*\(\s*([^()]+?)\s*\)/.exec(ownText) : null;
  if (own && freed?.[1]) {
    // A free the allocator refused (a double free): the value is the pointer freed.
    try {
      const pointer = lastHex(await backend.evaluate(`(void *)(${freed[1]})`, ownAt, signal));
      if (pointer !== undefined) {
        return {
          expression: freed[1],
          address: pointer,
          size: 8,
          value: hex(pointer),
          raw: pointer,
          from: 'double free',
          pointer: true,
        };
      }
    } catch {
      // Not a value here: the assert rule below may still apply.
    }
  }
  if (own) {
    const condition = assertCondition(ownText);
    if (condition) {
      for (const operand of conditionOperands(condition)) {
        const s = await subjectFrom(backend, operand, ownAt, 'assert condition', signal);
        if (s) return s;
      }
    }
  }
  throw new DebuggerError(
    'invalid_argument',
    `expression: required at this stop (${describePlace(stop)}): only a fault or a failed assert says which value it is about`,
    { field: 'expression' },
  );
}

async function faultSubject(
  backend: DebuggerBackend,
  stop: StopEvent,
  frames: readonly Frame[],
  signal?: AbortSignal,
): Promise<OriginSubject | undefined> {
  const thread = stop.threadId !== undefined ? { threadId: stop.threadId } : {};
  const at = { ...thread, frame: 0 };
  const code = await backend.disassemble({ ...at, span: { around: 'pc', before: 64, after: 0 } }, signal);
  const pc = code.pc === undefined ? undefined : BigInt(code.pc);
  const faulting = code.instructions.findIndex((i) => BigInt(i.address) === pc);
  if (faulting < 0) return undefined;
  const source = faultingPointerSource(
    code.instructions.slice(0, faulting + 1).map((i) => i.instruction),
    faulting,
  );
  if (!source) return undefined;
  const registers = new Map<string, bigint | undefined>();
  const reads: StopReads = {
    register: async (name) => {
      if (!registers.has(name)) {
        const got = await backend.registers({ ...at, names: [name], format: 'hex' }, signal).catch(() => []);
        const v = got.find((r) => r.name === name)?.value;
        registers.set(name, v && /^0x[0-9a-f]+$/i.test(v) ? BigInt(v) : undefined);
      }
      return registers.get(name);
    },
    memory: (address, size) => readRaw(backend, address, size, signal),
  };
  const address = await evaluateAddress(source.address, reads);
  if (address === undefined) return undefined;
  const frame0 = frames[0];
  // The program's words for that memory: the expression of the faulting line at that address.
  if (frame0) {
    for (const candidate of candidateExpressions(await sourceText(backend, frame0, signal))) {
      const lv = await lvalue(backend, candidate, at, signal);
      if (lv && lv.address === address) {
        const size = Math.min(lv.size, 8);
        return {
          expression: candidate,
          address,
          size,
          value: lv.value,
          raw: await readRaw(backend, address, size, signal),
          from: 'faulting operand',
          pointer: true,
        };
      }
    }
  }
  const raw = await readRaw(backend, address, source.size, signal);
  return {
    expression: `*(void **)${hex(address)}`,
    address,
    size: source.size,
    value: raw === undefined ? '?' : hex(raw),
    raw,
    from: 'faulting operand',
    pointer: true,
  };
}

/** The expression a watchpoint on the subject's memory takes: an lvalue of its size at its address. */
export function watchExpression(subject: Pick<OriginSubject, 'address' | 'size' | 'pointer'>): string {
  const at = hex(subject.address);
  if (subject.pointer && subject.size === 8) return `*(void **)${at}`;
  const type =
    subject.size === 8
      ? 'long'
      : subject.size === 4
        ? 'int'
        : subject.size === 2
          ? 'short'
          : subject.size === 1
            ? 'char'
            : '';
  return type ? `*(${type} *)${at}` : `*(char (*)[${subject.size}])${at}`;
}

/** A watchpoint's old or new value as shown: "(void *) 0x0" reads "0x0". */
function shown(value: string | undefined): string | undefined {
  return value?.replace(/^\(void \*\)\s*/, '');
}

interface Hit {
  number: number;
  old?: string;
  new?: string;
  frame?: Frame;
  threadId?: number;
}

interface Reexecution {
  hits: Hit[];
  /** The failure was reached with the same value. */
  reached: boolean;
  /** What happened instead, when not. */
  why?: string;
  outcome: RunOutcome;
  watchpoint: string;
  software: boolean;
}

/** Runs the program from its start with a watchpoint on the subject, to the failure or to hit `stopAt`. */
async function reexecute(
  session: Session,
  subject: OriginSubject,
  failure: FailurePoint,
  options: { stopAt?: number; deadline: number; stdin?: OriginRequest['stdin']; signal?: AbortSignal },
): Promise<Reexecution> {
  const { deadline, signal } = options;
  const left = (): number => Math.max(1, deadline - Date.now());
  let outcome = await session.run(
    { action: 'restart', startMode: 'main', timeoutMs: left(), onTimeout: 'interrupt' },
    signal,
  );
  // Typed at main, before the program reads: its new terminal keeps it until then.
  if (options.stdin && outcome.kind === 'stopped') await typeInput(session, options.stdin, deadline, signal);
  if (outcome.kind !== 'stopped') {
    const why =
      outcome.kind === 'exited'
        ? 'the re-execution exited before main'
        : outcome.kind === 'dead'
          ? `the debugger is gone (${outcome.reason})`
          : 'the re-execution did not reach main in time';
    return { hits: [], reached: false, why, outcome, watchpoint: '', software: false };
  }
  const call = { phases: ['stopped'] as const, doing: 'watch the value', signal };
  const set = await session.setBreakpoint(
    { kind: 'watchpoint', expression: watchExpression(subject), location: true },
    call,
  );
  const watchpoint = set.breakpoint.number;
  const software = set.breakpoint.type === 'watchpoint';
  if (options.stopAt !== undefined && options.stopAt > 1) {
    await session.changeBreakpoints({ op: 'ignore', number: watchpoint, count: options.stopAt - 1 }, call);
  }
  const hits: Hit[] = [];
  let seen = 0;
  for (;;) {
    outcome = await session.run({ action: 'continue', timeoutMs: left(), onTimeout: 'interrupt' }, signal);
    if (outcome.kind !== 'stopped') break;
    const stop = outcome.stop;
    if (stop.breakpoint === watchpoint) {
      const number = options.stopAt ?? hits.length + 1;
      hits.push({
        number,
        ...(stop.watch?.old !== undefined ? { old: stop.watch.old } : {}),
        ...(stop.watch?.new !== undefined ? { new: stop.watch.new } : {}),
        ...(stop.frame ? { frame: stop.frame } : {}),
        ...(stop.threadId !== undefined ? { threadId: stop.threadId } : {}),
      });
      if (options.stopAt !== undefined) return { hits, reached: true, outcome, watchpoint, software };
      if (hits.length >= MAX_HITS || Date.now() >= deadline) {
        return {
          hits,
          reached: false,
          why: `the value was written ${hits.length} times before the search ran out of ${hits.length >= MAX_HITS ? 'writes to follow' : 'time'}`,
          outcome,
          watchpoint,
          software,
        };
      }
      continue;
    }
    if (samePlace(failure, stop)) {
      seen++;
      if (seen < failure.occurrence) continue;
      const raw = await session.query(
        ['stopped'],
        'read the value',
        (b, s) => readRaw(b, subject.address, subject.size, s),
        {
          signal,
        },
      );
      if (raw !== subject.raw) {
        return {
          hits,
          reached: false,
          why: `the re-execution reached the same ${describePlace(stop)} but ${subject.expression} was ${raw === undefined ? 'unreadable' : hex(raw)} there, not ${subject.raw === undefined ? '?' : hex(subject.raw)}: the program does not re-execute deterministically (threads racing, time, random input), so no write is named`,
          outcome,
          watchpoint,
          software,
        };
      }
      return { hits, reached: true, outcome, watchpoint, software };
    }
    if (stop.reason === 'breakpoint-hit') continue; // the caller's own breakpoints on the way
    return {
      hits,
      reached: false,
      why: `the re-execution stopped at ${describePlace(stop)} instead: the program does not re-execute deterministically, so no write is named`,
      outcome,
      watchpoint,
      software,
    };
  }
  const why =
    outcome.kind === 'exited'
      ? `the re-execution exited (${outcome.exit.signal ? `signal ${outcome.exit.signal.name}` : `code ${outcome.exit.code ?? '?'}`}) without reaching the failure: the program does not re-execute deterministically, so no write is named`
      : outcome.kind === 'dead'
        ? `the debugger is gone (${outcome.reason})`
        : 'the re-execution did not reach the failure within the deadline';
  return { hits, reached: false, why, outcome, watchpoint, software };
}

const ALLOCATORS = ['malloc', 'calloc', 'realloc'];
/** Calls to the allocator or free followed in one re-execution at most. */
const MAX_HEAP_CALLS = 20_000;

function firstNumber(text: string | undefined): bigint | undefined {
  const m = text === undefined ? null : /0x[0-9a-f]+|\b\d+\b/i.exec(text);
  return m ? BigInt(m[0]) : undefined;
}

/**
 * A re-execution from main with breakpoints on the allocator and on free: the calls whose block
 * holds `address` (or, for `pointer`, frees of exactly that pointer), each named by the program's
 * calling line, up to the failure. Needs the allocator's arguments and return value, which the
 * debugger knows only with the C library's debug info; without it, says so.
 */
async function blockHistory(
  session: Session,
  target: { address: bigint; pointer?: boolean },
  failure: FailurePoint,
  options: { deadline: number; stdin?: OriginRequest['stdin']; signal?: AbortSignal },
): Promise<{ history: BlockHistory; outcome: RunOutcome }> {
  const { deadline, signal } = options;
  const left = (): number => Math.max(1, deadline - Date.now());
  let outcome = await session.run(
    { action: 'restart', startMode: 'main', timeoutMs: left(), onTimeout: 'interrupt' },
    signal,
  );
  // Typed at main, before the program reads: its new terminal keeps it until then.
  if (options.stdin && outcome.kind === 'stopped') await typeInput(session, options.stdin, deadline, signal);
  const history: BlockHistory = { freed: [] };
  if (outcome.kind !== 'stopped')
    return { history: { ...history, unknown: 'the re-execution did not reach main' }, outcome };
  const call = { phases: ['stopped'] as const, doing: 'follow the heap', signal };
  const numbers = new Map<string, string>();
  for (const fn of [...ALLOCATORS, 'free']) {
    try {
      const set = await session.setBreakpoint({ kind: 'breakpoint', location: { function: fn } }, call);
      numbers.set(set.breakpoint.number, fn);
    } catch {
      // No such function in this program's libraries: nothing of it to follow.
    }
  }
  let calls = 0;
  let sawArguments = false;
  let seen = 0;
  try {
    for (;;) {
      outcome = await session.run({ action: 'continue', timeoutMs: left(), onTimeout: 'interrupt' }, signal);
      if (outcome.kind !== 'stopped') break;
      const stop = outcome.stop;
      const fn = stop.breakpoint ? numbers.get(stop.breakpoint) : undefined;
      if (fn === undefined) {
        if (samePlace(failure, stop) && ++seen >= failure.occurrence) break;
        if (stop.reason === 'breakpoint-hit') continue;
        break;
      }
      if (++calls > MAX_HEAP_CALLS || Date.now() >= deadline) {
        history.unknown = `the program called the allocator more than ${calls - 1} times before the search ran out of ${calls > MAX_HEAP_CALLS ? 'calls to follow' : 'time'}`;
        break;
      }
      const thread = stop.threadId !== undefined ? { threadId: stop.threadId } : {};
      const entry = await session.query(
        ['stopped'],
        'read the heap call',
        async (b, s) => {
          const frames = await b.stack({ ...thread, from: 0, to: 8, withArgs: (fs) => (fs.length > 0 ? [0] : []) }, s);
          return { args: frames[0]?.args ?? [], caller: programFrame(b, frames) };
        },
        { signal },
      );
      const arg = (i: number): bigint | undefined => firstNumber(entry.args[i]?.value);
      if (entry.args.length > 0) sawArguments = true;
      if (!entry.caller) continue; // the runtime's own allocations
      const at = originFrame(entry.caller);
      if (fn === 'free') {
        const p = arg(0);
        if (p === undefined || p === 0n) continue;
        const holds = target.pointer
          ? p === target.address
          : history.allocated && BigInt(history.allocated.address) === p;
        if (holds) history.freed.push({ at, address: hex(p) });
        continue;
      }
      const size = fn === 'calloc' ? (arg(0) ?? 0n) * (arg(1) ?? 0n) : fn === 'realloc' ? arg(1) : arg(0);
      const finished = await session.run({ action: 'finish', timeoutMs: left(), onTimeout: 'interrupt' }, signal);
      if (finished.kind !== 'stopped') {
        outcome = finished;
        break;
      }
      const block = firstNumber(finished.stop.returnValue);
      if (block === undefined || size === undefined || block === 0n) continue;
      const inside = target.pointer
        ? block === target.address
        : target.address >= block && target.address < block + size;
      if (!inside) continue;
      const event = { at, address: hex(block), size: Number(size) };
      if (history.allocated && history.freed.length > 0) history.reused = event;
      else {
        history.allocated = event;
        history.freed = [];
      }
    }
  } finally {
    await session
      .changeBreakpoints(
        { op: 'delete', numbers: [...numbers.keys()] },
        { phases: ['stopped', 'exited', 'loaded'], doing: 'delete the heap breakpoints', signal },
      )
      .catch(() => undefined);
  }
  if (!sawArguments && calls > 0 && !history.allocated) {
    history.unknown =
      "the allocator's arguments and results are not known to the debugger here: the C library has no debug info (install its debug symbols, e.g. libc6-dbg)";
  }
  return { history, outcome };
}

async function typeInput(
  session: Session,
  stdin: { text: string; eof: boolean },
  deadline: number,
  signal?: AbortSignal,
): Promise<void> {
  if (stdin.text.length > 0) await session.writeStdin(stdin.text, deadline, signal);
  if (stdin.eof) await session.sendEof(deadline, signal);
}

async function dropWatchpoint(session: Session, number: string, signal?: AbortSignal): Promise<void> {
  if (number === '') return;
  await session
    .changeBreakpoints(
      { op: 'delete', numbers: [number] },
      { phases: ['stopped', 'exited', 'loaded'], doing: 'delete the watchpoint', signal },
    )
    .catch(() => undefined);
}

/** The source line of the instruction before `pc`: a watchpoint reports the one after the write. */
async function writingFrame(
  backend: DebuggerBackend,
  stop: StopEvent,
  signal?: AbortSignal,
): Promise<{ frames: Frame[]; line?: number; file?: string; function?: string; calledFrom?: Frame }> {
  const thread = stop.threadId !== undefined ? { threadId: stop.threadId } : {};
  const frames = await backend.stack({ ...thread, from: 0, to: 15 }, signal);
  const top = frames[0];
  let line = top?.line;
  let file = top?.file;
  try {
    const code = await backend.disassemble(
      { ...thread, frame: 0, span: { around: 'pc', before: 64, after: 0 }, withSource: true },
      signal,
    );
    const pc = code.pc === undefined ? undefined : BigInt(code.pc);
    const at = code.instructions.findIndex((i) => BigInt(i.address) === pc);
    const previous = at > 0 ? code.instructions[at - 1] : undefined;
    if (previous?.line !== undefined) {
      line = previous.line;
      file = previous.file ?? file;
    }
  } catch {
    // No code to read: the frame's own line stands.
  }
  const own =
    top && (top.line === undefined || backend.runtime.isSystemFrame(top)) ? programFrame(backend, frames) : undefined;
  return {
    frames,
    ...(line !== undefined ? { line } : {}),
    ...(file !== undefined ? { file } : {}),
    ...(top?.function ? { function: top.function } : {}),
    ...(own ? { calledFrom: own } : {}),
  };
}

function originFrame(f: Frame): OriginFrame {
  return {
    ...(f.function ? { function: f.function } : {}),
    ...(f.file ? { file: f.file } : {}),
    ...(f.line !== undefined ? { line: f.line } : {}),
  };
}

/** What an origin stop remembers, so that asking again goes one write further back. */
interface OriginMemo {
  stopId: number;
  subject: OriginSubject;
  failure: FailurePoint;
  hit: number;
  technique: string;
  hits: number;
}

const memos = new WeakMap<Session, OriginMemo>();

type ReexecuteOptions = { deadline: number; stdin?: OriginRequest['stdin']; signal?: AbortSignal };

/** Re-executes to write number `hit` of the subject and answers with it (the program stops there). */
async function toWrite(
  session: Session,
  subject: OriginSubject,
  failure: FailurePoint,
  w: {
    hit: number;
    expectNew?: string;
    technique: string;
    block?: BlockHistory;
    opts: ReexecuteOptions;
    cost: () => OriginFacts['cost'];
  },
): Promise<OriginResult> {
  const base = { expression: subject.expression, address: hex(subject.address) };
  const second = await reexecute(session, subject, failure, { ...w.opts, stopAt: w.hit });
  await dropWatchpoint(session, second.watchpoint, w.opts.signal);
  const at = second.outcome;
  const hit = second.hits[0];
  if (!second.reached || at.kind !== 'stopped' || !hit || (w.expectNew !== undefined && hit.new !== w.expectNew)) {
    return {
      outcome: at,
      origin: {
        ...base,
        kind: 'not_reproduced',
        why:
          second.why ??
          `the re-execution's write ${w.hit} did not write the same value (${hit?.new ?? 'none'} vs ${w.expectNew ?? '?'}): the program does not re-execute deterministically`,
        technique: w.technique,
        cost: w.cost(),
        back: 'dbg_run action=restart runs it again',
      },
    };
  }
  const writer = await session.query(['stopped'], 'read the write', (b, s) => writingFrame(b, at.stop, s), {
    stopId: at.stopId,
    signal: w.opts.signal,
  });
  const before = shown(hit.old);
  const after = shown(hit.new);
  return {
    outcome: at,
    origin: {
      ...base,
      kind: 'write',
      write: {
        ...(writer.function ? { function: writer.function } : {}),
        ...(writer.file ? { file: writer.file } : {}),
        ...(writer.line !== undefined ? { line: writer.line } : {}),
        ...(at.stop.threadId !== undefined ? { thread: at.stop.threadId } : {}),
        ...(before !== undefined ? { before } : {}),
        ...(after !== undefined ? { after } : {}),
        ...(writer.calledFrom ? { calledFrom: originFrame(writer.calledFrom) } : {}),
        stack: writer.frames
          .slice(0, 6)
          .map((f, i) =>
            i === 0 && writer.line !== undefined ? { ...originFrame(f), line: writer.line } : originFrame(f),
          ),
      },
      ...(w.block ? { block: w.block } : {}),
      technique: w.block ? `${w.technique}, then the allocator's calls` : w.technique,
      cost: w.cost(),
      back: `dbg_run action=continue runs on to the failure again (the re-execution is deterministic; the watchpoint is gone)`,
    },
  };
}

/** Finds the last write before the current stop to the value it is about, and stops there. */
export async function findOrigin(
  session: Session,
  request: OriginRequest,
  signal?: AbortSignal,
): Promise<OriginResult> {
  const began = Date.now();
  const deadline = began + request.timeoutMs;
  const now = session.outcome;
  if (now?.kind !== 'stopped') {
    session.requirePhase(['stopped'], 'find the origin of a value');
    throw new DebuggerError('wrong_state', 'cannot find the origin of a value: the program is not stopped');
  }
  if (session.target.kind !== 'launch') {
    throw new DebuggerError(
      'backend_unavailable',
      `cannot find the origin here: it re-executes the program from its start, and this session is a ${session.target.kind} target, not a program launched by dbg_start`,
    );
  }
  if (session.capabilities.watchpoints.length === 0) {
    throw new DebuggerError(
      'backend_unavailable',
      `cannot find the origin: the ${session.debugger.kind} backend has no watchpoints`,
    );
  }
  if (request.stdin) {
    // Measured: input typed into the re-execution's terminal at main does not reach the program
    // (scanf sees end of file), so the re-execution would diverge and be misread as non-determinism.
    throw new DebuggerError(
      'backend_unavailable',
      'cannot find the origin of a run that was given stdin: its re-execution does not get the same input yet. Give the input as a file argument instead (dbg_start args), or find the write with a watchpoint by hand; nothing was changed here',
    );
  }
  if (!session.capabilities.watchUnmapped) {
    throw new DebuggerError(
      'backend_unavailable',
      `cannot find the origin with the ${session.debugger.kind} backend: the search re-executes the program and watches the value's address from main, before its memory is allocated, and this debugger refuses a watchpoint on memory not mapped yet. dbg_start backend=gdb can; nothing was changed here`,
    );
  }
  const memo = memos.get(session);
  if (memo && memo.stopId === now.stopId && request.expression === undefined) {
    // At an origin stop, asked again: one write further back.
    if (memo.hit <= 1) {
      throw new DebuggerError(
        'invalid_argument',
        `no earlier write: this is the first write to ${memo.subject.expression} after main (the value before it is what main found there)`,
      );
    }
    let runs = 1;
    const startMode = session.startMode;
    try {
      const further = await toWrite(session, memo.subject, memo.failure, {
        hit: memo.hit - 1,
        technique: memo.technique,
        opts: { deadline, ...(request.stdin ? { stdin: request.stdin } : {}), ...(signal ? { signal } : {}) },
        cost: () => ({ ms: Date.now() - began, runs, hits: memo.hits }),
      });
      runs = 1;
      if (further.origin.kind === 'write' && further.outcome.kind === 'stopped') {
        memos.set(session, { ...memo, stopId: further.outcome.stopId, hit: memo.hit - 1 });
      }
      return further;
    } finally {
      session.startMode = startMode;
    }
  }
  const stop = now.stop;
  const subject = await session.query(
    ['stopped'],
    'work out the value the stop is about',
    (backend, s) => subjectAt(backend, stop, request.expression, s),
    { stopId: now.stopId, signal },
  );
  const hitsSoFar = stop.breakpoint ? session.snapshot.breakpoints.get(stop.breakpoint)?.hits : undefined;
  const failure = failurePoint(stop, hitsSoFar);
  const startMode = session.startMode;
  const opts = { deadline, ...(request.stdin ? { stdin: request.stdin } : {}), ...(signal ? { signal } : {}) };
  let runs = 0;
  const cost = (hits: number) => ({ ms: Date.now() - began, runs, hits });
  const base = { expression: subject.expression, address: hex(subject.address) };
  try {
    if (subject.from === 'double free') {
      runs++;
      const heap = await blockHistory(session, { address: subject.address, pointer: true }, failure, opts);
      const [firstFree] = heap.history.freed;
      return {
        outcome: heap.outcome,
        origin: {
          ...base,
          address: hex(subject.address),
          kind: 'double_free',
          why: firstFree
            ? `${subject.expression} (${hex(subject.address)}) was freed first at ${firstFree.at.file ?? '?'}:${firstFree.at.line ?? '?'}${firstFree.at.function ? ` in ${firstFree.at.function}` : ''}`
            : `the first free of ${subject.expression} was not found${heap.history.unknown ? `: ${heap.history.unknown}` : ''}`,
          block: heap.history,
          technique: "re-execution with breakpoints on the allocator's calls",
          cost: cost(heap.history.freed.length),
          back: 'the program is at the failure again (re-executed)',
        },
      };
    }
    runs++;
    const first = await reexecute(session, subject, failure, opts);
    await dropWatchpoint(session, first.watchpoint, signal);
    const technique = `re-execution with a ${first.software ? 'software' : 'hardware'} watchpoint`;
    if (!first.reached) {
      return {
        outcome: first.outcome,
        origin: {
          ...base,
          kind: 'not_reproduced',
          why: first.why ?? 'the failure was not reached again',
          technique,
          cost: cost(first.hits.length),
          back: 'dbg_run action=restart runs it again',
        },
      };
    }
    const last = first.hits[first.hits.length - 1];
    if (!last) {
      runs++;
      const heap = await blockHistory(session, { address: subject.address }, failure, opts);
      const alloc = heap.history.allocated;
      return {
        outcome: heap.outcome,
        origin: {
          ...base,
          kind: 'never_written',
          why: alloc
            ? `${subject.expression} was never written after ${alloc.at.function ? `the allocation in ${alloc.at.function}` : 'its allocation'} at ${alloc.at.file ?? '?'}:${alloc.at.line ?? '?'}`
            : `${subject.expression} was never written between main and the failure${heap.history.unknown ? ` (allocation not named: ${heap.history.unknown})` : ''}`,
          block: heap.history,
          technique: `${technique}, then the allocator's calls`,
          cost: cost(0),
          back: 'the program is at the failure again (re-executed)',
        },
      };
    }
    // A write by the runtime (free's bookkeeping in a freed block): the block's history says more.
    const runtimeWrote = await session.query(
      ['stopped', 'exited'],
      'read the writes',
      async (b) => first.hits.some((h) => h.frame !== undefined && b.runtime.isSystemFrame(h.frame)),
      { signal },
    );
    let block: BlockHistory | undefined;
    if (runtimeWrote) {
      runs++;
      block = (await blockHistory(session, { address: subject.address }, failure, opts)).history;
    }
    runs++;
    const reached = await toWrite(session, subject, failure, {
      hit: last.number,
      ...(last.new !== undefined ? { expectNew: last.new } : {}),
      technique,
      ...(block ? { block } : {}),
      opts,
      cost: () => cost(first.hits.length),
    });
    if (reached.origin.kind === 'write')
      memos.set(session, {
        stopId: reached.outcome.kind === 'stopped' ? reached.outcome.stopId : -1,
        subject,
        failure,
        hit: last.number,
        technique,
        hits: first.hits.length,
      });
    return reached;
  } finally {
    session.startMode = startMode;
  }
}
