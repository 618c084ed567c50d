// What a debugged program leaves behind when it forks. GDB follows the parent and lets children
// go (detach-on-fork): they are no longer traced, so neither GDB's kill nor PTRACE_O_EXITKILL
// reaches them. GDB starts the program on its own terminal with setsid(), so the program's pid is
// also its session id and process group id, and every child inherits both unless it calls
// setpgid() or setsid() itself. Sweeping the program's session and group finds every descendant
// except one that started a session of its own: such a process has left on purpose.

import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessStat {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  /** The state letter: R, S, D, Z (zombie), T… */
  state: string;
  /** Clock ticks after boot when it started: with the pid, names one process for good. */
  startTime: string;
}

/** Fields of /proc/<pid>/stat, or undefined when the process is gone. */
export function readStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session …": comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    startTime: fields[19] ?? '',
  };
}

/** A program as first seen, so a later sweep can tell it from a process that reused its pid. */
export interface ProcessIdentity {
  pid: number;
  startTime: string | undefined;
}

export function identify(pid: number): ProcessIdentity {
  return { pid, startTime: readStat(pid)?.startTime };
}

/** Every live process (zombies excluded) whose session or process group is one of `ids`. */
export function membersOf(ids: ReadonlySet<number>): ProcessStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessStat[] = [];
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readStat(Number(name));
    if (!stat || stat.state === 'Z' || stat.pid === process.pid) continue;
    if (ids.has(stat.session) || ids.has(stat.pgrp)) found.push(stat);
  }
  return found;
}

/**
 * SIGKILLs every process in the sessions or process groups of `programs` (programs a debugger
 * ran), round after round, until none is left or `rounds` run out: a child may fork between a
 * scan and its kill. Returns the pids killed.
 *
 * While any member of session or group N lives, the kernel cannot hand out pid N again; once all
 * are gone it can, and a new, unrelated session N may appear. So a program whose pid now names a
 * process with another start time is skipped: that session is somebody else's.
 */
export function killSessions(programs: Iterable<ProcessIdentity>, rounds = 8): number[] {
  const wanted = new Set<number>();
  for (const { pid, startTime } of programs) {
    if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) continue;
    const now = readStat(pid);
    if (now && startTime !== undefined && now.startTime !== startTime) continue;
    wanted.add(pid);
  }
  if (wanted.size === 0) return [];
  const killed = new Set<number>();
  for (let round = 0; round < rounds; round++) {
    const members = membersOf(wanted);
    if (members.length === 0) break;
    for (const p of members) {
      try {
        process.kill(p.pid, 'SIGKILL');
        killed.add(p.pid);
      } catch {
        // gone already, or not ours to signal
      }
    }
  }
  return [...killed];
}

/**
 * killSessions, then waits (bounded) until every process it signalled has died: SIGKILL is
 * delivered asynchronously, and "closed" should mean gone, not dying.
 */
export async function killSessionsAndWait(programs: Iterable<ProcessIdentity>, withinMs = 1000): Promise<number[]> {
  const killed = killSessions(programs);
  const deadline = Date.now() + withinMs;
  while (
    killed.some((pid) => {
      const stat = readStat(pid);
      return stat !== undefined && stat.state !== 'Z';
    }) &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return killed;
}
