// Stop-bound evidence: the views an agent asks for (stop, crash, stack, threads, …), gathered
// through any backend. Each view is bounded (limits.ts). A part that cannot be gathered is
// reported in `failures` and the rest is still returned: an inspection failure never hides the
// run-control outcome.

import type { DebuggerBackend } from '../backends/debuggerBackend.js';
import type { Frame, Instruction, Library, Register, SourceLine, StopEvent, Thread, Variable } from '../model/model.js';
import { cut, LIMITS } from './limits.js';
import type { SessionSnapshot } from './sessionState.js';

export const VIEW_NAMES = [
  'stop',
  'crash',
  'stack',
  'threads',
  'frame',
  'locals',
  'args',
  'registers',
  'source',
  'libraries',
] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

export interface ViewRequest {
  view: ViewName;
  threadId?: number;
  frame?: number;
  /** Frames per stack (stack view: page size; threads view: frames per thread). */
  stackDepth?: number;
  /** First frame level of a stack page. */
  from?: number;
  includeLocals?: boolean;
  /** Source view: a file and a line to centre on (default: the selected frame's). */
  file?: string;
  line?: number;
  /** Registers view: names to show (default: the general registers). */
  registers?: readonly string[];
}

/** A run of library frames shown as one line so the user's code stands out. */
export interface FoldedFrames {
  folded: number;
  fromLevel: number;
  toLevel: number;
  library?: string;
  functions: string[];
}
export type StackEntry = Frame | FoldedFrames;

export interface SourceWindow {
  file: string;
  line: number;
  lines: SourceLine[];
}

export interface FrameVariables {
  level: number;
  function?: string;
  variables: Variable[];
  /** Variables left out past the per-frame limit. */
  omitted?: number;
}

export interface StopViewData {
  view: 'stop';
  stop: StopEvent;
  summary: string;
  source?: SourceWindow;
}

export interface CrashViewData {
  view: 'crash';
  signal?: { name: string; meaning: string };
  faultAddress?: string;
  hint: string;
  threadId?: number;
  stack: StackEntry[];
  /** Total depth when the stack is deeper than shown. */
  depth?: number;
  /** The stack is at least `depth` frames deep: counting stopped there (LIMITS.crashDepthProbe). */
  depthAtLeast?: boolean;
  locals: FrameVariables[];
  source?: SourceWindow;
  instruction?: Instruction;
  /** The last bytes the program printed (assert text, glibc's heap messages). */
  outputTail?: string;
  /** The crashed process, when the session debugs several (a child that crashed). */
  pid?: number;
}

export interface StackViewData {
  view: 'stack';
  threadId?: number;
  from: number;
  frames: Frame[];
  more: boolean;
}

export interface ThreadEntry extends Thread {
  /** The thread's process, when the session debugs several (forks followed). */
  pid?: number;
  stack?: StackEntry[];
  /** What the thread waits for, read from its stack: mutex, condition, join, sleep, io, … */
  waiting?: string;
  locals?: FrameVariables;
}

export interface ThreadsViewData {
  view: 'threads';
  currentThreadId?: number;
  threads: ThreadEntry[];
  total: number;
  more: boolean;
  hint?: string;
}

export interface FrameViewData {
  view: 'frame';
  threadId?: number;
  frame: Frame;
  locals: Variable[];
  source?: SourceWindow;
}

export interface VariablesViewData {
  view: 'locals' | 'args';
  threadId?: number;
  frame: number;
  variables: Variable[];
  omitted?: number;
}

export interface RegistersViewData {
  view: 'registers';
  threadId?: number;
  frame: number;
  registers: Register[];
}

export interface SourceViewData {
  view: 'source';
  source: SourceWindow;
}

export interface LibrariesViewData {
  view: 'libraries';
  libraries: Library[];
  total: number;
}

export type ViewData =
  | StopViewData
  | CrashViewData
  | StackViewData
  | ThreadsViewData
  | FrameViewData
  | VariablesViewData
  | RegistersViewData
  | SourceViewData
  | LibrariesViewData;

export interface ViewOutcome {
  data?: ViewData;
  /** Parts that could not be gathered, in plain words. */
  failures: string[];
}

interface Ctx {
  backend: DebuggerBackend;
  snapshot: SessionSnapshot;
  signal: AbortSignal | undefined;
  failures: string[];
}

async function attempt<T>(ctx: Ctx, what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    ctx.failures.push(`${what}: ${(e as Error).message}`);
    return undefined;
  }
}

const SYSTEM_SOURCE = /^(\/usr\/(include|lib|src)\/|\.\.\/sysdeps\/|\.\/|.*\/glibc[^/]*\/)/;

/** A frame of the user's own code: it has source, and the source is not a system header or libc. */
export function isUserFrame(f: Frame): boolean {
  if (f.line === undefined || (f.file === undefined && f.fullname === undefined)) return false;
  const path = f.fullname ?? f.file ?? '';
  return !SYSTEM_SOURCE.test(path) && !SYSTEM_SOURCE.test(f.file ?? '');
}

function libraryName(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/** Folds runs of two or more non-user frames into one entry. */
export function foldFrames(frames: readonly Frame[]): StackEntry[] {
  const out: StackEntry[] = [];
  let run: Frame[] = [];
  const flush = (): void => {
    if (run.length >= 2) {
      const first = run[0] as Frame;
      const last = run[run.length - 1] as Frame;
      const libs = new Set(run.map((f) => libraryName(f.library) ?? '?'));
      const folded: FoldedFrames = {
        folded: run.length,
        fromLevel: first.level,
        toLevel: last.level,
        functions: run.map((f) => f.function ?? '??'),
      };
      if (libs.size === 1) {
        const lib = [...libs][0];
        if (lib !== undefined && lib !== '?') folded.library = lib;
      }
      out.push(folded);
    } else {
      out.push(...run);
    }
    run = [];
  };
  for (const f of frames) {
    if (isUserFrame(f)) {
      flush();
      out.push(f);
    } else {
      run.push(f);
    }
  }
  flush();
  return out;
}

function boundVariables(vars: Variable[]): { variables: Variable[]; omitted?: number } {
  const kept = vars.slice(0, LIMITS.variablesMax).map((v) => {
    if (v.value === undefined) return v;
    const c = cut(v.value, LIMITS.valueChars);
    return c.truncated ? { ...v, value: c.text, truncated: true } : v;
  });
  return vars.length > kept.length ? { variables: kept, omitted: vars.length - kept.length } : { variables: kept };
}

function boundFrameArgs(frames: Frame[]): Frame[] {
  return frames.map((f) => (f.args ? { ...f, args: boundVariables(f.args).variables } : f));
}

async function sourceAround(ctx: Ctx, frame: Frame | undefined, context: number): Promise<SourceWindow | undefined> {
  const line = frame?.line;
  if (!frame || line === undefined) return undefined;
  const file = frame.fullname ?? frame.file;
  if (!file) return undefined;
  const from = Math.max(1, line - context);
  const lines = await attempt(ctx, 'source lines', () =>
    ctx.backend.sourceLines(file, from, line + context, ctx.signal),
  );
  if (!lines || lines.length === 0) return undefined;
  return {
    file: frame.file ?? file,
    line,
    lines: lines.map((l) => ({ line: l.line, text: cut(l.text, 200).text })),
  };
}

function currentStop(snapshot: SessionSnapshot): StopEvent | undefined {
  return snapshot.state.phase === 'stopped' ? snapshot.state.stop : undefined;
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

function parseAddress(text: string | undefined): bigint | undefined {
  if (!text) return undefined;
  const m = /0x[0-9a-fA-F]+/.exec(text);
  if (!m) return undefined;
  try {
    return BigInt(m[0]);
  } catch {
    return undefined;
  }
}

/** The last message of an abort, from what the program printed. */
export function abortMessage(output: string): string | undefined {
  const patterns = [
    /[^\n]*Assertion [`'][^\n]*' failed\.?/,
    /terminate called after throwing an instance of [^\n]*(\n\s*what\(\):[^\n]*)?/,
    /\*\*\* stack smashing detected \*\*\*[^\n]*/,
    /[^\n]*(double free|free\(\): [^\n]*|malloc\(\): [^\n]*|realloc\(\): [^\n]*|corrupted [^\n]*|munmap_chunk\(\): [^\n]*)/,
    /[^\n]*\*\*\* [^\n]*terminated[^\n]*/,
  ];
  let best: { at: number; text: string } | undefined;
  for (const p of patterns) {
    const re = new RegExp(p.source, 'g');
    for (let m = re.exec(output); m !== null; m = re.exec(output)) {
      if (!best || m.index >= best.at) best = { at: m.index, text: m[0].trim() };
    }
  }
  return best?.text;
}

/** A plain-words reading of a fatal signal. */
export function crashHint(
  signal: string | undefined,
  fault: bigint | undefined,
  sp: bigint | undefined,
  depth: number | undefined,
  output: string,
  where: string,
): string {
  switch (signal) {
    case 'SIGSEGV':
    case 'SIGBUS': {
      if (fault !== undefined && fault < 0x10000n) {
        return fault === 0n
          ? `NULL pointer dereference in ${where}`
          : `NULL pointer dereference in ${where}: address ${hex(fault)} is ${fault} bytes past NULL (a field of a NULL struct pointer)`;
      }
      if (fault !== undefined && sp !== undefined) {
        const distance = fault > sp ? fault - sp : sp - fault;
        if (distance < 1024n * 1024n) {
          return `stack overflow: the fault at ${hex(fault)} is next to the stack pointer${depth !== undefined ? ` (${depth}+ frames deep)` : ''}; look for unbounded recursion`;
        }
      }
      // Only a count to go on (no fault address, or no stack pointer to compare it with).
      if (depth !== undefined && depth >= LIMITS.crashDepthProbe && (fault === undefined || sp === undefined)) {
        return `stack overflow: ${depth}+ frames deep; look for unbounded recursion`;
      }
      if (signal === 'SIGBUS') return `bus error in ${where}: a misaligned access, or a mapped file that shrank`;
      return `invalid memory access${fault !== undefined ? ` at ${hex(fault)}` : ''} in ${where}: a wild or dangling pointer, an out-of-bounds index, or a write to read-only memory`;
    }
    case 'SIGABRT': {
      const msg = abortMessage(output);
      return msg ? `abort: ${msg}` : `abort() called (in ${where}): no message in the program's output`;
    }
    case 'SIGFPE':
      return `arithmetic error in ${where}: integer division by zero (or overflow); check the divisor`;
    case 'SIGILL':
      return `illegal instruction in ${where}: a corrupted function pointer, or a trap such as __builtin_trap()`;
    case 'SIGTRAP':
      return `trap in ${where}: a breakpoint instruction compiled into the program`;
    default:
      return signal ? `${signal} in ${where}` : `stopped in ${where}`;
  }
}

export function describeFrame(f: Frame | undefined): string {
  if (!f) return 'an unknown place';
  const fn = f.function ?? '??';
  if (f.file !== undefined && f.line !== undefined) return `${fn} at ${f.file}:${f.line}`;
  if (f.library) return `${fn} in ${libraryName(f.library)}`;
  return fn;
}

/** One line saying why the program stopped. */
export function summarizeStop(stop: StopEvent): string {
  const base = summarizeStopReason(stop);
  const history =
    stop.history === 'start'
      ? ' (the start of the recorded history: nothing earlier was recorded)'
      : stop.history === 'end'
        ? ' (the end of the recorded history: continue forward runs live)'
        : stop.replaying
          ? ' (replaying recorded history)'
          : '';
  const process = stop.pid === undefined ? '' : ` (process ${stop.pid})`;
  return `${base}${process}${history}${stop.when?.event !== undefined ? ` [rr event ${stop.when.event}]` : ''}`;
}

function summarizeStopReason(stop: StopEvent): string {
  const where = describeFrame(stop.frame);
  switch (stop.reason) {
    case 'breakpoint-hit':
      return `breakpoint ${stop.breakpoint ?? '?'} hit in ${where}`;
    case 'watchpoint-trigger':
    case 'read-watchpoint-trigger':
    case 'access-watchpoint-trigger': {
      const w = stop.watch;
      const change =
        w?.old !== undefined || w?.new !== undefined
          ? `: ${w?.old ?? '?'} → ${w?.new ?? '?'}`
          : w?.value !== undefined
            ? `: value ${w.value}`
            : '';
      return `watchpoint ${stop.breakpoint ?? '?'} (${w?.expression ?? '?'})${change}, in ${where}`;
    }
    case 'watchpoint-scope':
      return `watchpoint ${stop.breakpoint ?? '?'} went out of scope; now in ${where}`;
    case 'function-finished':
      return `returned to ${where}${stop.returnValue !== undefined ? `; value ${stop.returnValue}` : ''}`;
    case 'end-stepping-range':
      return `stepped to ${where}`;
    case 'location-reached':
      return `reached ${where}`;
    case 'signal-received':
      return `${stop.signal?.name ?? 'signal'} (${stop.signal?.meaning ?? ''}) in ${where}${stop.faultAddress ? `, fault address ${stop.faultAddress}` : ''}`;
    case 'fork':
    case 'vfork':
      return `${stop.reason} of child ${stop.newPid ?? '?'} in ${where}`;
    case 'exec':
      return `exec of ${stop.newProgram ?? '?'} in ${where}`;
    case 'syscall-entry':
    case 'syscall-return':
      return `${stop.reason === 'syscall-entry' ? 'entering' : 'returning from'} syscall ${stop.syscall ?? '?'} in ${where}`;
    case 'no-history':
      return `stopped in ${where}`;
    case 'catchpoint':
      return `catchpoint ${stop.breakpoint ?? '?'}${stop.signal ? ` (${stop.signal.name})` : ''} hit in ${where}`;
    default:
      return `stopped in ${where}`;
  }
}

const FATAL = new Set(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGABRT', 'SIGTRAP', 'SIGSYS']);

/** Whether a stop is a crash (a fatal signal), which the automatic plan answers with the crash view. */
export function isCrash(stop: StopEvent | undefined): boolean {
  return stop?.reason === 'signal-received' && stop.signal !== undefined && FATAL.has(stop.signal.name);
}

function outputTail(backend: DebuggerBackend, bytes: number): string | undefined {
  const ring = backend.output;
  if (!ring || ring.end === 0) return undefined;
  const chunk = ring.read(Math.max(0, ring.end - bytes), bytes);
  const text = chunk.data.toString('utf8');
  return text.length > 0 ? text : undefined;
}

/** glibc's copy of an abort message (struct abort_msg_s: a 4-byte size, then the text), if any. */
async function glibcAbortMessage(ctx: Ctx, threadId: number | undefined): Promise<string | undefined> {
  try {
    const value = await ctx.backend.evaluate(
      '(char *)(*(char **)&__abort_msg) + 4',
      { threadId, frame: 0 },
      ctx.signal,
    );
    const text = /^0x[0-9a-fA-F]+ "((?:[^"\\]|\\.)*)"/.exec(value)?.[1];
    return text?.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
  } catch {
    return undefined; // no glibc symbols, or no message: the hint says so
  }
}

async function crashView(ctx: Ctx): Promise<CrashViewData> {
  const stop = currentStop(ctx.snapshot);
  const threadId = stop?.threadId;
  const depth = LIMITS.crashStackDepth;
  const frames =
    (await attempt(ctx, 'backtrace', () =>
      ctx.backend.stack({ threadId, from: 0, to: depth - 1, withArgs: true }, ctx.signal),
    )) ?? (stop?.frame ? [stop.frame] : []);
  let total: number | undefined;
  if (frames.length >= depth) {
    total = await attempt(ctx, 'stack depth', () =>
      ctx.backend.stackDepth(threadId, LIMITS.crashDepthProbe, ctx.signal),
    );
  }
  const userFrames = frames.filter(isUserFrame).slice(0, 2);
  const locals: FrameVariables[] = [];
  for (const f of userFrames) {
    const vars = await attempt(ctx, `locals of frame ${f.level}`, () =>
      ctx.backend.variables('locals', { threadId, frame: f.level }, {}, ctx.signal),
    );
    if (vars) locals.push({ level: f.level, ...(f.function ? { function: f.function } : {}), ...boundVariables(vars) });
  }
  const source = await sourceAround(ctx, userFrames[0], LIMITS.sourceContext);
  const instructions = await attempt(ctx, 'faulting instruction', () =>
    ctx.backend.disassemble({ threadId, frame: 0, start: '$pc', end: '$pc+16' }, ctx.signal),
  );
  const signal = stop?.signal;
  const fault = parseAddress(stop?.faultAddress);
  let sp: bigint | undefined;
  if ((signal?.name === 'SIGSEGV' || signal?.name === 'SIGBUS') && fault !== undefined && fault >= 0x10000n) {
    sp = parseAddress(
      await attempt(ctx, 'stack pointer', () => ctx.backend.evaluate('$sp', { threadId, frame: 0 }, ctx.signal)),
    );
  }
  const tail = outputTail(ctx.backend, LIMITS.outputTailBytes);
  // No message in the output (a core, or a program whose stderr went elsewhere): glibc keeps the
  // assert text it printed in __abort_msg.
  const abortText =
    signal?.name === 'SIGABRT' && !abortMessage(tail ?? '') ? await glibcAbortMessage(ctx, threadId) : undefined;
  const where = describeFrame(userFrames[0] ?? frames[0] ?? stop?.frame);
  const data: CrashViewData = {
    view: 'crash',
    hint: crashHint(
      signal?.name,
      fault,
      sp,
      total ?? (frames.length >= depth ? frames.length : undefined),
      abortText ?? tail ?? '',
      where,
    ),
    stack: foldFrames(boundFrameArgs(frames)),
    locals,
  };
  if (signal) data.signal = signal;
  if (stop?.faultAddress) data.faultAddress = stop.faultAddress;
  if (threadId !== undefined) data.threadId = threadId;
  if (stop?.pid !== undefined) data.pid = stop.pid;
  if (total !== undefined && total > frames.length) data.depth = total;
  if (total !== undefined && total >= LIMITS.crashDepthProbe) data.depthAtLeast = true;
  if (source) data.source = source;
  if (instructions?.[0]) data.instruction = instructions[0];
  if (tail) data.outputTail = tail;
  return data;
}

async function stopView(ctx: Ctx): Promise<StopViewData | undefined> {
  const stop = currentStop(ctx.snapshot);
  if (!stop) {
    ctx.failures.push('stop: the program is not stopped');
    return undefined;
  }
  // Source only for the user's own code: a stop inside libc (an interrupt) has nothing to quote.
  const source = stop.frame && isUserFrame(stop.frame) ? await sourceAround(ctx, stop.frame, 2) : undefined;
  return { view: 'stop', stop, summary: summarizeStop(stop), ...(source ? { source } : {}) };
}

async function stackView(ctx: Ctx, req: ViewRequest): Promise<StackViewData | undefined> {
  const from = req.from ?? 0;
  const count = Math.min(req.stackDepth ?? LIMITS.stackDepthDefault, LIMITS.stackDepthMax);
  const threadId = req.threadId;
  // One frame more than asked says whether there is a next page.
  const frames = await attempt(ctx, 'stack', () =>
    ctx.backend.stack({ threadId, from, to: from + count, withArgs: true }, ctx.signal),
  );
  if (!frames) return undefined;
  const more = frames.length > count;
  return {
    view: 'stack',
    ...(threadId !== undefined ? { threadId } : {}),
    from,
    frames: boundFrameArgs(frames.slice(0, count)),
    more,
  };
}

const WAITS: [RegExp, string][] = [
  [/pthread_mutex_(timed)?lock|__lll_lock_wait|lll_mutex_lock|mutex_lock_full/, 'mutex'],
  [/pthread_cond_(timed)?wait|__pthread_cond_wait/, 'condition variable'],
  [/pthread_rwlock/, 'rwlock'],
  [/pthread_join|__pthread_clockjoin/, 'join'],
  [/pthread_barrier_wait/, 'barrier'],
  [/sem_(timed|clock)?wait/, 'semaphore'],
  [/nanosleep|clock_nanosleep|^sleep$|usleep/, 'sleep'],
  [/^(__libc_)?(read|recv|recvfrom|recvmsg|accept4?)$|_IO_file_underflow|__GI___libc_read/, 'io (read)'],
  [/^(__libc_)?(write|send|sendto|sendmsg)$/, 'io (write)'],
  [/poll|epoll_wait|select/, 'io (poll)'],
  [/futex_wait|__futex_abstimed_wait/, 'futex'],
  [/waitpid|wait4/, 'child process'],
];

/** What a thread waits for, from its top frames: the most specific label wins (a join waits in a futex). */
export function classifyWait(frames: readonly Frame[]): string | undefined {
  const top = frames.slice(0, 8).map((f) => f.function ?? '');
  for (const [re, label] of WAITS) if (top.some((fn) => re.test(fn))) return label;
  return undefined;
}

async function threadsView(ctx: Ctx, req: ViewRequest): Promise<ThreadsViewData | undefined> {
  const listed = await attempt(ctx, 'threads', () => ctx.backend.threads(ctx.signal));
  if (!listed) return undefined;
  const from = req.from ?? 0;
  const page = listed.threads.slice(from, from + LIMITS.threadsPageDefault);
  const depth = Math.min(req.stackDepth ?? LIMITS.threadStackDefault, LIMITS.stackDepthMax);
  const threads: ThreadEntry[] = [];
  const waits = new Map<string, number[]>();
  const lockWaits = new Map<number, { mutex: string; ownerLwp: number }>();
  const several = ctx.snapshot.inferiors.size > 1;
  for (const t of page) {
    const entry: ThreadEntry = { ...t };
    const pid = several ? ctx.snapshot.inferiors.get(ctx.snapshot.threads.get(t.id) ?? t.group ?? '') : undefined;
    if (pid !== undefined) entry.pid = pid;
    if (t.state === 'stopped') {
      const frames = await attempt(ctx, `stack of thread ${t.id}`, () =>
        ctx.backend.stack({ threadId: t.id, from: 0, to: Math.max(depth, 12) - 1, withArgs: true }, ctx.signal),
      );
      if (frames) {
        const waiting = classifyWait(frames);
        if (waiting) {
          entry.waiting = waiting;
          waits.set(waiting, [...(waits.get(waiting) ?? []), t.id]);
        }
        if (waiting === 'mutex') {
          const lock = await mutexOwner(ctx, t.id, frames);
          if (lock) lockWaits.set(t.id, lock);
        }
        // A blocked thread's own code is what explains it: show down to its first user frame
        // even when that is deeper than the page of frames asked for.
        const firstUser = frames.findIndex(isUserFrame);
        entry.stack = foldFrames(boundFrameArgs(frames.slice(0, Math.max(depth, firstUser + 1))));
        delete entry.frame;
        if (req.includeLocals) {
          const user = frames.find(isUserFrame);
          if (user) {
            const vars = await attempt(ctx, `locals of thread ${t.id}`, () =>
              ctx.backend.variables('locals', { threadId: t.id, frame: user.level }, {}, ctx.signal),
            );
            if (vars) {
              entry.locals = {
                level: user.level,
                ...(user.function ? { function: user.function } : {}),
                ...boundVariables(vars),
              };
            }
          }
        }
      }
    }
    threads.push(entry);
  }
  let hint: string | undefined;
  const lockers = [...(waits.get('mutex') ?? []), ...(waits.get('rwlock') ?? [])];
  const owners = describeLockOwners(threads, lockWaits, listed.threads);
  if (owners.cycle) {
    hint = owners.cycle;
  } else if (lockers.length >= 2) {
    hint = `threads ${lockers.join(', ')} all wait on locks: a likely deadlock (compare which lock each holds and wants)`;
  } else if (page.length > 0 && waits.size === 0) {
    hint =
      'no thread is waiting on a lock or I/O: if the program hangs, it is spinning (look at the loop in the top frames)';
  }
  return {
    view: 'threads',
    ...(listed.currentThreadId !== undefined ? { currentThreadId: listed.currentThreadId } : {}),
    threads,
    total: listed.threads.length,
    more: listed.threads.length > from + page.length,
    ...(hint ? { hint } : {}),
  };
}

/**
 * The mutex a thread waits for and the LWP that holds it, read from glibc's own frame
 * (`___pthread_mutex_lock (mutex=0x…)`, when libc's debug info is there) and the mutex's
 * `__data.__owner`. A read of memory, never a call into the program.
 */
async function mutexOwner(
  ctx: Ctx,
  threadId: number,
  frames: readonly Frame[],
): Promise<{ mutex: string; ownerLwp: number } | undefined> {
  for (const f of frames.slice(0, 8)) {
    if (!/pthread_mutex_(timed|clock)?lock/.test(f.function ?? '')) continue;
    const mutex = f.args?.find((a) => a.name === 'mutex')?.value;
    const address = mutex === undefined ? undefined : /0x[0-9a-f]+/i.exec(mutex)?.[0];
    if (!address) return undefined;
    try {
      const owner = await ctx.backend.evaluate(
        `((pthread_mutex_t *) ${address})->__data.__owner`,
        { threadId, frame: f.level },
        ctx.signal,
      );
      const lwp = Number(owner);
      if (!Number.isInteger(lwp) || lwp <= 0) return undefined;
      // A global mutex has a name: "ledger in section .bss".
      const said = await ctx.backend
        .command(`info symbol ${address}`, { timeoutMs: 2000 }, ctx.signal)
        .catch(() => undefined);
      const name = /^(\S+) in section /.exec(said?.output.trim() ?? '')?.[1];
      return { mutex: name ? `${name} (${address})` : address, ownerLwp: lwp };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function lwpOf(t: Thread): number | undefined {
  const m = /LWP (\d+)/.exec(t.targetId ?? '');
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * Names who holds each awaited mutex on the waiting thread's entry, and, when the waits close a
 * circle (thread 2 waits for 3, which waits for 2), says so plainly: a deadlock.
 */
function describeLockOwners(
  entries: ThreadEntry[],
  lockWaits: ReadonlyMap<number, { mutex: string; ownerLwp: number }>,
  all: readonly Thread[],
): { cycle?: string } {
  const byLwp = new Map<number, number>();
  for (const t of all) {
    const lwp = lwpOf(t);
    if (lwp !== undefined) byLwp.set(lwp, t.id);
  }
  const waitsFor = new Map<number, number>();
  for (const e of entries) {
    const lock = lockWaits.get(e.id);
    if (!lock) continue;
    const owner = byLwp.get(lock.ownerLwp);
    e.waiting = `mutex ${lock.mutex}, held by ${owner !== undefined ? `thread ${owner}` : `LWP ${lock.ownerLwp}`}`;
    if (owner !== undefined) waitsFor.set(e.id, owner);
  }
  for (const start of waitsFor.keys()) {
    const path: number[] = [start];
    let next = waitsFor.get(start);
    while (next !== undefined && !path.includes(next)) {
      path.push(next);
      next = waitsFor.get(next);
    }
    if (next === start && path.length >= 2) {
      const links = path.map(
        (id) => `thread ${id} waits for thread ${waitsFor.get(id)} (mutex ${lockWaits.get(id)?.mutex})`,
      );
      return { cycle: `deadlock: ${links.join(', ')}. Each holds the lock the next one wants: take them in one order` };
    }
  }
  return {};
}

async function frameView(ctx: Ctx, req: ViewRequest): Promise<FrameViewData | undefined> {
  const level = req.frame ?? 0;
  const frames = await attempt(ctx, 'frame', () =>
    ctx.backend.stack({ threadId: req.threadId, from: level, to: level, withArgs: true }, ctx.signal),
  );
  const frame = frames?.[0];
  if (!frame) {
    ctx.failures.push(`frame ${level} does not exist`);
    return undefined;
  }
  const locals =
    (await attempt(ctx, 'locals', () =>
      ctx.backend.variables('locals', { threadId: req.threadId, frame: level }, { types: true }, ctx.signal),
    )) ?? [];
  const source = await sourceAround(ctx, frame, LIMITS.sourceContext);
  return {
    view: 'frame',
    ...(req.threadId !== undefined ? { threadId: req.threadId } : {}),
    frame: boundFrameArgs([frame])[0] as Frame,
    locals: boundVariables(locals).variables,
    ...(source ? { source } : {}),
  };
}

async function variablesView(
  ctx: Ctx,
  req: ViewRequest,
  which: 'locals' | 'args',
): Promise<VariablesViewData | undefined> {
  const frame = req.frame ?? 0;
  const vars = await attempt(ctx, which, () =>
    ctx.backend.variables(which, { threadId: req.threadId, frame }, { types: true }, ctx.signal),
  );
  if (!vars) return undefined;
  return {
    view: which,
    ...(req.threadId !== undefined ? { threadId: req.threadId } : {}),
    frame,
    ...boundVariables(vars),
  };
}

async function registersView(ctx: Ctx, req: ViewRequest): Promise<RegistersViewData | undefined> {
  const frame = req.frame ?? 0;
  const regs = await attempt(ctx, 'registers', () =>
    ctx.backend.registers(
      { threadId: req.threadId, frame, ...(req.registers ? { names: req.registers } : {}), format: 'hex' },
      ctx.signal,
    ),
  );
  if (!regs) return undefined;
  return {
    view: 'registers',
    ...(req.threadId !== undefined ? { threadId: req.threadId } : {}),
    frame,
    registers: regs,
  };
}

async function sourceView(ctx: Ctx, req: ViewRequest): Promise<SourceViewData | undefined> {
  let file = req.file;
  let line = req.line;
  if (file === undefined || line === undefined) {
    const frames = await attempt(ctx, 'frame', () =>
      ctx.backend.stack({ threadId: req.threadId, from: req.frame ?? 0, to: req.frame ?? 0 }, ctx.signal),
    );
    const f = frames?.[0];
    file ??= f?.fullname ?? f?.file;
    line ??= f?.line;
  }
  if (file === undefined || line === undefined) {
    ctx.failures.push('source: no file and line here (no debug info?); give file and line');
    return undefined;
  }
  const context = Math.min(req.stackDepth ?? 5, LIMITS.sourceLinesMax / 2);
  const window = await sourceAround(ctx, { level: 0, file, line }, context);
  if (!window) {
    if (ctx.failures.length === 0) ctx.failures.push(`source: no lines of ${file} around ${line}`);
    return undefined;
  }
  return { view: 'source', source: window };
}

async function librariesView(ctx: Ctx): Promise<LibrariesViewData | undefined> {
  const libs = await attempt(ctx, 'libraries', () => ctx.backend.libraries(ctx.signal));
  if (!libs) return undefined;
  return { view: 'libraries', libraries: libs.slice(0, LIMITS.librariesMax), total: libs.length };
}

/** Gathers one view. Must run inside the session's mailbox, bound to one stop. */
export async function gatherView(
  backend: DebuggerBackend,
  snapshot: SessionSnapshot,
  req: ViewRequest,
  signal?: AbortSignal,
): Promise<ViewOutcome> {
  const ctx: Ctx = { backend, snapshot, signal, failures: [] };
  let data: ViewData | undefined;
  switch (req.view) {
    case 'stop':
      data = await stopView(ctx);
      break;
    case 'crash':
      data = await crashView(ctx);
      break;
    case 'stack':
      data = await stackView(ctx, req);
      break;
    case 'threads':
      data = await threadsView(ctx, req);
      break;
    case 'frame':
      data = await frameView(ctx, req);
      break;
    case 'locals':
      data = await variablesView(ctx, req, 'locals');
      break;
    case 'args':
      data = await variablesView(ctx, req, 'args');
      break;
    case 'registers':
      data = await registersView(ctx, req);
      break;
    case 'source':
      data = await sourceView(ctx, req);
      break;
    case 'libraries':
      data = await librariesView(ctx);
      break;
  }
  return data ? { data, failures: ctx.failures } : { failures: ctx.failures };
}

/**
 * The views answering "what happened?" at a stop when the caller named none: a crash gets the
 * crash view, an interrupt (a hang) the threads view, anything else the stop view.
 */
export function automaticViews(stop: StopEvent | undefined, interrupted: boolean): ViewRequest[] {
  if (isCrash(stop)) return [{ view: 'crash' }];
  if (interrupted) return [{ view: 'stop' }, { view: 'threads' }];
  return [{ view: 'stop' }];
}
