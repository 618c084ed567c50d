// Processes a target test starts on its own (a program to attach to, gdbserver, QEMU), killed
// after each test whatever happens, and what /proc says about them.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach } from 'vitest';
import { fixturesDir } from './paths.js';

const started: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The path of a tool the test cannot do without; a missing one fails the test with the fix. */
export function requireTool(name: string, apt: string): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is not installed: apt-get install ${apt} (.ci/run installs it)`);
}

/** A built fixture that needs a tool to build (the aarch64 ones), or an error naming the fix. */
export function requireBuilt(path: string, apt: string): string {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    throw new Error(`${path} was not built: apt-get install ${apt} (.ci/run installs it)`);
  }
}

/** Starts a process of its own (not a debugger's child), killed after the test. */
export function startProcess(file: string, args: string[] = [], cwd = fixturesDir): ChildProcess {
  const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.resume();
  child.stderr?.resume();
  started.push(child);
  return child;
}

/** Resolves with everything the process printed once it printed `text`. */
export function printed(child: ChildProcess, text: string, ms = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${JSON.stringify(text)}; got ${out}`)), ms);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      if (out.includes(text)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

/** A TCP port nothing listens on right now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix: string, parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, prefix));
  dirs.push(dir);
  return dir;
}

/** TracerPid and the one-letter state of a process, or undefined once it is gone. */
export function traceState(pid: number): { tracerPid: number; state: string } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const tracerPid = Number(/^TracerPid:\s*(\d+)/m.exec(status)?.[1] ?? -1);
    const state = /^State:\s*(\S)/m.exec(status)?.[1] ?? '?';
    return { tracerPid, state };
  } catch {
    return undefined;
  }
}

/** Polls `check` every 20 ms until it returns true; fails naming `what` at the deadline. */
export async function waitUntil(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** CPU ticks a process has used (utime + stime), to see it run. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The kernel's core_pattern: a plain file name lets a test make a real kernel dump. */
export function corePattern(): string {
  return readFileSync('/proc/sys/kernel/core_pattern', 'utf8').trim();
}

/** Runs `program args` with core dumps allowed in `cwd`; resolves when it has died. */
export function crashWithCore(program: string, args: string[], cwd: string): void {
  try {
    execFileSync('/bin/sh', ['-c', 'ulimit -c unlimited && exec "$0" "$@"', program, ...args], {
      cwd,
      stdio: 'ignore',
    });
  } catch {
    // it is meant to die
  }
}
