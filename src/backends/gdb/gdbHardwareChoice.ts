// Hardware or software for a watchpoint or breakpoint, from the machine probe's verdict. Where
// hardware watchpoints never fire (some VMs), a write watchpoint is set in software instead and
// the answer says so; GDB has no software read or access watchpoints, so those are refused with
// the reason. An explicit `hardware: true` is honoured, with a warning that it may never fire.
// Hardware breakpoints are only ever asked for explicitly: honoured the same way. An 'unknown'
// verdict changes nothing.

import { gdbSet } from '../../protocols/mi/commands/gdb.js';
import { DebuggerError } from '../../util/errors.js';
import type { BreakpointSpec } from '../debuggerBackend.js';
import { type HardwareVerdict, machineProbe } from '../machineProbe.js';
import type { GdbContext } from './gdbContext.js';

export interface HardwareChoice {
  /** can-use-hw-watchpoints for this insert; undefined leaves GDB's setting as it is. */
  hardwareWatchpoints?: boolean;
  /** The warnings for the answer, given the breakpoint's number once it is set. */
  warnings(number: string): string[];
  /** True when `warnings` already says the watchpoint is in software (no second warning). */
  saysSoftware: boolean;
}

const NONE: HardwareChoice = { warnings: () => [], saysSoftware: false };

/** The choice for `spec` on a machine whose hardware watchpoints and breakpoints are as probed. */
export function chooseHardware(
  spec: BreakpointSpec,
  probed: {
    watchpoints: HardwareVerdict;
    breakpoints: HardwareVerdict;
    detail: string;
    watchpointDetail?: string;
    breakpointDetail?: string;
  },
): HardwareChoice {
  const seenWatching = probed.watchpointDetail ?? probed.detail;
  const seenBreaking = probed.breakpointDetail ?? probed.detail;
  if (spec.kind === 'breakpoint') {
    if (!spec.hardware || probed.breakpoints !== 'dead') return NONE;
    return {
      warnings: (n) => [
        `hardware breakpoint ${n} may never stop the program: hardware breakpoints were probed on this machine and never fire (${seenBreaking}); set it without hardware for a software breakpoint`,
      ],
      saysSoftware: false,
    };
  }
  if (spec.kind !== 'watchpoint' || probed.watchpoints !== 'dead') return NONE;
  if (spec.hardware) {
    return {
      hardwareWatchpoints: true,
      warnings: (n) => [
        `hardware watchpoint ${n} may never trigger: hardware watchpoints were probed on this machine and never fire (${seenWatching}); without hardware=true a write watchpoint is set in software`,
      ],
      saysSoftware: false,
    };
  }
  const access = spec.access ?? 'write';
  if (access !== 'write') {
    throw new DebuggerError(
      'backend_unavailable',
      `a ${access} watchpoint needs the CPU's debug registers, and hardware watchpoints never fire on this machine (${seenWatching}); GDB can watch only writes in software: use access=write, or hardware=true to set it anyway`,
    );
  }
  return {
    hardwareWatchpoints: false,
    warnings: (n) => [
      `watchpoint ${n} is a software watchpoint because hardware watchpoints never fire on this machine (${seenWatching}): the program runs one instruction at a time while it is set (slow), and GDB watches the expression in the current thread's scope`,
    ],
    saysSoftware: true,
  };
}

/**
 * Decides for `spec` and sets GDB up for it. Only a program running on this machine is judged by
 * this machine's probe: a remote stub's debug registers are the stub's business, and a core runs
 * nothing.
 */
export async function prepareHardware(
  g: GdbContext,
  spec: BreakpointSpec,
  signal?: AbortSignal,
): Promise<HardwareChoice> {
  const hardwareAsked = spec.kind === 'breakpoint' ? spec.hardware === true : spec.kind === 'watchpoint';
  if (!hardwareAsked || !g.state.pidsAreLocal) return NONE;
  const choice = chooseHardware(spec, (await machineProbe()).hardware);
  const want = choice.hardwareWatchpoints;
  // The setting is GDB's, for every watchpoint set after it; GDB also re-decides an existing
  // watchpoint's kind when it re-reads it (a library load), so the session keeps one mode
  // (state.hardwareWatchpoints, which stopping a recording restores) and flips it per insert.
  if (want !== undefined && want !== g.state.hardwareWatchpoints && !g.state.recording) {
    await gdbSet(g.mi, `can-use-hw-watchpoints ${want ? 1 : 0}`, { signal });
    g.state.hardwareWatchpoints = want;
  }
  return choice;
}
