// Does hardware debugging work on this machine? On some VMs (measured: Firecracker, GDB 13 and
// LLDB alike) hardware watchpoints and breakpoints are accepted and never fire: the program runs
// past the write to its exit. So the probe makes a write and an instruction that are certain to
// happen, in a program every Linux machine has (/bin/true), and watches whether they are caught.
//
// The certain events are in the dynamic loader's first instructions. Its entry calls into C at
// once (glibc `_start: mov %rsp,%rdi; call _dl_start`, musl `_dlstart: … call _dlstart_c`):
// - x86: the `call` pushes its return address at $sp - pointer size (sp read at the call, since
//   musl realigns sp before it);
// - AArch64: `bl` writes no memory, but the callee's first instruction saves x30 on the stack
//   (glibc 2.36: `stp x29, x30, [sp, #-224]!`; checked under QEMU with a software watchpoint);
// - both: the instruction after the call (the return address) runs when the callee returns.
// A software breakpoint on the instruction after that one is the sentinel: when it is reached
// and neither hardware stop came, although the slot's value did change, the verdict is 'dead'.
// Anything else that goes wrong is 'unknown', never 'dead'.
//
// The same stopped program answers a second question: can GDB call a function in it? GDB 13
// on CPUs with AMX state fails every inferior call ("Couldn't write extended state status").
//
// And a third, on the program started again: can GDB's process record run it backwards? The same
// GDB on the same CPUs records forwards and fails to go back over any instruction that wrote a
// vector register (it cannot write the extended state back): measured, `reverse-stepi` over the
// loader's `punpcklqdq %xmm2,%xmm1` in `_dl_start`. Three `stepi` (the old check) pass; a
// reverse run over a real stretch does not, and under MI it does not stop either: GDB prints the
// error over and over (115,000 lines in 5 s) with the thread still "running". So the probe
// records the loader's first RECORD_PROBE_STEPS instructions (libc's and the loader's string
// routines use SSE registers) and runs backwards over them, ending at the first error line.

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Instruction } from '../../model/model.js';
import type { MiTuple } from '../../protocols/mi/miRecords.js';
import { findOnPath } from '../../util/which.js';
import {
  isExitStop,
  miString,
  miTuple,
  narrowBreakpoint,
  narrowBreakpointTable,
  narrowDisassembly,
  narrowStop,
} from './gdbNarrow.js';
import { GdbProbeProcess, type ProbeRunEnd } from './gdbProbeProcess.js';

export type HardwareVerdict = 'work' | 'dead' | 'unknown';

export interface HardwareDebugProbe {
  watchpoints: HardwareVerdict;
  breakpoints: HardwareVerdict;
  /** What was tried and seen, in plain words (for the doctor and the log). */
  detail: string;
  /** The part of `detail` about watchpoints, and about breakpoints, when the probe got that far. */
  watchpointDetail?: string;
  breakpointDetail?: string;
  /** Wall time of the whole probe, gdb's start and exit included. */
  ms: number;
}

export interface InferiorCallProbe {
  inferiorCalls: 'work' | 'broken' | 'unknown';
  detail: string;
}

export interface RecordProbe {
  /** Whether GDB's process record runs the program backwards here. */
  reverse: 'work' | 'broken' | 'unknown';
  detail: string;
}

export interface MachineProbe {
  hardware: HardwareDebugProbe;
  calls: InferiorCallProbe;
  record: RecordProbe;
}

export interface MachineProbeOptions {
  gdbPath: string;
  env: Record<string, string>;
  /** The program to run; default `true` from /usr/bin or /bin. */
  program?: string;
  /** Deadline of each gdb command and stop; only there to catch a hang. */
  commandTimeoutMs?: number;
  /**
   * 'software' runs the same method with a software watchpoint and breakpoint: the control
   * experiment (it must read 'work' everywhere), for tests of the method itself.
   */
  mechanism?: 'hardware' | 'software';
}

/** Where the probe stops the program and what it then watches, read from the entry's code. */
export interface ProbePlan {
  arch: 'x86' | 'aarch64';
  /** The first call instruction at the entry, its target, and the two instructions after it. */
  call: bigint;
  target: bigint;
  returnAddress: bigint;
  sentinel: bigint;
}

const X86_CALL = /^call[lq]?\s+(0x[0-9a-f]+)/;
const AARCH64_CALL = /^bl\s+(0x[0-9a-f]+)/;
// Instructions after which the next one in memory need not run.
const BRANCH = /^(?:j[a-z]*|call[lq]?|ret[lq]?|b|b\.[a-z]+|bl|br|blr|cbn?z|tbn?z|hlt|ud2|brk)\b/;

function address(text: string | undefined): bigint | undefined {
  if (text === undefined || !/^0x[0-9a-f]+$/i.test(text)) return undefined;
  return BigInt(text);
}

/** Finds the first call among the entry's instructions; a string says why there is no plan. */
export function planProbe(instructions: readonly Instruction[]): ProbePlan | string {
  for (let i = 0; i < instructions.length; i++) {
    const text = instructions[i]?.instruction.trim() ?? '';
    const x86 = X86_CALL.exec(text);
    const arm = x86 ? undefined : AARCH64_CALL.exec(text);
    const match = x86 ?? arm;
    if (!match) continue;
    const after = instructions[i + 1];
    const next = instructions[i + 2];
    const call = address(instructions[i]?.address);
    const target = address(match[1]);
    const returnAddress = address(after?.address);
    const sentinel = address(next?.address);
    if (call === undefined || target === undefined || returnAddress === undefined || sentinel === undefined) {
      return `the entry's call at ${instructions[i]?.address ?? '?'} is not followed by two readable instructions`;
    }
    if (BRANCH.test(after?.instruction.trim() ?? '')) {
      return `the instruction after the entry's call is a branch (${after?.instruction.trim()})`;
    }
    return { arch: x86 ? 'x86' : 'aarch64', call, target, returnAddress, sentinel };
  }
  return `no call among the first ${instructions.length} instructions of the program's entry`;
}

/**
 * AArch64: the stack slot where the callee's prologue saves the link register (x30), given its
 * first instructions and sp at its entry. Pointer-authentication and BTI landing pads come
 * first in hardened builds and write nothing.
 */
export function aarch64LinkSlot(instructions: readonly Instruction[], sp: bigint): bigint | undefined {
  const imm = (s: string): bigint => BigInt(s.startsWith('-') ? `-${s.slice(1)}` : s);
  let frame = 0n;
  for (const insn of instructions.slice(0, 6)) {
    const text = insn.instruction.trim().replace(/\s+/g, ' ');
    if (/^(?:paciasp|pacibsp|bti\b|nop|hint #\d+)/.test(text)) continue;
    // stp x29, x30, [sp, #-224]!   (pre-index: sp moves, then the pair is stored at the new sp)
    let m = /^stp x29, x30, \[sp, #(-?(?:0x)?[0-9a-f]+)\]!/.exec(text);
    if (m?.[1]) return sp - frame + imm(m[1]) + 8n;
    // str x30, [sp, #-16]!
    m = /^str x30, \[sp, #(-?(?:0x)?[0-9a-f]+)\]!/.exec(text);
    if (m?.[1]) return sp - frame + imm(m[1]);
    // sub sp, sp, #0x40 … stp x29, x30, [sp, #48]
    m = /^sub sp, sp, #((?:0x)?[0-9a-f]+)$/.exec(text);
    if (m?.[1]) {
      frame += BigInt(m[1]);
      continue;
    }
    m = /^stp x29, x30, \[sp(?:, #((?:0x)?[0-9a-f]+))?\]$/.exec(text);
    if (m) return sp - frame + BigInt(m[1] ?? '0') + 8n;
    return undefined;
  }
  return undefined;
}

/** True when /proc/cpuinfo lists AMX tile state, the extended state GDB 13 cannot write back. */
export function cpuHasAmx(cpuinfo: string): boolean {
  return /^flags\s*:.*\bamx_tile\b/m.test(cpuinfo);
}

/** Reads an inferior call's outcome: a number is 'work'; the extended-state error is 'broken'. */
export function judgeInferiorCall(outcome: { value: string } | { error: string }, amx: boolean): InferiorCallProbe {
  if ('value' in outcome) {
    return /^-?\d+$/.test(outcome.value)
      ? { inferiorCalls: 'work', detail: `calling getpid() in the program worked${amx ? ' (on a CPU with AMX)' : ''}` }
      : { inferiorCalls: 'unknown', detail: `getpid() answered ${JSON.stringify(outcome.value.slice(0, 80))}` };
  }
  if (/extended state|Couldn't write (?:extended|registers)/i.test(outcome.error)) {
    return {
      inferiorCalls: 'broken',
      detail:
        `gdb cannot write back this CPU's extended register state${amx ? ' (AMX: amx_tile in /proc/cpuinfo)' : ''}, ` +
        `so every function call in the program fails ("${outcome.error.slice(0, 120)}"); a newer gdb fixes it`,
    };
  }
  return {
    inferiorCalls: 'unknown',
    detail: `the test call failed for another reason: ${outcome.error.slice(0, 160)}`,
  };
}

/** Instructions recorded before the probe runs back: measured 0.1-0.2 s for gdb's whole run. */
export const RECORD_PROBE_STEPS = 1000;

/** Reads how a reverse run over a recorded stretch ended. */
export function judgeReverseRun(
  end: { stop: { reason?: string } } | { error: string } | { none: string },
  amx: boolean,
): RecordProbe {
  const cpu = amx ? ' (AMX: amx_tile in /proc/cpuinfo)' : '';
  if ('stop' in end) {
    return end.stop.reason === 'no-history'
      ? {
          reverse: 'work',
          detail: `a reverse-continue over ${RECORD_PROBE_STEPS} recorded instructions came back to the start of the history${amx ? ' (on a CPU with AMX)' : ''}`,
        }
      : { reverse: 'unknown', detail: `the reverse-continue stopped for another reason (${end.stop.reason ?? '?'})` };
  }
  if ('none' in end) return { reverse: 'unknown', detail: `the reverse-continue gave no answer: ${end.none}` };
  const said = end.error.slice(0, 120);
  if (/extended state|Couldn't write (?:extended|registers)/i.test(end.error)) {
    return {
      reverse: 'broken',
      detail: `gdb records here but cannot run backwards: going back over an instruction that wrote a vector register, it cannot write this CPU's extended register state back${cpu} ("${said}")`,
    };
  }
  return { reverse: 'broken', detail: `gdb records here but the reverse-continue failed: "${said}"` };
}

const hex = (n: bigint): string => `0x${n.toString(16)}`;
const hexText = (decimal: string): string => (/^\d+$/.test(decimal) ? hex(BigInt(decimal)) : decimal);

class Unknown extends Error {}

/** The number of the watchpoint or breakpoint an insert answered with. */
function numberOf(results: MiTuple, key: 'wpt' | 'bkpt'): string {
  const t = miTuple(results, key);
  const n = t === undefined ? undefined : narrowBreakpoint(t).number;
  if (n === undefined || n === '?') throw new Unknown(`gdb gave no number for the ${key}`);
  return n;
}

/**
 * Runs the program to its entry, plans, stops at the call (x86) or the callee (AArch64) with a
 * software breakpoint, and returns what it found there.
 */
async function reachProbePoint(gdb: GdbProbeProcess): Promise<{ plan: ProbePlan; slot: bigint }> {
  const entry = await gdb.resume(() => gdb.cli('starti'));
  if (!entry || isExitStop(entry)) throw new Unknown('the program did not stop at its first instruction');
  const insns = narrowDisassembly(
    (await gdb.send('data-disassemble', ['-s', '$pc', '-e', '$pc + 48', '--', '0'])).results,
  );
  const plan = planProbe(insns);
  if (typeof plan === 'string') throw new Unknown(plan);
  const stopAt = plan.arch === 'x86' ? plan.call : plan.target;
  if (address(insns[0]?.address) !== stopAt) {
    await gdb.send('break-insert', ['-t', `*${hex(stopAt)}`]);
    const stop = await gdb.resume();
    const frame = stop && !isExitStop(stop) ? narrowStop(stop).frame : undefined;
    if (address(frame?.address) !== stopAt) throw new Unknown(`the program did not stop at ${hex(stopAt)}`);
  }
  const sp = BigInt(await gdb.evaluate('(unsigned long)$sp'));
  if (plan.arch === 'x86') return { plan, slot: sp - BigInt(await gdb.evaluate('sizeof(void*)')) };
  const prologue = narrowDisassembly(
    (await gdb.send('data-disassemble', ['-s', '$pc', '-e', '$pc + 24', '--', '0'])).results,
  );
  const slot = aarch64LinkSlot(prologue, sp);
  if (slot === undefined) throw new Unknown(`no link-register save at the start of ${hex(plan.target)}`);
  return { plan, slot };
}

async function probeWith(
  gdb: GdbProbeProcess,
  mechanism: 'hardware' | 'software',
): Promise<Omit<HardwareDebugProbe, 'ms'>> {
  const hw = mechanism === 'hardware';
  await gdb.send('gdb-set', { raw: `can-use-hw-watchpoints ${hw ? 1 : 0}` });
  const { plan, slot } = await reachProbePoint(gdb);
  // `unsigned long` is pointer-sized on Linux's ILP32 and LP64 alike.
  const cell = `*(unsigned long*)${hex(slot)}`;
  const before = await gdb.evaluate(cell);
  const wpt = numberOf((await gdb.send('break-watch', [cell])).results, 'wpt');
  const at = `*${hex(plan.returnAddress)}`;
  const hbr = numberOf((await gdb.send('break-insert', hw ? ['-h', at] : [at])).results, 'bkpt');
  const sentinel = numberOf((await gdb.send('break-insert', [`*${hex(plan.sentinel)}`])).results, 'bkpt');
  // A watchpoint GDB chose to do in software would fire whatever the hardware does.
  const kinds = new Map(narrowBreakpointTable((await gdb.send('break-list')).results).map((b) => [b.number, b.type]));
  const expected = hw ? ['hw watchpoint', 'hw breakpoint'] : ['watchpoint', 'breakpoint'];
  if (kinds.get(wpt) !== expected[0] || kinds.get(hbr) !== expected[1]) {
    throw new Unknown(`gdb did not make ${mechanism} ones (${kinds.get(wpt)}, ${kinds.get(hbr)})`);
  }
  let watchFired = false;
  let breakFired = false;
  // Expected: the watchpoint, the breakpoint, the sentinel; a few more stops are tolerated.
  for (let i = 0; i < 6; i++) {
    let stop: MiTuple | undefined;
    try {
      stop = await gdb.resume();
    } catch (e) {
      throw new Unknown(`gdb could not resume with them inserted: ${(e as Error).message}`);
    }
    if (!stop) throw new Unknown('no stop came back from gdb');
    if (isExitStop(stop)) throw new Unknown('the program ended before the sentinel breakpoint');
    const hit = narrowStop(stop);
    if (hit.breakpoint === wpt) {
      watchFired = true;
      // Once is enough; a software watchpoint left in would single-step the whole loader.
      await gdb.send('break-delete', [wpt]);
    } else if (hit.breakpoint === hbr) breakFired = true;
    else if (hit.breakpoint === sentinel) {
      const after = await gdb.evaluate(cell);
      const watched = `the ${mechanism} watchpoint on the stack slot ${hex(slot)}`;
      const watchpoints: HardwareVerdict = watchFired ? 'work' : before !== after ? 'dead' : 'unknown';
      const words = {
        work: `${watched} fired`,
        dead: `${watched} never fired although the slot was written (${hexText(before)} → ${hexText(after)})`,
        unknown: `${watched} could not be judged: the slot was not changed`,
      };
      const breakpoints: HardwareVerdict = breakFired ? 'work' : 'dead';
      const bp = `the ${mechanism} breakpoint at ${hex(plan.returnAddress)} ${breakFired ? 'fired' : 'never fired although that instruction ran'}`;
      return {
        watchpoints,
        breakpoints,
        detail: `${words[watchpoints]}; ${bp}`,
        watchpointDetail: words[watchpoints],
        breakpointDetail: bp,
      };
    } else {
      throw new Unknown(`an unexpected stop (${hit.signal?.name ?? hit.reason}) at ${hit.frame?.address ?? '?'}`);
    }
  }
  throw new Unknown('the sentinel breakpoint was never reached');
}

async function probeCalls(gdb: GdbProbeProcess): Promise<InferiorCallProbe> {
  const cpuinfo = readCpuinfo();
  try {
    await gdb.send('gdb-set', { raw: 'may-call-functions on' });
    return judgeInferiorCall({ value: await gdb.evaluate('(int)getpid()') }, cpuHasAmx(cpuinfo));
  } catch (e) {
    return judgeInferiorCall({ error: (e as Error).message }, cpuHasAmx(cpuinfo));
  }
}

function readCpuinfo(): string {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return ''; // Not Linux, or no /proc: the run itself still answers.
  }
}

/** The program started again at its first instruction, recorded forwards, then run back. */
async function probeRecord(gdb: GdbProbeProcess, timeoutMs: number): Promise<RecordProbe> {
  const amx = cpuHasAmx(readCpuinfo());
  try {
    await gdb.send('break-delete');
    await gdb.cli('kill').catch(() => undefined);
    const entry = await gdb.resume(() => gdb.cli('starti'));
    if (!entry || isExitStop(entry)) return { reverse: 'unknown', detail: 'the program did not start again' };
    await gdb.cli('record full');
    const forward = await gdb.runUntilStopOrError(() => gdb.cli(`stepi ${RECORD_PROBE_STEPS}`), timeoutMs);
    if (!('stop' in forward)) {
      const why = 'error' in forward ? forward.error : forward.none;
      return { reverse: 'unknown', detail: `recording forwards did not stop: ${why}` };
    }
  } catch (e) {
    return { reverse: 'unknown', detail: `recording could not begin: ${(e as Error).message}` };
  }
  let back: ProbeRunEnd;
  try {
    back = await gdb.runUntilStopOrError(() => gdb.send('exec-continue', ['--reverse']), timeoutMs);
  } catch (e) {
    back = { error: (e as Error).message };
  }
  return judgeReverseRun('stop' in back ? { stop: { reason: miString(back.stop, 'reason') } } : back, amx);
}

/**
 * Probes hardware watchpoints, hardware breakpoints and inferior calls with one short gdb run.
 * Never throws: a probe that cannot decide says 'unknown' with the reason.
 */
export async function probeMachine(options: MachineProbeOptions): Promise<MachineProbe> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const program = options.program ?? findOnPath(['true'], '/usr/bin:/bin');
  const unknown = (why: string): MachineProbe => ({
    hardware: { watchpoints: 'unknown', breakpoints: 'unknown', detail: why, ms: elapsed() },
    calls: { inferiorCalls: 'unknown', detail: why },
    record: { reverse: 'unknown', detail: why },
  });
  if (!program) return unknown('no /bin/true to probe with');
  let gdb: GdbProbeProcess | undefined;
  let result: MachineProbe;
  try {
    gdb = await GdbProbeProcess.start({
      gdbPath: options.gdbPath,
      env: options.env,
      commandTimeoutMs: options.commandTimeoutMs,
    });
    await gdb.send('file-exec-and-symbols', [program]);
    let hardware: Omit<HardwareDebugProbe, 'ms'>;
    let calls: InferiorCallProbe;
    try {
      hardware = await probeWith(gdb, options.mechanism ?? 'hardware');
      calls = await probeCalls(gdb);
    } catch (e) {
      hardware = {
        watchpoints: 'unknown',
        breakpoints: 'unknown',
        detail: `probe inconclusive: ${(e as Error).message}`,
      };
      calls = { inferiorCalls: 'unknown', detail: 'not tried: the program did not reach the probe stop' };
    }
    const record = await probeRecord(gdb, options.commandTimeoutMs ?? 10_000);
    result = { hardware: { ...hardware, ms: 0 }, calls, record };
  } catch (e) {
    result = unknown(`probe failed: ${(e as Error).message}`);
  } finally {
    await gdb?.close();
  }
  result.hardware.ms = elapsed();
  return result;
}

const cache = new Map<string, Promise<MachineProbe>>();

/** The probe once per gdb per server: every caller after the first shares its answer. */
export function probeMachineOnce(options: Omit<MachineProbeOptions, 'mechanism'>): Promise<MachineProbe> {
  let pending = cache.get(options.gdbPath);
  if (!pending) {
    pending = probeMachine({ ...options, mechanism: 'hardware' });
    cache.set(options.gdbPath, pending);
  }
  return pending;
}
