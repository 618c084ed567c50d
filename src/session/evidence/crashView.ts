// The crash view: everything a fatal signal's diagnosis needs in one answer — the signal and a
// plain-words hint, the stack with the user's frames standing out, their locals, the source line,
// the faulting instruction, and what the program printed last.

import type { RuntimeReport } from '../../backends/debuggerBackend.js';
import type { Frame, StopEvent } from '../../model/model.js';
import { LIMITS } from '../limits.js';
import type { SessionSnapshot } from '../sessionState.js';
import {
  boundFrameArgs,
  boundVariables,
  foldFrames,
  shownLevels,
  sourceAround,
  userFrameTest,
} from './stackEntries.js';
import { describeFrame } from './stopSummary.js';
import { attempt, type ViewContext } from './viewContext.js';
import type { CrashViewData, FrameVariables } from './viewTypes.js';

/**
 * How much of the program's output is read for a sanitizer's report: an ASan report runs to
 * ~40 lines (3-4 KB) with its shadow-byte legend, and a program may print more before it.
 */
export const REPORT_SCAN_BYTES = 64 * 1024;
/**
 * When the crash view's frames are all the runtime's (an abort deep in a sanitizer, libc's
 * helpers), frames are read on to the program's own code, up to this level.
 */
const USER_FRAME_SEARCH = 64;

function hex(n: bigint): string {
  return `0x${n.toString(16)}`;
}

export function parseAddress(text: string | undefined): bigint | undefined {
  if (!text) return undefined;
  const m = /0x[0-9a-fA-F]+/.exec(text);
  if (!m) return undefined;
  try {
    return BigInt(m[0]);
  } catch {
    return undefined;
  }
}

export interface CrashFacts {
  signal: string | undefined;
  /** The address the kernel reported for the fault. */
  fault: bigint | undefined;
  /** The stack pointer of the faulting frame. */
  sp: bigint | undefined;
  /** Frames on the stack, when known. */
  depth: number | undefined;
  /** The abort's message (from the output, or kept in memory by the runtime), if any. */
  abortMessage: string | undefined;
  /** A sanitizer's report the program printed before the abort. */
  report?: RuntimeReport | undefined;
  /** The backend's reading of a fault the kernel gave no address for (the bad pointer). */
  faultNote?: string | undefined;
  /** Where it happened, in words: "store at crash.c:13". */
  where: string;
  /** The system's exception behind the signal (Windows: an exception code winedbg traced). */
  exception?: { code: number; name: string; meaning: string } | undefined;
}

/** A plain-words reading of a fatal signal. */
export function crashHint(f: CrashFacts): string {
  const { fault, sp, depth, where } = f;
  switch (f.signal) {
    case 'SIGSEGV':
    case 'SIGBUS': {
      // The kernel gave no address (a general-protection fault): the backend read the pointer.
      if (f.faultNote) return `invalid memory access in ${where}: ${f.faultNote}`;
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
      if (f.signal === 'SIGBUS') return `bus error in ${where}: a misaligned access, or a mapped file that shrank`;
      return `invalid memory access${fault !== undefined ? ` at ${hex(fault)}` : ''} in ${where}: a wild or dangling pointer, an out-of-bounds index, or a write to read-only memory`;
    }
    case 'SIGABRT':
      if (f.report) return f.report.hint;
      // A Windows exception the proxy turns into SIGABRT (a custom code, a C++ throw): it is the
      // exception, not an abort, and its code says which.
      if (f.exception) {
        const code = `0x${(f.exception.code >>> 0).toString(16).padStart(8, '0')}`;
        const name = f.exception.name === code ? `exception ${code}` : `${f.exception.name} (${code})`;
        return `${name} raised in ${where}: ${f.exception.meaning}`;
      }
      return f.abortMessage
        ? `abort: ${f.abortMessage}`
        : `abort() called (in ${where}): no message in the program's output`;
    case 'SIGFPE':
      return `arithmetic error in ${where}: integer division by zero (or overflow); check the divisor`;
    case 'SIGILL':
      return `illegal instruction in ${where}: a corrupted function pointer, or a trap such as __builtin_trap()`;
    case 'SIGTRAP':
      return `trap in ${where}: a breakpoint instruction compiled into the program`;
    default:
      return f.signal ? `${f.signal} in ${where}` : `stopped in ${where}`;
  }
}

function currentStop(snapshot: SessionSnapshot): StopEvent | undefined {
  return snapshot.state.phase === 'stopped' ? snapshot.state.stop : undefined;
}

/** The last `bytes` of what the program printed, if it has a terminal and printed anything. */
export function outputTail(ctx: ViewContext, bytes: number): string | undefined {
  const ring = ctx.backend.output;
  if (!ring || ring.end === 0) return undefined;
  const chunk = ring.read(Math.max(0, ring.end - bytes), bytes);
  const text = chunk.data.toString('utf8');
  return text.length > 0 ? text : undefined;
}

/** Bytes at the end of the output where a report without a pid must stand to be this abort's. */
const RECENT_BYTES = 4096;

/**
 * A report is this abort's when the process that printed it is the one stopped (its ==PID==), or,
 * for a report that names no process (UBSan's), when it is among the last lines printed: a
 * restarted program's output still holds the reports of its earlier runs.
 */
export function currentReport(ctx: ViewContext, report: RuntimeReport | undefined): RuntimeReport | undefined {
  if (!report) return undefined;
  if (report.pid !== undefined) {
    const live = [...ctx.snapshot.inferiors.values()];
    return live.length === 0 || live.includes(report.pid) ? report : undefined;
  }
  return (outputTail(ctx, RECENT_BYTES) ?? '').includes(report.errorLine) ? report : undefined;
}

export async function crashView(ctx: ViewContext): Promise<CrashViewData> {
  const isUser = userFrameTest(ctx);
  /** Down to the first frame of the program's, and the one that called it. */
  const throughFirstUser = (deeper: readonly Frame[]): Frame[] => {
    const firstUser = deeper.findIndex(isUser);
    return deeper.slice(0, firstUser < 0 ? deeper.length : firstUser + 2);
  };
  const stop = currentStop(ctx.snapshot);
  const threadId = stop?.threadId;
  const depth = LIMITS.crashStackDepth;
  // Arguments only for the frames the answer shows (folded runtime runs show none).
  const shown = (listed: readonly Frame[]) => shownLevels(listed, isUser);
  let frames: Frame[] =
    (await attempt(ctx, 'backtrace', () =>
      ctx.backend.stack({ threadId, from: 0, to: depth - 1, withArgs: shown }, ctx.signal),
    )) ?? (stop?.frame ? [stop.frame] : []);
  // Deep in the runtime (a sanitizer's abort is 8-9 frames down, libc's helpers more): read on to
  // the program's own code, which is what explains the crash.
  if (frames.length >= depth && !frames.some(isUser)) {
    const deeper = await attempt(ctx, 'backtrace', () =>
      ctx.backend.stack(
        { threadId, from: depth, to: USER_FRAME_SEARCH - 1, withArgs: (listed) => shown(throughFirstUser(listed)) },
        ctx.signal,
      ),
    );
    if (deeper) frames = [...frames, ...throughFirstUser(deeper)];
  }
  let total: number | undefined;
  if (frames.length >= depth) {
    total = await attempt(ctx, 'stack depth', () =>
      ctx.backend.stackDepth(threadId, LIMITS.crashDepthProbe, ctx.signal),
    );
  }
  const userFrames = frames.filter(isUser).slice(0, 2);
  const locals: FrameVariables[] = [];
  for (const f of userFrames) {
    const vars = await attempt(ctx, `locals of frame ${f.level}`, () =>
      ctx.backend.variables('locals', { threadId, frame: f.level }, {}, ctx.signal),
    );
    if (vars) locals.push({ level: f.level, ...(f.function ? { function: f.function } : {}), ...boundVariables(vars) });
  }
  const source = await sourceAround(ctx, userFrames[0], LIMITS.sourceContext);
  const disassembly = await attempt(ctx, 'faulting instruction', () =>
    ctx.backend.disassemble({ threadId, frame: 0, span: { around: 'pc', before: 0, after: 0 } }, ctx.signal),
  );
  const signal = stop?.signal;
  const fault = parseAddress(stop?.faultAddress);
  let sp: bigint | undefined;
  const backend = ctx.backend;
  if ((signal?.name === 'SIGSEGV' || signal?.name === 'SIGBUS') && fault !== undefined && fault >= 0x10000n) {
    sp = await attempt(ctx, 'stack pointer', async () => backend.stackPointer?.({ threadId, frame: 0 }, ctx.signal));
  }
  const tail = outputTail(ctx, LIMITS.outputTailBytes);
  const runtime = backend.runtime;
  // A sanitizer built with abort_on_error prints its report, then aborts: the report says what
  // happened (the abort itself says nothing).
  const report =
    signal?.name === 'SIGABRT'
      ? currentReport(ctx, runtime.runtimeReport?.(outputTail(ctx, REPORT_SCAN_BYTES) ?? ''))
      : undefined;
  // No message in the output (a core, or a program whose stderr went elsewhere): the runtime
  // keeps the assert text it printed (glibc: __abort_msg).
  let abortMessage = signal?.name === 'SIGABRT' && !report ? runtime.abortMessageInOutput(tail ?? '') : undefined;
  if (signal?.name === 'SIGABRT' && !report && abortMessage === undefined) {
    const kept = await runtime.abortMessage(backend, threadId, ctx.signal);
    if (kept !== undefined) abortMessage = runtime.abortMessageInOutput(kept);
  }
  const where = describeFrame(userFrames[0] ?? frames[0] ?? stop?.frame);
  const data: CrashViewData = {
    view: 'crash',
    hint: crashHint({
      signal: signal?.name,
      fault,
      sp,
      depth: total ?? (frames.length >= depth ? frames.length : undefined),
      abortMessage,
      report,
      faultNote: stop?.faultNote,
      where,
      exception: stop?.exception,
    }),
    stack: foldFrames(boundFrameArgs(frames), isUser),
    locals,
  };
  if (signal) data.signal = signal;
  if (stop?.faultAddress) data.faultAddress = stop.faultAddress;
  if (stop?.signalCode !== undefined) data.signalCode = stop.signalCode;
  if (stop?.faultNote) data.faultNote = stop.faultNote;
  if (report) data.report = report;
  if (threadId !== undefined) data.threadId = threadId;
  if (stop?.pid !== undefined) data.pid = stop.pid;
  if (total !== undefined && total > frames.length) data.depth = total;
  if (total !== undefined && total >= LIMITS.crashDepthProbe) data.depthAtLeast = true;
  if (source) data.source = source;
  const instruction = disassembly?.instructions[0];
  if (instruction) data.instruction = instruction;
  if (tail) data.outputTail = tail;
  return data;
}
