// The LLDB backend's doctor lines: which lldb-dap, its version, that it starts and answers, what
// the backend can do with it (read from its capabilities, so the line cannot drift from what the
// tools refuse), and whether its watchpoints can fire on this machine.

import { childEnvironment } from '../../process/childEnvironment.js';
import type { BackendCapabilities, DoctorCheck, DoctorOptions } from '../debuggerBackend.js';
import { LLDB_CAPABILITIES, LldbBackend } from './lldbBackend.js';
import type { WatchpointVerdict } from './lldbContext.js';
import { findLldbDap, lldbDapVersion } from './lldbPath.js';

/** What a backend can do and cannot, in a few words, from its capabilities. */
export function describeCapabilities(c: BackendCapabilities): string {
  const can = [
    c.targets.join('/'),
    c.catchEvents.length > 0 ? `catch ${c.catchEvents.join('/')}` : '',
    c.logpoints ? 'logpoints' : '',
    c.watchpoints.length > 0 ? (c.softwareWatchpoints ? 'watchpoints' : 'hardware watchpoints') : '',
    c.inferiorCalls ? 'function calls (--inferior-calls)' : '',
  ].filter((s) => s !== '');
  const cannot = [
    c.reverse === 'none' ? 'reverse execution' : '',
    c.record ? '' : 'recording',
    c.softwareWatchpoints ? '' : 'software watchpoints',
    c.hardwareBreakpoints ? '' : 'hardware breakpoints',
    c.forks ? '' : 'following forks',
    c.saveCore ? '' : 'saving cores',
  ].filter((s) => s !== '');
  return `${can.join(', ')}${cannot.length > 0 ? `; not: ${cannot.join(', ')}` : ''}`;
}

export interface LldbDoctorOptions extends DoctorOptions {
  /** The machine's hardware watchpoint verdict, when the caller can probe it. */
  watchpointProbe?: () => Promise<WatchpointVerdict>;
}

export async function lldbDoctor(options: LldbDoctorOptions): Promise<DoctorCheck[]> {
  const configured = options.paths.lldb;
  const path = findLldbDap(configured);
  if (!path) {
    return [
      {
        name: 'lldb-dap',
        ok: false,
        detail: configured ? `${configured} not found` : 'no lldb-dap-NN or lldb-dap on PATH',
        fix: 'apt-get install lldb-22 (it provides lldb-dap-22), or --lldb-dap PATH',
      },
    ];
  }
  const env = childEnvironment(process.env, options.passthroughEnv);
  // Side by side: the version, a start of lldb-dap to its initialize answer, and the machine probe.
  const started = LldbBackend.launch({ lldbDapPath: path, env, startTimeoutMs: 30_000 }).then(
    async (backend) => {
      const version = backend.info.version;
      await backend.close();
      return { version };
    },
    (e: unknown) => ({ error: (e as Error).message }),
  );
  const [version, start, probe] = await Promise.all([lldbDapVersion(path, env), started, options.watchpointProbe?.()]);
  const checks: DoctorCheck[] = [];
  if ('error' in start) {
    checks.push({
      name: 'lldb-dap',
      ok: false,
      detail: `${path} did not start: ${start.error}`,
      fix: 'reinstall lldb (apt-get install --reinstall lldb-22), or --lldb-dap PATH to another one',
    });
    return checks;
  }
  checks.push({
    name: 'lldb-dap',
    ok: true,
    detail: `${version || start.version} (${path}): ${describeCapabilities(LLDB_CAPABILITIES)}`,
  });
  if (probe) {
    checks.push({
      name: 'lldb watchpoints',
      ok: probe.verdict === 'work',
      detail:
        probe.verdict === 'work'
          ? 'hardware watchpoints fire on this machine'
          : probe.verdict === 'dead'
            ? `refused: hardware watchpoints never fire on this machine (${probe.detail}), and LLDB has no others`
            : `unknown (${probe.detail})`,
      ...(probe.verdict === 'work'
        ? {}
        : { fix: 'use the gdb backend for watchpoints (its software watchpoints work)' }),
    });
  }
  return checks;
}
