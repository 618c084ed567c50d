// The GDB backend's doctor lines: gdb itself, MI, the program terminal, hardware watchpoints and
// breakpoints, inferior calls and GDB's process record (the machine probe), C++ pretty-printers
// and attach. Every check runs the real tool; nothing is inferred from a version.

import { readFileSync } from 'node:fs';
import { childEnvironment } from '../../process/childEnvironment.js';
import { findOnPath } from '../../util/which.js';
import type { DoctorCheck, DoctorOptions } from '../debuggerBackend.js';
import { GdbBackend } from './gdbBackend.js';
import { type HardwareVerdict, type MachineProbe, probeMachineOnce } from './gdbHardwareProbe.js';
import { launcherDoctorCheck } from './gdbLaunch.js';
import { defaultPrinterCacheDir, loadLibstdcxxPrinters, type PrettyPrinterState } from './gdbPrettyPrinters.js';
import { gdbTargetChecks } from './gdbTargetDoctor.js';

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

async function gdbChecks(options: DoctorOptions & { gdbPath: string }): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const gdb = options.gdbPath.includes('/') ? options.gdbPath : findOnPath([options.gdbPath]);
  if (!gdb) {
    return [
      {
        name: 'gdb',
        ok: false,
        detail: `${options.gdbPath} not found on PATH`,
        fix: 'apt-get install gdb (or --gdb PATH)',
      },
    ];
  }
  let backend: GdbBackend | undefined;
  try {
    backend = await GdbBackend.launch({
      gdbPath: gdb,
      env: childEnvironment(process.env, options.passthroughEnv),
    });
    checks.push({ name: 'gdb', ok: true, detail: `${backend.info.version} (${gdb})` });
    checks.push({
      name: 'gdb/mi',
      ok: true,
      detail: backend.info.protocol === 'mi4' ? 'mi4' : `${backend.info.protocol} (mi4 refused; older gdb)`,
    });
    checks.push({ name: 'pty', ok: true, detail: 'programs get a terminal of their own' });
    checks.push(await launcherDoctorCheck());
    const [probe, printers] = await Promise.all([
      probeMachineOnce({ gdbPath: options.gdbPath, env: childEnvironment(process.env, options.passthroughEnv) }),
      printersCheck(backend),
    ]);
    checks.push(...probeChecks(probe), printers, recordCheck(probe));
  } catch (e) {
    checks.push({
      name: 'gdb',
      ok: false,
      detail: (e as Error).message,
      fix: 'install a working gdb (apt-get install gdb)',
    });
  } finally {
    await backend?.close();
  }
  return checks;
}

/**
 * The machine probe's lines (gdbHardwareProbe.ts, run once per server): hardware watchpoints and
 * breakpoints, which some VMs accept and never fire, and calls into a program, which GDB 13
 * cannot make on CPUs with AMX state.
 */
export function probeChecks(probe: MachineProbe): DoctorCheck[] {
  const { hardware, calls } = probe;
  const line = (name: string, verdict: HardwareVerdict, said: string | undefined, fallback: string): DoctorCheck => ({
    name,
    ok: verdict === 'work',
    detail: verdict === 'unknown' ? `not known: ${hardware.detail}` : (said ?? hardware.detail),
    ...(verdict === 'dead' ? { fix: fallback } : {}),
  });
  return [
    line(
      'hardware watchpoints',
      hardware.watchpoints,
      hardware.watchpointDetail,
      'none needed: write watchpoints are set in software here (slower; read and access watchpoints are refused), as the answers say',
    ),
    line(
      'hardware breakpoints',
      hardware.breakpoints,
      hardware.breakpointDetail,
      'none needed: software breakpoints work; a breakpoint set with hardware=true may never stop the program here',
    ),
    {
      name: 'inferior calls',
      ok: calls.inferiorCalls === 'work',
      detail:
        calls.inferiorCalls === 'work'
          ? `possible (off unless --inferior-calls on): ${calls.detail}`
          : `${calls.inferiorCalls === 'broken' ? 'not possible here' : 'not known'}: ${calls.detail}`,
      ...(calls.inferiorCalls === 'broken' ? { fix: 'a newer gdb (14+) or another CPU; everything else works' } : {}),
    },
  ];
}

/** Whether libstdc++'s pretty-printers load into this gdb (auto-load stays off), as sessions load them. */
async function printersCheck(backend: GdbBackend): Promise<DoctorCheck> {
  const status = await loadLibstdcxxPrinters((c) => backend.cliText(c), { cacheDir: defaultPrinterCacheDir() });
  const fixes: Partial<Record<PrettyPrinterState, string>> = {
    'not-found':
      "install libstdc++'s printers (Debian/Ubuntu: the libstdc++6 package ships them in /usr/share/gcc/python)",
    'no-python': 'a gdb built with Python',
  };
  const fix = fixes[status.state];
  return { name: 'C++ values', ok: status.state === 'loaded', detail: status.detail, ...(fix ? { fix } : {}) };
}

/**
 * Reverse execution with GDB's process record, from the machine probe: a reverse-continue over a
 * thousand recorded instructions of a real program (gdbHardwareProbe.ts), which is what fails on
 * CPUs with AMX under GDB 13 (three stepi back and forth pass there).
 */
export function recordCheck(probe: MachineProbe): DoctorCheck {
  const name = 'record full';
  const { reverse, detail } = probe.record;
  if (reverse === 'work') {
    return {
      name,
      ok: true,
      detail: `reverse execution works (dbg_start record=true; slow, for short runs): ${detail}`,
    };
  }
  if (reverse === 'unknown') return { name, ok: false, detail: `not known: ${detail}` };
  return {
    name,
    ok: false,
    detail: `reverse execution does not work here, so record=true is refused: ${detail}`,
    fix: 'another CPU, or a gdb newer than 13 (not measured here); rr (dbg_record) where the CPU gives it performance counters',
  };
}

function ptraceCheck(): DoctorCheck {
  const scope = readProc('/proc/sys/kernel/yama/ptrace_scope');
  if (scope === undefined || scope === '0')
    return { name: 'attach', ok: true, detail: `ptrace_scope=${scope ?? 'none (no Yama)'}` };
  if (scope === '1') {
    return {
      name: 'attach',
      ok: process.getuid?.() === 0,
      detail: `ptrace_scope=1: only descendants can be attached${process.getuid?.() === 0 ? ' (root may attach anyway)' : ''}`,
      fix: 'sysctl kernel.yama.ptrace_scope=0, or run as root',
    };
  }
  return {
    name: 'attach',
    ok: false,
    detail: `ptrace_scope=${scope}: attaching is restricted`,
    fix: 'sysctl kernel.yama.ptrace_scope=0',
  };
}

/** The GDB backend's lines: gdb, MI, terminal, inferior calls, record full, attach, remote targets. */
export async function gdbDoctor(options: DoctorOptions): Promise<DoctorCheck[]> {
  const gdbPath = options.paths['gdb'] ?? 'gdb';
  const [gdb, targets] = await Promise.all([
    gdbChecks({ ...options, gdbPath }),
    gdbTargetChecks(gdbPath, options.passthroughEnv),
  ]);
  return [...gdb, ptraceCheck(), ...targets];
}
