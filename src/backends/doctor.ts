// What this machine can debug: each backend and capability, available or not, with the reason
// and the fix. Every check runs the real tool; nothing is inferred from a version number alone.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnvironment } from '../process/childEnvironment.js';
import { findOnPath } from '../util/which.js';
import { GdbBackend } from './gdb/gdbBackend.js';
import { classifyRrFailure } from './rr/rrText.js';
import { targetChecks } from './targetDoctor.js';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** What was found, or why it is not available. */
  detail: string;
  /** How to make it available, when it is not. */
  fix?: string;
}

export interface DoctorOptions {
  gdbPath: string;
  passthroughEnv?: readonly string[];
}

function run(
  file: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, env: childEnvironment(process.env) }, (error, stdout, stderr) => {
      const code = error
        ? typeof (error as { code?: unknown }).code === 'number'
          ? (error as { code: number }).code
          : null
        : 0;
      resolve({ code, out: String(stdout), err: String(stderr) || (error && code === null ? error.message : '') });
    });
  });
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

async function gdbChecks(options: DoctorOptions): Promise<DoctorCheck[]> {
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
      allowInferiorCalls: true,
    });
    checks.push({ name: 'gdb', ok: true, detail: `${backend.info.version} (${gdb})` });
    checks.push({
      name: 'gdb/mi',
      ok: true,
      detail: backend.info.protocol === 'mi4' ? 'mi4' : `${backend.info.protocol} (mi4 refused; older gdb)`,
    });
    checks.push({ name: 'pty', ok: true, detail: 'programs get a terminal of their own' });
    checks.push(await inferiorCallCheck(backend));
    checks.push(await recordCheck(gdb, options));
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

/** Calls getpid() in a stopped /bin/true: some CPUs (AMX) make GDB 13 fail to restore registers. */
async function inferiorCallCheck(backend: GdbBackend): Promise<DoctorCheck> {
  const name = 'inferior calls';
  const program = findOnPath(['true'], '/usr/bin:/bin');
  if (!program) return { name, ok: false, detail: 'no /bin/true to test with' };
  try {
    await backend.load({ program, args: [] });
    await backend.insertBreakpoint({ kind: 'breakpoint', location: '_exit' });
    const stopped = new Promise<void>((resolve) => {
      const off = backend.subscribe((e) => {
        if (e.type === 'stopped' || e.type === 'exited' || e.type === 'died') {
          off();
          resolve();
        }
      });
    });
    await backend.start('none');
    let timer: NodeJS.Timeout | undefined;
    // The timer is cleared: left running it kept `dbg-mcp doctor` alive for 5 s after its answer.
    await Promise.race([stopped, new Promise((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
    const value = await backend.evaluate('(int)getpid()', {});
    return {
      name,
      ok: /^\d+$/.test(value),
      detail: /^\d+$/.test(value)
        ? 'possible (off unless --inferior-calls on)'
        : `unexpected answer ${JSON.stringify(value)}`,
    };
  } catch (e) {
    const message = (e as Error).message;
    const why = /extended state/.test(message)
      ? "this CPU's extended register state (e.g. AMX) cannot be written back by this gdb, so calling a function in the program fails"
      : message;
    return {
      name,
      ok: false,
      detail: `not possible here: ${why}`,
      fix: 'a newer gdb (14+) or another CPU; everything else works',
    };
  }
}

/** The next stop, exit or death of a backend, or undefined after `ms`. */
function nextStop(backend: GdbBackend, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve(undefined);
    }, ms);
    const off = backend.subscribe((e) => {
      if (e.type === 'stopped' || e.type === 'exited' || e.type === 'died') {
        clearTimeout(timer);
        off();
        resolve(e.type);
      }
    });
  });
}

/** Reverse execution with GDB's process record: record a few instructions, step one back. */
async function recordCheck(gdb: string, options: DoctorOptions): Promise<DoctorCheck> {
  const name = 'record full';
  const program = findOnPath(['true'], '/usr/bin:/bin');
  if (!program) return { name, ok: false, detail: 'no /bin/true to test with' };
  let backend: GdbBackend | undefined;
  try {
    backend = await GdbBackend.launch({ gdbPath: gdb, env: childEnvironment(process.env, options.passthroughEnv) });
    await backend.load({ program, args: [] });
    let stopped = nextStop(backend, 5000);
    await backend.start('entry');
    if ((await stopped) !== 'stopped') throw new Error('the program did not stop at its first instruction');
    await backend.startRecording();
    stopped = nextStop(backend, 5000);
    await backend.resume('stepi', { count: 3 });
    if ((await stopped) !== 'stopped') throw new Error('stepping under record did not stop');
    stopped = nextStop(backend, 5000);
    await backend.resume('stepi', { reverse: true });
    if ((await stopped) !== 'stopped') throw new Error('reverse-stepi did not stop');
    return { name, ok: true, detail: 'reverse execution works (dbg_start record=true; slow, for short runs)' };
  } catch (e) {
    return { name, ok: false, detail: `reverse execution failed: ${(e as Error).message}` };
  } finally {
    await backend?.close();
  }
}

async function rrCheck(): Promise<DoctorCheck> {
  const rr = findOnPath(['rr']);
  if (!rr) return { name: 'rr', ok: false, detail: 'rr not found', fix: 'apt-get install rr' };
  const paranoid = readProc('/proc/sys/kernel/perf_event_paranoid');
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-rr-'));
  try {
    const r = await run(rr, ['record', '-o', join(dir, 'trace'), '/bin/true'], 20_000);
    if (r.code === 0)
      return { name: 'rr', ok: true, detail: `records and replays (perf_event_paranoid=${paranoid ?? '?'})` };
    const problem = classifyRrFailure(`${r.err}\n${r.out}`, paranoid === undefined ? undefined : Number(paranoid));
    return { name: 'rr', ok: false, detail: `cannot record: ${problem.message}`, fix: problem.fix };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function toolCheck(name: string, candidates: string[], fix: string, what: string): DoctorCheck {
  const found = findOnPath(candidates);
  return found
    ? { name, ok: true, detail: `${what} (${found})` }
    : { name, ok: false, detail: `${candidates[0]} not found`, fix };
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

export async function runDoctor(options: DoctorOptions): Promise<DoctorCheck[]> {
  const lldbNames = ['lldb-dap', ...Array.from({ length: 8 }, (_, i) => `lldb-dap-${21 - i}`)];
  const [gdb, rr, targets] = await Promise.all([gdbChecks(options), rrCheck(), targetChecks(options)]);
  return [
    ...gdb,
    ptraceCheck(),
    rr,
    ...targets,
    toolCheck('lldb-dap', lldbNames, 'apt-get install lldb (provides lldb-dap-NN)', 'LLDB through DAP'),
    toolCheck('wine', ['wine', 'wine64'], 'apt-get install wine wine64', 'Windows programs'),
    toolCheck('winedbg', ['winedbg'], 'apt-get install wine', 'winedbg --gdb'),
  ];
}
