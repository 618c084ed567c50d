// Running the program: start, resume (forwards and backwards), interrupt (with harder ways when
// the program or GDB does not listen), kill, and GDB's process record.

import {
  execContinue,
  execFinish,
  execInterrupt,
  execJump,
  execRun,
  execStep,
  execUntil,
} from '../../protocols/mi/commands/exec.js';
import { gdbSet } from '../../protocols/mi/commands/gdb.js';
import { DebuggerError } from '../../util/errors.js';
import type { ResumeAction, ResumeOptions, StartMode } from '../debuggerBackend.js';
import { machineProbe } from '../machineProbe.js';
import type { GdbContext } from './gdbContext.js';
import { explainStartFailure } from './gdbErrors.js';
import { gdbLocation } from './gdbLocation.js';
import { requireReadOnlyLocation } from './gdbReadOnly.js';

export async function start(g: GdbContext, mode: StartMode, signal?: AbortSignal): Promise<void> {
  g.state.reversing = false;
  if (mode === 'entry') {
    await g.cli('starti', { signal });
  } else if (mode === 'main') {
    await execRun(g.mi, { start: true }, { signal }).catch((e: unknown) => {
      throw explainStartFailure(e);
    });
  } else {
    await execRun(g.mi, {}, { signal });
  }
}

export async function resume(
  g: GdbContext,
  action: ResumeAction,
  options: ResumeOptions,
  signal?: AbortSignal,
): Promise<void> {
  requireReadOnlyLocation(options.location);
  g.state.reversing = options.reverse === true;
  const exec = { thread: options.threadId, reverse: options.reverse };
  const send = { signal };
  switch (action) {
    case 'continue':
      await execContinue(g.mi, exec, send);
      return;
    case 'next':
    case 'step':
      await execStep(g.mi, action, { ...exec, count: options.count }, send);
      return;
    case 'stepi':
      await execStep(g.mi, 'step-instruction', { ...exec, count: options.count }, send);
      return;
    case 'nexti':
      await execStep(g.mi, 'next-instruction', { ...exec, count: options.count }, send);
      return;
    case 'finish':
      await execFinish(g.mi, exec, send);
      return;
    case 'until':
      await execUntil(
        g.mi,
        { ...exec, location: options.location === undefined ? undefined : gdbLocation(options.location) },
        send,
      );
      return;
    case 'advance':
      if (!options.location) throw new DebuggerError('invalid_argument', 'advance needs a location');
      // MI has no -exec-advance.
      await g.cli(`advance ${gdbLocation(options.location)}`, send, { threadId: options.threadId });
      return;
    case 'jump':
      if (!options.location) throw new DebuggerError('invalid_argument', 'jump needs a location');
      await execJump(g.mi, { ...exec, location: gdbLocation(options.location) }, send);
      return;
  }
}

export async function interrupt(g: GdbContext): Promise<void> {
  g.state.interruptAnswered = false;
  await execInterrupt(g.mi, { timeoutMs: 5000 });
  g.state.interruptAnswered = true;
}

/**
 * -exec-interrupt sends SIGINT to the program, which never arrives when the program blocks it
 * (sigprocmask), and is not read when GDB itself is stuck in a command. Step 1: SIGINT to GDB,
 * which abandons what it is doing and stops the program. Step 2: SIGSTOP to the program, which
 * nothing can block or ignore; GDB reports it as a stop and, with `handle SIGSTOP nopass`, does
 * not deliver it on the next resume. When GDB answered the -exec-interrupt, it is not stuck:
 * step 1 is then the SIGSTOP.
 */
export function forceInterrupt(g: GdbContext, gdbPid: number | undefined, step: number): string | undefined {
  const signalled = (pid: number | undefined, signal: NodeJS.Signals): boolean => {
    if (pid === undefined) return false;
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  const measures = [
    ...(g.state.interruptAnswered ? [] : [() => (signalled(gdbPid, 'SIGINT') ? 'sent SIGINT to gdb' : '')]),
    () => {
      const pids = [...g.state.inferiorPids.values()].filter((pid) => signalled(pid, 'SIGSTOP'));
      return pids.length > 0 ? `sent SIGSTOP to pid ${pids.join(', ')}` : '';
    },
  ];
  const measure = measures[step - 1];
  return measure ? measure() || undefined : undefined;
}

/**
 * Refuses recording where the machine probe saw GDB's process record fail to run backwards (an
 * AMX CPU under GDB 13): forwards it records, and the first reverse run fails with no stop. An
 * 'unknown' verdict refuses nothing.
 */
export async function refuseBrokenRecording(doing: 'record=true' | 'record_start'): Promise<void> {
  const { record } = await machineProbe();
  if (record.reverse !== 'broken') return;
  const what = doing === 'record=true' ? 'dbg_start record=true is refused' : 'recording is not started';
  throw new DebuggerError(
    'backend_unavailable',
    `GDB's process record cannot run programs backwards on this machine, so ${what}: ${record.detail}. ` +
      'Instead: rr records and replays backwards where the CPU gives it performance counters ' +
      '(dbg_record, then dbg_start backend=rr trace=…; dbg_doctor says whether rr can record here), or a gdb newer than 13 (not measured here). ' +
      'Without recording, breakpoints, watchpoints and the stop at a crash work as usual.',
  );
}

export async function startRecording(g: GdbContext, signal?: AbortSignal): Promise<void> {
  await refuseBrokenRecording('record_start');
  // Hardware watchpoints did not fire in reverse here; software ones stop at the writing line.
  await gdbSet(g.mi, 'can-use-hw-watchpoints 0', { signal });
  await g.cli('record full', { signal });
}

export async function stopRecording(g: GdbContext, signal?: AbortSignal): Promise<void> {
  await g.cli('record stop', { signal });
  if (g.state.hardwareWatchpoints) await gdbSet(g.mi, 'can-use-hw-watchpoints 1', { signal });
}

export async function kill(g: GdbContext, signal?: AbortSignal): Promise<void> {
  await g.cli('kill', { signal });
}
