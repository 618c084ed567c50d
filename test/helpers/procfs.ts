// What the kernel says about processes and file descriptors, for tests that check nothing is left
// behind. Everything here reads /proc; nothing asks the code under test.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  state: string;
  comm: string;
}

export function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session …"; comm may itself hold spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const [state = '?', ppid = '0', pgrp = '0', session = '0'] = stat.slice(close + 2).split(' ');
    return {
      pid,
      ppid: Number(ppid),
      pgrp: Number(pgrp),
      session: Number(session),
      state,
      comm: stat.slice(stat.indexOf('(') + 1, close),
    };
  } catch {
    return undefined; // exited while we looked
  }
}

export function allProcs(): Proc[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => readProc(Number(n)))
    .filter((p): p is Proc => p !== undefined);
}

/**
 * True while `pid` runs (a zombie is dead, only not yet reaped; no pid is no process). The one
 * `alive` of the tests: kill(pid, 0) would call a zombie alive.
 */
export function alive(pid: number | undefined): boolean {
  const p = pid === undefined ? undefined : readProc(pid);
  return p !== undefined && p.state !== 'Z';
}

/** Every live process (and with `zombies`, every unreaped one too) whose parent chain reaches `root`. */
export function descendants(root = process.pid, { zombies = false } = {}): Proc[] {
  const byParent = new Map<number, Proc[]>();
  for (const p of allProcs()) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const found: Proc[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of byParent.get(queue.shift() ?? 0) ?? []) {
      if (zombies || child.state !== 'Z') found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** One line per process, for failure messages. */
export function describeProcs(list: readonly Proc[]): string[] {
  return list.map((p) => `${p.pid} ${p.comm} (${p.state}, pgrp ${p.pgrp}, session ${p.session})`);
}

/** This process's open file descriptors: fd → what it points at. */
export function openFds(pid: number | 'self' = 'self'): Map<string, string> {
  const fds = new Map<string, string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      fds.set(fd, readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // the fd readdir itself used, closed by now
    }
  }
  return fds;
}

/** Resident memory of a process in KiB (VmRSS). */
export function rssKiB(pid: number | 'self' = 'self'): number {
  const m = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? Number.NaN);
}

/** The environment a process started with, as a map (needs the same user). */
export function environOf(pid: number): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/**
 * Resolves once `check` holds. A process killed from outside is reaped on the kernel's schedule,
 * with no event to wait for, so this polls every 10 ms; the deadline names what it waited for.
 */
export async function until(check: () => boolean, what: string, ms: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - started;
}

/** SIGKILL, ignoring a process that is already gone: test clean-up. */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}
