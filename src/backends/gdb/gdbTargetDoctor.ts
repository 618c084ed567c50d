// Doctor lines for the targets a session does not launch: core files, remote stubs (gdbserver,
// QEMU user mode), foreign architectures (gdb-multiarch) and forks. Each runs the real tool.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { childEnvironment } from '../../process/childEnvironment.js';
import { findOnPath } from '../../util/which.js';
import type { DoctorCheck } from '../debuggerBackend.js';
import { gdbKnowsArchitecture } from './gdbTargets.js';

/** The first line a tool prints for --version, or undefined when it does not run. */
function versionOf(file: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { timeout: 10_000, env: childEnvironment(process.env) }, (error, stdout) => {
      const first = String(stdout).split('\n')[0]?.trim();
      resolve(error || !first ? undefined : first);
    });
  });
}

/**
 * The core size limit programs started from here inherit (the soft RLIMIT_CORE, in bytes; `Infinity`
 * for unlimited), from /proc/self/limits; undefined where it cannot be read.
 */
export function coreSizeLimit(limits: string | undefined): { soft: number; hard: number } | undefined {
  const line = limits?.split('\n').find((l) => l.startsWith('Max core file size'));
  const fields = line?.slice('Max core file size'.length).trim().split(/\s+/);
  if (fields === undefined || fields.length < 2) return undefined;
  const value = (f: string | undefined) => (f === 'unlimited' ? Number.POSITIVE_INFINITY : Number(f));
  const soft = value(fields[0]);
  const hard = value(fields[1]);
  return Number.isNaN(soft) || Number.isNaN(hard) ? undefined : { soft, hard };
}

/** Where the kernel puts a crashing program's core, in words, with how to get one. */
export function coreCheck(pattern: string | undefined, limit?: { soft: number; hard: number }): DoctorCheck {
  const name = 'core files';
  const reads = 'dbg_start program+core opens a dump; dbg_memory save_core writes one';
  if (pattern === undefined) return { name, ok: true, detail: `${reads}; the kernel's core_pattern is unknown` };
  if (pattern.startsWith('|')) {
    const handler = pattern.slice(1).split(' ')[0] ?? '';
    const fetch = /systemd-coredump/.test(handler)
      ? 'coredumpctl dump PID -o FILE'
      : /apport/.test(handler)
        ? 'apport-unpack the .crash file in /var/crash'
        : `ask ${handler}`;
    return { name, ok: true, detail: `${reads}; crashes go to ${handler}: ${fetch} gets the file` };
  }
  if (limit !== undefined && limit.soft === 0) {
    const raise =
      limit.hard === 0
        ? 'the hard limit is 0 too: raise it as root (limits.conf, or the service manager' +
          "'s LimitCORE=) before starting the server"
        : 'run `ulimit -c unlimited` in the shell that starts the server';
    return {
      name,
      ok: true,
      detail: `${reads}; crashes dump no core here: ulimit -c is 0 for this server and the programs it starts (${raise}); with it, they dump to ${pattern} (relative to the program's cwd)`,
    };
  }
  return {
    name,
    ok: true,
    detail: `${reads}; crashes dump to ${pattern} (relative to the program's cwd)${
      limit === undefined ? ' when ulimit -c allows' : ''
    }`,
  };
}

export async function gdbTargetChecks(gdbPath: string, passthroughEnv?: readonly string[]): Promise<DoctorCheck[]> {
  const options = { gdbPath };
  const env = childEnvironment(process.env, passthroughEnv);
  const gdbserver = findOnPath(['gdbserver']);
  const qemu = findOnPath(['qemu-aarch64']);
  const multiarch = findOnPath(['gdb-multiarch']);
  const [serverVersion, qemuVersion, nativeArm, multiArm] = await Promise.all([
    gdbserver ? versionOf(gdbserver) : undefined,
    qemu ? versionOf(qemu) : undefined,
    gdbKnowsArchitecture(options.gdbPath, 'aarch64', env),
    multiarch ? gdbKnowsArchitecture(multiarch, 'aarch64', env) : false,
  ]);
  let pattern: string | undefined;
  try {
    pattern = readFileSync('/proc/sys/kernel/core_pattern', 'utf8').trim();
  } catch {
    pattern = undefined;
  }
  let limits: string | undefined;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    limits = undefined;
  }
  const checks: DoctorCheck[] = [coreCheck(pattern, coreSizeLimit(limits))];
  checks.push(
    serverVersion
      ? { name: 'gdbserver', ok: true, detail: `${serverVersion}: remote=host:port, extended=true for --multi` }
      : { name: 'gdbserver', ok: false, detail: 'gdbserver not found', fix: 'apt-get install gdbserver' },
  );
  checks.push(
    qemuVersion
      ? { name: 'qemu-user', ok: true, detail: `${qemuVersion}: qemu-aarch64 -g PORT prog, then remote` }
      : { name: 'qemu-user', ok: false, detail: 'qemu-aarch64 not found', fix: 'apt-get install qemu-user' },
  );
  checks.push(
    nativeArm
      ? { name: 'foreign arch', ok: true, detail: `${options.gdbPath} debugs AArch64 and other architectures` }
      : multiArm
        ? { name: 'foreign arch', ok: true, detail: `gdb-multiarch (${multiarch}) is used for other architectures` }
        : {
            name: 'foreign arch',
            ok: false,
            detail: `${options.gdbPath} knows only this machine's architecture and no gdb-multiarch was found`,
            fix: 'apt-get install gdb-multiarch',
          },
  );
  checks.push({
    name: 'forks',
    ok: true,
    detail: 'dbg_start forks=parent|child|both; catch fork/exec in dbg_breakpoints',
  });
  return checks;
}
