// What we know of a Windows program's runtime under Wine that no debugger tells: which frames are
// the system's (Wine's DLLs, mingw's C runtime, and Wine's own ELF libraries under them), what a
// blocked thread waits for, the message an assert printed, and who owns a critical section. It
// reads the target only through values and memory, as glibcRuntime.ts does for Linux programs.
//
// Measured under Wine 8.0 (Debian 12), GDB 13 through winedbg's gdb proxy: Debian builds Wine's
// PE DLLs with DWARF, so their frames come with source ("dlls/ntdll/sync.c", fullname
// "./dlls/ntdll/sync.c", relative) and arguments: a thread blocked in EnterCriticalSection shows
// NtWaitForAlertByThreadId ← RtlWaitOnAddress ← wait_semaphore(crit) ←
// RtlpWaitForCriticalSection(crit=0x14000c080 <ledger>) ← RtlEnterCriticalSection(crit) ← user.

import type { Frame } from '../../model/model.js';
import type { TargetReader, TargetRuntime } from '../debuggerBackend.js';
import { littleEndian } from './glibcRuntime.js';

/**
 * Sources that are not the user's: Wine's tree as its DWARF names it (relative: "dlls/…",
 * "./dlls/…"), mingw-w64's CRT and headers, Debian's build paths, system headers. A user's own
 * file reaches us with an absolute fullname, so a project with a dlls/ folder is not taken for Wine.
 */
const WINE_TREE = /^(\.\/)?(dlls|programs|loader|libs|include|server)\//;
const OTHER_SYSTEM =
  /(^|\/)mingw-w64-(crt|headers|libraries)\/|^\/build\/|^\/usr\/(include|lib|src|share)\/|^\/usr\/x86_64-w64-mingw32\//;
/** Libraries of a frame without source: Windows system DLLs, Wine's ELF side, libc. */
const SYSTEM_LIBRARY = /[\\/]windows[\\/](system32|syswow64)[\\/]|\/wine\/|\/lib(64)?\/|ld-linux|libc\.so/i;

export function isWindowsSystemFrame(f: Frame): boolean {
  if (f.line === undefined || (f.file === undefined && f.fullname === undefined)) return true;
  if (f.library !== undefined && SYSTEM_LIBRARY.test(f.library)) return true;
  const path = f.fullname ?? f.file ?? '';
  const file = f.file ?? '';
  if (OTHER_SYSTEM.test(path) || OTHER_SYSTEM.test(file)) return true;
  // Relative on both counts: Wine's DWARF names its sources from its build tree.
  return !path.startsWith('/') && (WINE_TREE.test(path) || WINE_TREE.test(file));
}

type Label = string | ((fn: string) => string);

/** The most specific first: a critical section waits in RtlWaitOnAddress and NtWaitForAlertByThreadId. */
const WAITS: readonly [RegExp, Label][] = [
  [/^(EnterCriticalSection|RtlEnterCriticalSection|RtlpWaitForCriticalSection)$/, 'mutex'],
  [/^(Rtl)?AcquireSRWLock(Exclusive|Shared)$/, 'rwlock'],
  [/^(Rtl)?SleepConditionVariable(CS|SRW)$/, 'condition variable'],
  [/^(Sleep|SleepEx|NtDelayExecution)$/, 'sleep'],
  [
    /^(ReadFile|ReadFileEx|NtReadFile|ReadConsole[AW]?|ReadConsoleInput[AW]?|_read|fgets|fgetws|fread|getchar|_getch|scanf|recv|recvfrom|WSARecv|WSARecvFrom|accept|WSAAccept)$/,
    'io (read)',
  ],
  [/^(WriteFile|NtWriteFile|WriteConsole[AW]?|send|sendto|WSASend)$/, 'io (write)'],
  [/^(select|WSAPoll|WSAWaitForMultipleEvents)$/, 'io (poll)'],
  [/^(GetQueuedCompletionStatus(Ex)?|NtRemoveIoCompletion(Ex)?)$/, 'io (completion port)'],
  [/^(WaitOnAddress|RtlWaitOnAddress)$/, 'address (WaitOnAddress)'],
];

/** Waits on kernel objects: events, semaphores, threads (a join), processes, mutex objects. */
const OBJECT_WAIT =
  /^(WaitForSingleObject(Ex)?|WaitForMultipleObjects(Ex)?|MsgWaitForMultipleObjects(Ex)?|SignalObjectAndWait|NtWaitForSingleObject|NtWaitForMultipleObjects|NtSignalAndWaitForSingleObject)$/;

/** What a thread waits for, from its top frames (before its first frame of user code). */
export function classifyWindowsWait(frames: readonly Frame[]): string | undefined {
  const firstUser = frames.findIndex((f) => !isWindowsSystemFrame(f));
  const top = frames.slice(0, firstUser < 0 ? 10 : Math.min(firstUser, 10)).map((f) => f.function ?? '');
  for (const [re, label] of WAITS) {
    const fn = top.find((name) => re.test(name));
    if (fn !== undefined) return typeof label === 'string' ? label : label(fn);
  }
  // The object wait the program called (WaitForSingleObject), not the ntdll call under it.
  const objectWaits = top.filter((name) => OBJECT_WAIT.test(name));
  const called = objectWaits[objectWaits.length - 1];
  return called === undefined ? undefined : `object (${called})`;
}

const ABORT_PATTERNS = [
  // msvcrt's assert() in a console program: "Assertion failed: x > 0, file a.c, line 6".
  /Assertion failed: [^\n]*?, file [^\n]*?, line \d+/,
  // The message-box form, when the runtime thinks it is a GUI program.
  /Assertion failed![\s\S]{0,600}?Expression: [^\n]*/,
  /terminate called after throwing an instance of [^\n]*(\n\s*what\(\):[^\n]*)?/,
  /This application has requested the Runtime to terminate it in an unusual way\.[^\n]*/,
  /\*\*\* stack smashing detected \*\*\*[^\n]*/,
];

/** The last message of an abort in what the program printed (Windows line ends allowed). */
export function windowsAbortMessageInOutput(output: string): string | undefined {
  const text = output.replace(/\r\n?/g, '\n');
  let best: { at: number; text: string } | undefined;
  for (const p of ABORT_PATTERNS) {
    const re = new RegExp(p.source, 'g');
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      // An assert's message comes before the runtime's "terminate … unusual way" line: keep the assert.
      const weaker = best !== undefined && /unusual way/.test(m[0]) && !/unusual way/.test(best.text);
      if (!weaker && (!best || m.index >= best.at)) best = { at: m.index, text: m[0].trim() };
    }
  }
  return best?.text;
}

const CRITICAL_SECTION_FRAME = /^(RtlpWaitForCriticalSection|RtlEnterCriticalSection|wait_semaphore)$/;
/** `RTL_CRITICAL_SECTION { DebugInfo*; LONG LockCount; LONG RecursionCount; HANDLE OwningThread; … }` (x64). */
const OWNING_THREAD_OFFSET = 16n;

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

/**
 * The critical section a thread waits for and the Windows thread that owns it: Wine's ntdll frames
 * carry `crit` as an argument, and its OwningThread field holds the owner's thread id (Wine stores
 * GetCurrentThreadId() there), read as memory.
 */
export async function windowsLockOwner(
  reader: TargetReader,
  _threadId: number,
  frames: readonly Frame[],
  signal?: AbortSignal,
): Promise<{ mutex: string; ownerOsThread: number } | undefined> {
  try {
    const value = frames
      .slice(0, 10)
      .filter((f) => CRITICAL_SECTION_FRAME.test(f.function ?? ''))
      .map((f) => f.args?.find((a) => a.name === 'crit')?.value)
      .find((v) => v !== undefined && /0x[0-9a-fA-F]+/.test(v));
    const m = /(0x[0-9a-fA-F]+)(?:\s+<([^>+]+)>)?/.exec(value ?? '');
    if (!m?.[1]) return undefined;
    const crit = BigInt(m[1]);
    if (crit === 0n) return undefined;
    const blocks = await reader.readMemory(hex(crit + OWNING_THREAD_OFFSET), 8, signal);
    const owner = Number(littleEndian(blocks.map((b) => b.hex).join('')));
    if (!Number.isInteger(owner) || owner <= 0 || owner > 0x3fffffff) return undefined;
    const name = m[2] ?? (await reader.symbolAt?.(crit, signal).catch(() => undefined));
    return { mutex: name ? `${name} (${hex(crit)})` : hex(crit), ownerOsThread: owner };
  } catch {
    return undefined;
  }
}

export const windowsRuntime: TargetRuntime = {
  name: 'windows',
  isSystemFrame: isWindowsSystemFrame,
  classifyWait: classifyWindowsWait,
  abortMessageInOutput: windowsAbortMessageInOutput,
  // mingw's C runtime keeps no copy of the message it printed: the output is the only place.
  abortMessage: async () => undefined,
  lockOwner: windowsLockOwner,
};
