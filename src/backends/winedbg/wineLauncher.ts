// Starting a Windows program so that its output reaches our pty and it waits for the debugger.
//
// Measured (Wine 8.0): a program winedbg starts gets a console of its own (CREATE_NEW_CONSOLE)
// and its output is lost; one started by `wine` on our pty gets Wine's conhost --unix, which draws
// each character with cursor escapes (ESC[?25l c ESC[?25h) at about 1 ms a character (1 KB: 1.4 s;
// 20 KB: not done in 15 s, against 0.5 s through pipes), echoes input, and wants \r for Enter.
// And winedbg's proxy cannot attach to a process created suspended. So a small launcher
// (launcherSource.ts, built here with mingw) creates the program suspended, with its
// stdout and stderr on our pty opened as a file (the C runtime sees a character device and does
// not buffer) and its stdin on our pipe, puts `jmp $` on its entry point and resumes it: the
// program initialises and spins there until winedbg has attached by its Windows pid and the two
// bytes are put back (restoreEntry). What it costs is one more Wine process (the launcher) and
// an attach instead of a launch; the launcher itself is 40 KB, built once per cache.
//
// The launcher gets no tty (stdin a pipe, stdout and stderr nothing): any tty among its fds and
// Wine would start conhost --unix for it and the program would inherit that console.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { identify } from '../../process/processTree.js';
import { sealedStdio } from '../../process/sealedStdio.js';
import { sleep } from '../../util/deadline.js';
import { DebuggerError } from '../../util/errors.js';
import { findOnPath } from '../../util/which.js';
import { LAUNCHER_SOURCE } from './launcherSource.js';
import { guardEnvironment } from './wineGuard.js';
import type { WinePrefix } from './winePrefix.js';
import { SESSION_VARIABLE } from './wineProcesses.js';

const run = promisify(execFile);

export const MINGW_CC = 'x86_64-w64-mingw32-gcc';
const FLAGS = ['-O2', '-s', '-Wall'];

/**
 * The launcher .exe in `cacheDir`, built with mingw when missing or when its source changed.
 * Throws backend_unavailable naming the fix when mingw is not installed.
 */
export async function ensureLauncher(cacheDir: string, compiler = findOnPath([MINGW_CC])): Promise<string> {
  const hash = createHash('sha256').update(LAUNCHER_SOURCE).update(FLAGS.join(' ')).digest('hex').slice(0, 16);
  const exe = join(cacheDir, `dbgmcp-launch-${hash}.exe`);
  if (existsSync(exe)) return exe;
  if (compiler === undefined) {
    throw new DebuggerError(
      'backend_unavailable',
      `the Windows launcher that keeps a program's output on its terminal must be built once with mingw: apt-get install gcc-mingw-w64-x86-64-win32`,
    );
  }
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const source = join(cacheDir, `dbgmcp-launch-${hash}.c`);
  writeFileSync(source, LAUNCHER_SOURCE);
  const tmp = `${exe}.${process.pid}.tmp`;
  await run(compiler, [...FLAGS, '-o', tmp, source, '-lntdll'], { timeout: 120_000 });
  renameSync(tmp, exe);
  return exe;
}

export interface LaunchOptions {
  prefix: WinePrefix;
  launcher: string;
  program: string;
  args: readonly string[];
  /** The pty the program writes to (ProgramTerminal.path). */
  outputPath: string;
  sessionId: string;
  cwd?: string;
  /** Variables added to the program's environment (ours, which name the session, win). */
  env?: Readonly<Record<string, string>>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface HeldProgram {
  /** `wine dbgmcp-launch.exe`: lives as long as the program, exits with its exit code. */
  launcher: ChildProcess;
  /** The program's standard input. */
  stdin: Writable;
  windowsPid: number;
  /** Where the program spins, and the two bytes that belong there. */
  entry: bigint;
  originalBytes: string;
  /** From spawn to the report. */
  startMs: number;
}

const REPORT = /^pid=(\d+) entry=0x([0-9a-f]+) bytes=([0-9a-f]{4})\n$/;

/** Starts the program held at its entry point (see the top of this file). */
export async function launchHeld(options: LaunchOptions): Promise<HeldProgram> {
  const { prefix, sessionId } = options;
  // The seed's argv rules: an array (never a shell line), at most 64 entries of 4,096
  // characters, no NUL (the C runtime would cut the entry there).
  if (options.args.length > 64) throw new DebuggerError('invalid_argument', 'at most 64 program arguments');
  for (const a of [options.program, ...options.args]) {
    if (a.includes('\0')) throw new DebuggerError('invalid_argument', 'a program argument holds a NUL');
    if (a.length > 4096) {
      throw new DebuggerError('invalid_argument', 'a program argument is longer than 4096 characters');
    }
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || value.includes('\0')) {
      throw new DebuggerError('invalid_argument', `environment variable ${JSON.stringify(name)} is not valid`);
    }
    // WINEPREFIX, WINEDEBUG, WINEDLLOVERRIDES… configure Wine itself: the server sets them.
    if (/^WINE/.test(name) || name.startsWith('DBGMCP_')) {
      throw new DebuggerError('invalid_argument', `env.${name}: Wine's own settings are the server's to make`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-launch-'));
  const reportPath = join(dir, 'report');
  guardEnvironment(SESSION_VARIABLE, sessionId);
  const env = prefix.environment({
    ...options.env,
    [SESSION_VARIABLE]: sessionId,
    DBGMCP_LAUNCH_REPORT: reportPath,
    DBGMCP_LAUNCH_OUTPUT: options.outputPath,
  });
  const started = Date.now();
  const launcher = spawn(prefix.wineTools.wine, [options.launcher, options.program, ...options.args], {
    env,
    cwd: options.cwd,
    detached: true, // its own session: the program and what it starts stay in it
    stdio: sealedStdio(['pipe', 'ignore', 'pipe']),
  });
  const pgid = launcher.pid;
  if (pgid === undefined) throw new DebuggerError('backend_unavailable', 'wine did not start the launcher');
  guardSession(identify(pgid));
  let said = '';
  launcher.stderr?.setEncoding('utf8');
  launcher.stderr?.on('data', (c: string) => {
    said = (said + c).slice(-2048);
  });
  let exited: string | undefined;
  launcher.once('exit', (code, signal) => {
    exited = `the launcher exited (${signal ?? `code ${code}`})`;
  });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  try {
    for (;;) {
      const text = existsSync(reportPath) ? readFileSync(reportPath, 'utf8') : '';
      const m = REPORT.exec(text);
      if (m) {
        return {
          launcher,
          stdin: launcher.stdin as Writable,
          windowsPid: Number(m[1]),
          entry: BigInt(`0x${m[2]}`),
          originalBytes: m[3] as string,
          startMs: Date.now() - started,
        };
      }
      if (text.startsWith('error=')) {
        const code = Number(/^error=(\d+)/.exec(text)?.[1]);
        throw new DebuggerError(
          'invalid_argument',
          `Windows could not start ${options.program}: ${windowsError(code)}`,
        );
      }
      if (exited)
        throw new DebuggerError('debugger_error', `${exited} before starting ${options.program}: ${tail(said)}`);
      if (Date.now() > deadline)
        throw new DebuggerError('timeout', `the launcher did not start ${options.program} in time`);
      await sleep(10, options.signal);
    }
  } catch (e) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
    releaseSession(pgid);
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function tail(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() && !/wine32|multiarch|dpkg|apt-get/.test(l));
  return lines.slice(-3).join(' | ') || '(nothing on stderr)';
}

/** The Win32 errors CreateProcess gives for a program that cannot start. */
function windowsError(code: number): string {
  const known: Record<number, string> = {
    2: 'file not found (ERROR_FILE_NOT_FOUND)',
    3: 'path not found (ERROR_PATH_NOT_FOUND)',
    5: 'access denied (ERROR_ACCESS_DENIED)',
    193: 'not a valid Win32 application (ERROR_BAD_EXE_FORMAT)',
    216: 'built for another machine (ERROR_EXE_MACHINE_TYPE_MISMATCH)',
    160: 'no program named (ERROR_BAD_ARGUMENTS)',
  };
  return known[code] ?? `Win32 error ${code}`;
}

/** Ends the launcher's session (the program and what it started with it) and forgets its guard. */
export function stopLauncher(held: HeldProgram): void {
  const pgid = held.launcher.pid;
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone already
  }
  releaseSession(pgid);
}
