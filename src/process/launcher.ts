// Program arguments with no shell, whatever they hold.
//
// With `startup-with-shell off`, GDB 13 splits the argument string on white space and nothing else
// (nat/fork-inferior.c, breakup_args): an argument that is empty or holds white space cannot be
// passed. With it on, GDB runs `$SHELL -c "exec PROGRAM ARGS"` and does not quote `|` or a backtick
// in PROGRAM, so a program named `<root>/q|sh` runs a command. So for such arguments GDB's shell is
// our launcher (GDB is started with SHELL pointing at it): the arguments become hex tokens after a
// marker, the launcher decodes them and execs the program. GDB counts the launcher's exec as the
// shell's, as it was built to, and follows it into the program: same pid, breakpoints inserted only
// in the program.
//
// Measured with GDB 13.1 before settling on this (test/integration/gdb/launcher.test.ts keeps the
// proof of what works): the launcher as exec file with the program's symbols (`file PROGRAM`,
// `exec-file LAUNCHER`) inserts the program's breakpoints into the launcher's image (static launcher:
// "Cannot insert breakpoint 1. Cannot access memory at address 0x1148", the run aborted; PIE
// launcher: a false stop "main (argc=0, argv=0x0)" inside the launcher); `set exec-wrapper` is
// ignored with startup-with-shell off (the program ran with the raw tokens, "During startup program
// exited normally").
//
// The launcher is compiled once per machine from launcherSource.ts with the C compiler found on
// PATH, into a cache directory named by the hash of its source and flags. Without a compiler, only
// the arguments that need it are refused, and the reason says so.

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, rename, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { findOnPath } from '../util/which.js';
import { LAUNCH_MARKER, LAUNCHER_SOURCE } from './launcher/launcherSource.js';

export type LauncherStatus = { available: true; path: string } | { available: false; reason: string };

export interface LaunchPlan {
  /** `gdb-set startup-with-shell on|off` for this run. */
  startupWithShell: boolean;
  /** The text for `-exec-arguments` (sent raw: GDB does not unquote it). */
  argsText: string;
  /** Whether the launcher carries the arguments (GDB's SHELL must then be the launcher). */
  viaLauncher: boolean;
}

/** Whether GDB's own splitting (white space only, with no shell) would change these arguments. */
export function needsLauncher(args: readonly string[]): boolean {
  return args.some((a) => a === '' || /\s/.test(a));
}

/** One argv entry as a launcher token: 'x' and its UTF-8 bytes in lower-case hex. */
export function launchToken(arg: string): string {
  return `x${Buffer.from(arg, 'utf8').toString('hex')}`;
}

/**
 * How GDB is to run `program` with `args`. Plain arguments go as they are, with no shell; others
 * through the launcher, or are refused (invalid_argument, with the reason) when it is unavailable.
 */
export function launchPlan(
  program: string,
  args: readonly string[],
  launcher: LauncherStatus,
  stdinFile?: string,
): LaunchPlan {
  if (!needsLauncher(args) && stdinFile === undefined) {
    return { startupWithShell: false, argsText: args.join(' '), viaLauncher: false };
  }
  if (!launcher.available) {
    throw new DebuggerError(
      'invalid_argument',
      stdinFile !== undefined
        ? `stdin_file: a file as stdin needs the launcher that replaces GDB's shell, and it is unavailable: ${launcher.reason}`
        : `an argument is empty or holds white space, which GDB can only pass through a shell, and the launcher that replaces the shell is unavailable: ${launcher.reason}`,
      { fields: [stdinFile !== undefined ? 'stdin_file' : 'args'] },
    );
  }
  const tokens = [program, ...args].map(launchToken);
  // The stdin file goes first, as 'i' and its bytes in hex: the launcher opens it as fd 0.
  const input = stdinFile !== undefined ? [`i${Buffer.from(stdinFile, 'utf8').toString('hex')}`] : [];
  return { startupWithShell: true, argsText: `${LAUNCH_MARKER} ${[...input, ...tokens].join(' ')}`, viaLauncher: true };
}

/** Compiler flags: static first, so an LD_PRELOAD of the program's env is not loaded into the launcher too. */
const FLAG_SETS: readonly (readonly string[])[] = [
  ['-O2', '-static', '-w'],
  ['-O2', '-w'],
];

export interface LauncherOptions {
  /** Where builds are kept (default: $XDG_CACHE_HOME/dbg-mcp, ~/.cache/dbg-mcp, or the temp dir). */
  cacheDir?: string;
  /** C compilers tried in order, by name on PATH or by path. */
  compilers?: readonly string[];
}

const builds = new Map<string, Promise<LauncherStatus>>();

/** The launcher's path, built on first use per machine (and per process, remembered). */
export function ensureLauncher(options: LauncherOptions = {}): Promise<LauncherStatus> {
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const key = `${cacheDir}\0${(options.compilers ?? []).join('\0')}`;
  let build = builds.get(key);
  if (build === undefined) {
    build = buildLauncher(cacheDir, options.compilers ?? ['cc', 'gcc', 'clang']);
    builds.set(key, build);
  }
  return build;
}

function defaultCacheDir(): string {
  const xdg = process.env['XDG_CACHE_HOME'];
  if (xdg?.startsWith('/')) return join(xdg, 'dbg-mcp');
  const home = process.env['HOME'] ?? homedir();
  if (home.startsWith('/')) return join(home, '.cache', 'dbg-mcp');
  return join(tmpdir(), `dbg-mcp-${process.getuid?.() ?? 'user'}`);
}

async function buildLauncher(cacheDir: string, compilers: readonly string[]): Promise<LauncherStatus> {
  const hash = createHash('sha256').update(LAUNCHER_SOURCE).update(JSON.stringify(FLAG_SETS)).digest('hex');
  const dir = join(cacheDir, `launcher-${hash.slice(0, 16)}`);
  const path = join(dir, 'dbg-mcp-launcher');
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await mustBeOwnedAndPrivate(dir, 'directory');
    if (await exists(path)) {
      await mustBeOwnedAndPrivate(path, 'file');
      return { available: true, path };
    }
  } catch (e) {
    return { available: false, reason: `the launcher cache ${dir} is unusable: ${(e as Error).message}` };
  }
  const compiler = compilers.map((c) => (c.includes('/') ? c : findOnPath([c]))).find((c) => c !== undefined);
  if (compiler === undefined) {
    return {
      available: false,
      reason: `no C compiler to build it (looked for ${compilers.join(', ')} on PATH): install gcc once, and restart the server`,
    };
  }
  // Built under a temporary name and renamed: two servers building at once both end up with a whole file.
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  let lastError = '';
  for (const flags of FLAG_SETS) {
    try {
      await compile(compiler, [...flags, '-x', 'c', '-o', temporary, '-']);
      await chmod(temporary, 0o700);
      await rename(temporary, path);
      log('info', 'built the program launcher', { path, compiler, flags });
      return { available: true, path };
    } catch (e) {
      lastError = (e as Error).message;
      await rm(temporary, { force: true });
    }
  }
  return { available: false, reason: `${compiler} could not build it: ${lastError.slice(0, 300)}` };
}

function compile(compiler: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(compiler, args, { timeout: 60_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${error.message}${stderr ? `: ${stderr.trim()}` : ''}`));
      else resolve();
    });
    child.stdin?.end(LAUNCHER_SOURCE);
  });
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/** GDB runs this file for every such program: nobody else may have placed or changed it. */
async function mustBeOwnedAndPrivate(path: string, kind: 'file' | 'directory'): Promise<void> {
  const info = await lstat(path);
  const uid = process.getuid?.();
  if (kind === 'file' ? !info.isFile() : !info.isDirectory()) throw new Error(`${path} is not a ${kind}`);
  if (uid !== undefined && info.uid !== uid) throw new Error(`${path} belongs to uid ${info.uid}, not to ${uid}`);
  if ((info.mode & 0o022) !== 0)
    throw new Error(`${path} is writable by others (mode ${(info.mode & 0o777).toString(8)})`);
}
