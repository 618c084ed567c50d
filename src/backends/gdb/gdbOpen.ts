// Opening a target on a started GDB: a program to launch (here or through gdbserver --multi), a
// core file, a running process, or a program behind a remote stub. The program's symbols load
// first; a core, an attach and a stub then report their first stop as the usual event.

import { readlinkSync } from 'node:fs';
import type { OpenReport, TargetSpec } from '../debuggerBackend.js';
import type { GdbContext } from './gdbContext.js';
import { loadProgram } from './gdbLaunch.js';
import { RECORD_WARNING, recordEnvironment } from './gdbRecord.js';
import { refuseBrokenRecording } from './gdbRunControl.js';
import { attachProcess, connectRemote, openCore, setForkMode, setRemoteProgram, setSysroot } from './gdbTargets.js';

/** The program a local process runs ('' when /proc does not say). */
function executableOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
  }
}

/**
 * Opens `target` (not the terminal: the front class gives a local launch its terminal). Returns
 * what was found; for a core, an attach and a stub the first stop arrives as an event.
 */
export async function openTarget(g: GdbContext, target: TargetSpec, signal?: AbortSignal): Promise<OpenReport> {
  const warnings: string[] = g.options.note ? [g.options.note] : [];
  const recorded = target.kind === 'launch' && target.record === true;
  // Before anything loads: where recording cannot run backwards, a recorded start is refused.
  if (recorded) await refuseBrokenRecording('record=true');
  const program =
    target.program && recorded ? { ...target.program, env: recordEnvironment(target.program.env) } : target.program;
  const throughStub = target.kind === 'launch' && target.remote !== undefined;
  if (program) warnings.push(...(await loadProgram(g, program, signal, { throughStub })).warnings);
  if (target.sysroot !== undefined) await setSysroot(g, target.sysroot, signal);
  if (target.forks) await setForkMode(g, target.forks, signal);
  const report = (extra: Partial<OpenReport> = {}): OpenReport => ({
    warnings,
    reportsStop: target.kind !== 'launch',
    ...(program ? { program: program.program } : {}),
    ...extra,
  });
  switch (target.kind) {
    case 'launch':
      if (target.remote !== undefined) {
        await connectRemote(g, target.remote, true, { signal });
        await setRemoteProgram(g, target.program.program, signal);
      }
      if (recorded) warnings.push(RECORD_WARNING);
      return report();
    case 'core': {
      const core = await openCore(g, target.core, target.program.program, signal);
      warnings.push(...core.warnings);
      return report(core.generatedBy ? { generatedBy: core.generatedBy } : {});
    }
    case 'attach': {
      if (target.remote !== undefined) await connectRemote(g, target.remote, true, { signal });
      await attachProcess(g, target.pid, signal);
      const found = program === undefined && target.remote === undefined ? executableOf(target.pid) : '';
      return report(found ? { program: found } : {});
    }
    case 'remote':
      await connectRemote(g, target.remote, false, { signal });
      return report();
    case 'replay':
      throw new Error('a replay is opened by the rr backend');
    case 'joined':
      throw new Error("a person's shared gdb is joined by the gdbShare backend");
  }
}
