// What a stop means in Windows terms, read before the stop is reported (GdbBackend.addStopProbe).
//
// Two things winedbg's gdb proxy does not say (measured, Wine 8.0 / GDB 13):
// - An interrupt, and an attach, stop the program by a thread winedbg creates for the purpose:
//   SIGTRAP in ntdll's DbgBreakPoint, called from DbgUiRemoteBreakin, in a thread that goes away
//   at the next resume. The stop is reported on the program's own main thread instead (or its
//   lowest-numbered one), as SIGINT for an interrupt, as GDB reports an interrupt on Linux, and
//   that thread is selected, so `next` or `finish` afterwards act on it.
// - Every Windows exception reaches GDB as a bare signal (an access violation and a stack
//   overflow are both SIGSEGV; $_siginfo is void). The code comes from winedbg's trace
//   (winedbgTrace.ts), checked against the signal; a memory fault's access and address are
//   inferred from the faulting instruction (faultOperand.ts), a stack overflow's from the stack
//   pointer, and the stop says they are inferred. The same exception stopping again at the same
//   pc is its second chance: no handler took it, and continuing ends the program.

import type { StopEvent, TargetException } from '../../model/model.js';
import type { GdbBackend } from '../gdb/gdbBackend.js';
import { inferFault } from './faultOperand.js';
import { codesForSignal, windowsException } from './windowsExceptions.js';
import type { WinedbgTrace } from './winedbgTrace.js';

const ACCESS_VIOLATION = 0xc0000005;
const STACK_OVERFLOW = 0xc00000fd;
/** Codes whose record would carry an access and an address: those are inferred from the instruction. */
const MEMORY_FAULTS = new Set([ACCESS_VIOLATION, 0xc0000096, 0x80000001, 0xc0000006]);
/** How long a stop waits for its trace line: written before the stop reply, read from another pipe. */
const TRACE_WAIT_MS = 2000;
const QUICK = { timeoutMs: 5000 };

function hex(n: bigint | number): string {
  return `0x${n.toString(16)}`;
}

/** A number GDB printed: "16", "(void *) 0x21fe0", "0x0". */
function parseNumber(text: string): bigint | undefined {
  const h = /0x[0-9a-fA-F]+/.exec(text);
  if (h) return BigInt(h[0]);
  const d = /^\s*(-?\d+)\s*$/.exec(text);
  return d?.[1] === undefined ? undefined : BigInt.asUintN(64, BigInt(d[1]));
}

export class WindowsStops {
  /** GDB ids of winedbg's break-in threads: never the program's, never reported as a stop's thread. */
  readonly breakIns = new Set<number>();
  /** The program's main thread (the one held at the entry point), when known. */
  mainThread: number | undefined;
  /** Set while an attach connects: its break-in stop is where the process was, not an interrupt. */
  attaching = false;
  private traceMark = 0;
  private last: { code: number; pc: string | undefined; thread: number | undefined } | undefined;

  constructor(
    private readonly gdb: GdbBackend,
    private readonly trace: () => WinedbgTrace | undefined,
  ) {}

  /** A fresh program (a relaunch): what was learnt of the last one goes. */
  reset(trace: WinedbgTrace): void {
    this.traceMark = trace.count;
    this.last = undefined;
    this.mainThread = undefined;
  }

  async probe(stop: StopEvent): Promise<void> {
    const trace = this.trace();
    const since = this.traceMark;
    try {
      if (await this.isBreakIn(stop)) {
        await this.retarget(stop);
        this.last = undefined;
        return;
      }
      if (stop.reason === 'signal-received' && stop.signal && trace) await this.readException(stop, trace, since);
      else this.last = undefined;
    } finally {
      this.traceMark = trace?.count ?? 0;
    }
  }

  private async isBreakIn(stop: StopEvent): Promise<boolean> {
    // An interrupt's stop says SIGTRAP; the stop of a fresh connection says no signal at all.
    const signal = stop.signal?.name;
    if ((signal !== undefined && signal !== 'SIGTRAP') || stop.frame?.function !== 'DbgBreakPoint') return false;
    if (stop.threadId === undefined) return false;
    const frames = await this.gdb.stack({ threadId: stop.threadId, from: 0, to: 1 }, undefined);
    return frames[1]?.function === 'DbgUiRemoteBreakin';
  }

  private async retarget(stop: StopEvent): Promise<void> {
    const breakIn = stop.threadId as number;
    this.breakIns.add(breakIn);
    const { threads } = await this.gdb.threads();
    const own = threads.filter((t) => !this.breakIns.has(t.id)).sort((a, b) => a.id - b.id);
    const chosen = own.find((t) => t.id === this.mainThread) ?? own[0];
    if (this.attaching) {
      // Where the process was when we came: no signal was involved.
      stop.reason = 'unknown';
      delete stop.signal;
    } else {
      stop.signal = { name: 'SIGINT', meaning: 'Interrupt' };
    }
    if (!chosen) return;
    stop.threadId = chosen.id;
    if (chosen.frame) stop.frame = chosen.frame;
    else delete stop.frame;
    await this.gdb.context.mi.send('thread-select', [String(chosen.id)], QUICK);
    this.gdb.state.stopThread = chosen.id;
  }

  private async readException(stop: StopEvent, trace: WinedbgTrace, since: number): Promise<void> {
    const signal = stop.signal?.name ?? '';
    const codes = codesForSignal(signal);
    const traced = codes.length === 0 ? undefined : await trace.waitFor(since, TRACE_WAIT_MS);
    // SIGABRT is also what the proxy makes of a code it does not know (a program's own, raised
    // with RaiseException): any traced code the proxy reports as SIGABRT is this stop's.
    const matches =
      traced !== undefined &&
      (codes.includes(traced.code) || (signal === 'SIGABRT' && windowsException(traced.code).signal === 'SIGABRT'));
    if (!traced || !matches) {
      this.last = undefined;
      return;
    }
    const exception: TargetException = { code: traced.code, name: traced.name, meaning: traced.hint };
    const pc = stop.frame?.address;
    if (this.last && this.last.code === traced.code && this.last.pc === pc && this.last.thread === stop.threadId) {
      exception.secondChance = true;
    }
    this.last = { code: traced.code, pc, thread: stop.threadId };
    if (MEMORY_FAULTS.has(traced.code)) await this.inferAccess(stop, exception);
    else if (traced.code === STACK_OVERFLOW) await this.inferOverflow(stop, exception);
    stop.exception = exception;
    const access = exception.access ? `: ${exception.access}${exception.inferredFrom ? ' (inferred)' : ''}` : '';
    stop.signal = {
      name: signal,
      meaning: `${exception.name} ${hex(exception.code)}${access}${exception.secondChance ? ', second chance' : ''}`,
    };
  }

  /** The faulting instruction, as GDB prints it, or the error it gave (an unreadable pc). */
  private async instruction(): Promise<string> {
    try {
      return (await this.gdb.cliText('x/i $pc', { ...QUICK, captureConsole: true })).console.trim();
    } catch (e) {
      return (e as Error).message;
    }
  }

  private async value(expression: string, threadId: number | undefined): Promise<bigint | undefined> {
    try {
      return parseNumber(await this.gdb.evaluate(`(unsigned long long)(${expression})`, { threadId, frame: 0 }));
    } catch {
      return undefined;
    }
  }

  private async inferAccess(stop: StopEvent, exception: TargetException): Promise<void> {
    const text = await this.instruction();
    const fault = inferFault(text);
    if (!fault) return;
    exception.access = fault.access;
    const operand = /:\s*(.*)$/.exec(text.split('\n')[0] ?? '')?.[1]?.replace(/\s+/g, ' ');
    exception.inferredFrom =
      fault.access === 'execute' && fault.address === '$pc'
        ? 'the program counter: its address cannot be read'
        : `the faulting instruction${operand ? ` \`${operand}\`` : ''}`;
    if (fault.address === undefined) return;
    const address = await this.value(fault.address, stop.threadId);
    if (address === undefined) return;
    exception.address = hex(address);
    stop.faultAddress = exception.address;
  }

  /** A push or call at the fault writes just below the stack pointer; anything else, at it. */
  private async inferOverflow(stop: StopEvent, exception: TargetException): Promise<void> {
    const sp = await this.value('$sp', stop.threadId);
    if (sp === undefined) return;
    const text = await this.instruction();
    const pushes = /:\s*(call|push)/.test(text);
    const fault = pushes ? undefined : inferFault(text);
    const address = fault?.address !== undefined ? await this.value(fault.address, stop.threadId) : undefined;
    exception.access = fault?.access ?? 'write';
    exception.address = hex(address ?? (pushes ? sp - 8n : sp));
    exception.inferredFrom = address !== undefined ? 'the faulting instruction' : 'the stack pointer';
    stop.faultAddress = exception.address;
  }
}
