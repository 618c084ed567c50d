// Where shares are registered and how their files are trusted. A share hands a person's debugger
// to whoever reads its file, so only files this user owns and nobody else can write or read are
// believed: another user's file, a symlink, or a file or directory others may write is refused
// with the reason (and the command that fixes it), never silently used.

import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** This process's user id (Linux always has one). */
export function ownUid(): number {
  return process.getuid?.() ?? -1;
}

/**
 * Where `dbg-mcp share` registers GDB shares: $XDG_RUNTIME_DIR/dbg-mcp/shares (a tmpfs of the
 * user's, gone at logout, like the shares) or, without one, ~/.cache/dbg-mcp/shares.
 */
export function shareDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime?.startsWith('/')) return join(runtime, 'dbg-mcp', 'shares');
  return join(env['HOME'] || homedir(), '.cache', 'dbg-mcp', 'shares');
}

/** Where LLDB (≥ 21) registers its protocol servers: ~/.lldb/lldb-mcp-<pid>.json. */
export function lldbRegistryDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['HOME'] || homedir(), '.lldb');
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/**
 * Why a registry file may not be trusted, or undefined when it may: a regular file (not a
 * symlink) of this user that no one else can read or write. Others reading it would learn where
 * the person's debugger listens; others writing it could point the server anywhere.
 */
export function fileDistrust(path: string, uid = ownUid()): string | undefined {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch (e) {
    return `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (st.isSymbolicLink()) return 'is a symbolic link, which could point anywhere';
  if (!st.isFile()) return 'is not a regular file';
  if (st.uid !== uid)
    return `belongs to uid ${st.uid}, not to this user (uid ${uid}): another user's share is never joined`;
  if ((st.mode & 0o077) !== 0) {
    return `has mode ${octal(st.mode)}, which lets other users read or change it (chmod 600 ${path}, if it is yours)`;
  }
  return undefined;
}

/**
 * Why a registry directory may not be trusted, or undefined: this user's directory that no one
 * else can write (whoever can write it can replace a file in it). `ownerOnly` also refuses
 * others reading or listing it (dbg-mcp's own share directory is 0700).
 */
export function directoryDistrust(path: string, ownerOnly: boolean, uid = ownUid()): string | undefined {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch (e) {
    return `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (st.isSymbolicLink()) return 'is a symbolic link';
  if (!st.isDirectory()) return 'is not a directory';
  if (st.uid !== uid) return `belongs to uid ${st.uid}, not to this user (uid ${uid})`;
  const loose = ownerOnly ? st.mode & 0o077 : st.mode & 0o022;
  if (loose !== 0) {
    return `has mode ${octal(st.mode)}, which lets other users ${ownerOnly ? 'in' : 'change it'} (chmod ${ownerOnly ? 700 : 'go-w'} ${path})`;
  }
  return undefined;
}

/** Creates the share directory (0700, parents too) and checks it; throws with the reason otherwise. */
export function ensureShareDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const why = directoryDistrust(dir, true);
  if (why) throw new Error(`the share directory ${dir} ${why}`);
}

/** Reads a trusted JSON registry file; throws with the reason when it is not to be trusted. */
export function readTrustedJson(path: string): unknown {
  const why = fileDistrust(path);
  if (why) throw new Error(why);
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * Writes `data` as JSON to `path`, 0600, atomically: readers see the old file or the new one,
 * never half of one (a temporary file in the same directory, then rename).
 */
export function writeOwnerOnlyJson(path: string, data: unknown): void {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(data)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** Whether a process is alive (a zombie counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** A process's argv, or [] when it is gone or unreadable. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return [];
  }
}
