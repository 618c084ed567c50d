// What we know of glibc (and the C and C++ runtimes around it on Linux) that no debugger tells:
// which frames are the runtime's, what a blocked thread waits for, where abort() keeps its message,
// who owns a mutex. Every backend that debugs Linux programs uses this one module, reading the
// target only through values, registers and memory, so GDB and LLDB answer alike.

import type { Frame } from '../../model/model.js';
import type { RuntimeReport, TargetReader, TargetRuntime } from '../debuggerBackend.js';
import { isSanitizerRuntimeFrame, parseSanitizerReports } from './sanitizerReport.js';

/** System headers, glibc's own sources and its build paths, as debug info names them. */
const SYSTEM_SOURCE = /^(\/usr\/(include|lib|src)\/|\.\.\/sysdeps\/|\.\/|.*\/glibc[^/]*\/)/;

/**
 * A frame of the user's own code: it has source, and the source is not a system header, libc, or
 * a sanitizer's runtime (whose debug info names `../../../../src/libsanitizer/…`, under no root).
 */
export function isUserFrame(f: Frame): boolean {
  if (f.line === undefined || (f.file === undefined && f.fullname === undefined)) return false;
  const path = f.fullname ?? f.file ?? '';
  return !SYSTEM_SOURCE.test(path) && !SYSTEM_SOURCE.test(f.file ?? '') && !isSanitizerRuntimeFrame(f);
}

const WAITS: [RegExp, string][] = [
  [/pthread_mutex_(timed)?lock|__lll_lock_wait|lll_mutex_lock|mutex_lock_full/, 'mutex'],
  [/pthread_cond_(timed)?wait|__pthread_cond_wait/, 'condition variable'],
  [/pthread_rwlock/, 'rwlock'],
  [/pthread_join|__pthread_clockjoin/, 'join'],
  [/pthread_barrier_wait/, 'barrier'],
  [/sem_(timed|clock)?wait/, 'semaphore'],
  [/nanosleep|clock_nanosleep|^sleep$|usleep/, 'sleep'],
  // Names with and without libc's debug info: `read` / `__GI___libc_read`, and stdio's own layers
  // (printf → _IO_new_file_xsputn → _IO_new_do_write → new_do_write → _IO_new_file_write → write).
  [
    /^(__libc_|__GI___libc_|__GI___)?(read|readv|pread64|recv|recvfrom|recvmsg|accept4?)$|_IO_(new_)?file_underflow/,
    'io (read)',
  ],
  [
    /^(__libc_|__GI___libc_|__GI___)?(write|writev|pwrite64|send|sendto|sendmsg)$|_IO_(new_)?file_write|^new_do_write$|^_IO_(new_)?do_write$/,
    'io (write)',
  ],
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

const ABORT_PATTERNS = [
  /[^\n]*Assertion [`'][^\n]*' failed\.?/,
  /terminate called after throwing an instance of [^\n]*(\n\s*what\(\):[^\n]*)?/,
  /\*\*\* stack smashing detected \*\*\*[^\n]*/,
  /[^\n]*(double free[^\n]*|free\(\): [^\n]*|malloc\(\): [^\n]*|realloc\(\): [^\n]*|corrupted [^\n]*|munmap_chunk\(\): [^\n]*)/,
  /[^\n]*\*\*\* [^\n]*terminated[^\n]*/,
];

/** The last message of an abort, from what the program printed. */
export function abortMessageInOutput(output: string): string | undefined {
  let best: { at: number; text: string } | undefined;
  for (const p of ABORT_PATTERNS) {
    const re = new RegExp(p.source, 'g');
    for (let m = re.exec(output); m !== null; m = re.exec(output)) {
      if (!best || m.index >= best.at) best = { at: m.index, text: m[0].trim() };
    }
  }
  return best?.text;
}

function firstAddress(text: string | undefined): bigint | undefined {
  const m = /0x[0-9a-fA-F]+/.exec(text ?? '');
  return m ? BigInt(m[0]) : undefined;
}

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

/** A little-endian unsigned integer from hex pairs. */
export function littleEndian(hexPairs: string): bigint {
  let n = 0n;
  for (let i = hexPairs.length - 2; i >= 0; i -= 2)
    n = (n << 8n) | BigInt(Number.parseInt(hexPairs.slice(i, i + 2), 16));
  return n;
}

async function readBytes(reader: TargetReader, address: bigint, count: number, signal?: AbortSignal): Promise<string> {
  const blocks = await reader.readMemory(hex(address), count, signal);
  return blocks.map((b) => b.hex).join('');
}

/**
 * glibc's copy of the message it printed before abort() (an assert, a heap check): `__abort_msg`
 * points at `struct abort_msg_s { unsigned int size; char msg[]; }`. Read as memory, so neither the
 * debugger's print format nor libc's debug info matters.
 */
export async function glibcAbortMessage(
  reader: TargetReader,
  threadId: number | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    const slot = firstAddress(await reader.evaluate('&__abort_msg', { threadId, frame: 0 }, signal));
    if (slot === undefined) return undefined;
    const pointer = littleEndian(await readBytes(reader, slot, 8, signal));
    if (pointer === 0n) return undefined;
    const size = Number(littleEndian(await readBytes(reader, pointer, 4, signal)));
    if (!Number.isInteger(size) || size <= 4) return undefined;
    const body = await readBytes(reader, pointer + 4n, Math.min(size - 4, 2048), signal);
    const text = Buffer.from(body, 'hex').toString('utf8');
    const end = text.indexOf('\0');
    const message = (end >= 0 ? text.slice(0, end) : text).trim();
    return message === '' ? undefined : message;
  } catch {
    return undefined; // no glibc symbols, or no message: the hint says so
  }
}

const LOCK_FRAME = /pthread_mutex_(timed|clock)?lock/;
const LOCK_WAIT_FRAME = /__lll_lock_wait|futex_wait|__futex_abstimed_wait/;
/** `struct __pthread_mutex_s { int __lock; unsigned int __count; int __owner; … }` on x86-64 and AArch64. */
const OWNER_OFFSET = 8n;
/** Where the futex address sits while a thread sleeps in futex(2): its first argument register. */
const FUTEX_ARGUMENT_REGISTER: Readonly<Record<string, string>> = { x64: 'rdi', arm64: 'x0' };

/** The lock call among a thread's innermost frames, whose `mutex` argument names the lock it waits for. */
function lockFrameOf(frames: readonly Frame[]): Frame | undefined {
  return frames.slice(0, 8).find((f) => LOCK_FRAME.test(f.function ?? ''));
}

/** The frames whose arguments lockOwner reads: the lock call's. */
function argsRead(frames: readonly Frame[]): number[] {
  const lock = lockFrameOf(frames);
  return lock ? [lock.level] : [];
}

/**
 * The mutex a thread blocked in pthread_mutex_lock waits for: the `mutex` argument of glibc's frame
 * when libc has debug info, else the futex address still in the first argument register of the
 * innermost frame (the futex word is the mutex's first field, so it is the mutex's address).
 */
async function awaitedMutex(
  reader: TargetReader,
  threadId: number,
  frames: readonly Frame[],
  signal?: AbortSignal,
): Promise<bigint | undefined> {
  const lockFrame = lockFrameOf(frames);
  if (!lockFrame) return undefined;
  const fromArgs = firstAddress(lockFrame.args?.find((a) => a.name === 'mutex')?.value);
  if (fromArgs !== undefined) return fromArgs;
  const register = FUTEX_ARGUMENT_REGISTER[process.arch];
  if (!register || !reader.registers || !LOCK_WAIT_FRAME.test(frames[0]?.function ?? '')) return undefined;
  const regs = await reader.registers({ threadId, frame: 0, names: [register], format: 'hex' }, signal);
  return firstAddress(regs[0]?.value);
}

/** The mutex a thread waits for and the OS thread that holds it (glibc's `__owner`), by reading memory. */
export async function glibcLockOwner(
  reader: TargetReader,
  threadId: number,
  frames: readonly Frame[],
  signal?: AbortSignal,
): Promise<{ mutex: string; ownerOsThread: number } | undefined> {
  try {
    const mutex = await awaitedMutex(reader, threadId, frames, signal);
    if (mutex === undefined || mutex === 0n) return undefined;
    const owner = Number(littleEndian(await readBytes(reader, mutex + OWNER_OFFSET, 4, signal)));
    if (!Number.isInteger(owner) || owner <= 0 || owner > 0x3fffffff) return undefined;
    // A global mutex has a name ("ledger"); a heap one only its address.
    const name = await reader.symbolAt?.(mutex, signal).catch(() => undefined);
    return { mutex: name ? `${name} (${hex(mutex)})` : hex(mutex), ownerOsThread: owner };
  } catch {
    return undefined;
  }
}

/** The last sanitizer report in `output`: the one a halting sanitizer ends the program with. */
export function sanitizerRuntimeReport(output: string): RuntimeReport | undefined {
  const r = parseSanitizerReports(output).at(-1);
  if (!r) return undefined;
  const where = r.firstUserFrame;
  return {
    tool: r.sanitizer,
    kind: r.kind,
    errorLine: r.errorLine,
    ...(r.summaryLine ? { summaryLine: r.summaryLine } : {}),
    ...(r.access ? { access: r.access } : {}),
    ...(where
      ? { location: { ...(where.function ? { function: where.function } : {}), file: where.file, line: where.line } }
      : {}),
    hint: r.hint,
    ...(r.pid !== undefined ? { pid: r.pid } : {}),
  };
}

export const glibcRuntime: TargetRuntime = {
  name: 'glibc',
  isSystemFrame: (f) => !isUserFrame(f),
  argsRead,
  classifyWait,
  abortMessageInOutput,
  runtimeReport: sanitizerRuntimeReport,
  abortMessage: glibcAbortMessage,
  lockOwner: glibcLockOwner,
};
