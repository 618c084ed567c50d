// Which Unix processes are Wine's, and whose. Measured here (Wine 8.0): every Windows process is
// one Unix process, and Wine detaches them all: CreateProcess double-forks (the child's parent
// is init), and wineserver, services.exe, winedevice.exe, plugplay.exe, svchost.exe, rpcss.exe and
// explorer.exe each call setsid(), as does a program winedbg starts (CREATE_NEW_CONSOLE). So
// neither the parent chain nor the session/group sweep of processTree.ts finds them.
//
// What does find them is the environment the process was started with (/proc/PID/environ): every
// Wine process inherits the Unix environment of whoever started it, wineserver included. So
// `WINEPREFIX=<dir>` names every process of a prefix, and a variable we set on one session's
// launcher and winedbg names what that session started — except the prefix's shared processes
// when the session happened to start them (a cold wineserver, a transient explorer.exe /desktop),
// which is why those are told apart by their command line and left to the prefix's own end.

import { readdirSync, readFileSync } from 'node:fs';
import { readStat } from '../../process/processTree.js';
import { sleep } from '../../util/deadline.js';

/** The variable whose value names one session's Windows processes. */
export const SESSION_VARIABLE = 'DBGMCP_WINE_SESSION';

/** Processes a prefix shares between sessions, started on demand by whichever Wine process came first. */
const SHARED_IMAGES = new Set([
  'services.exe',
  'winedevice.exe',
  'plugplay.exe',
  'svchost.exe',
  'rpcss.exe',
  'explorer.exe',
  'wineboot.exe',
  'winemenubuilder.exe',
]);

export interface WineProcess {
  pid: number;
  startTime: string;
  /** argv[0] as Wine rewrites it (C:\windows\system32\services.exe) or the Unix one (wineserver64). */
  command: string;
}

function environHas(pid: number, entry: Buffer): boolean {
  let env: Buffer;
  try {
    env = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false; // gone, or not ours to read
  }
  // Entries are NUL-terminated: match a whole entry, not a prefix of a longer value.
  let at = env.indexOf(entry);
  while (at >= 0) {
    const end = at + entry.length;
    if ((at === 0 || env[at - 1] === 0) && (end === env.length || env[end] === 0)) return true;
    at = env.indexOf(entry, at + 1);
  }
  return false;
}

function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    const nul = argv.indexOf('\0');
    return nul < 0 ? argv : argv.slice(0, nul);
  } catch {
    return '';
  }
}

/** Every live process (zombies excluded) started with `name=value` in its environment. */
export function processesWithEnvironment(name: string, value: string): WineProcess[] {
  const entry = Buffer.from(`${name}=${value}`);
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: WineProcess[] = [];
  for (const n of names) {
    const c = n.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(n);
    if (pid === process.pid || !environHas(pid, entry)) continue;
    const stat = readStat(pid);
    if (!stat || stat.state === 'Z') continue;
    found.push({ pid, startTime: stat.startTime, command: commandOf(pid) });
  }
  return found;
}

/** Every process of the Wine prefix at `dir`: its wineserver, services and every program in it. */
export function prefixProcesses(dir: string): WineProcess[] {
  return processesWithEnvironment('WINEPREFIX', dir);
}

/** wineserver, or a system process the prefix shares (by its C:\windows\system32 image). */
export function isSharedWineProcess(command: string): boolean {
  if (/(^|\/)wineserver(64)?$/.test(command)) return true;
  // Wine writes the Windows command line over argv: "C:\windows\system32\svchost.exe -k …".
  const m = /^[A-Za-z]:\\windows\\system32\\([^\\ ]+)/i.exec(command);
  return m !== null && SHARED_IMAGES.has((m[1] as string).toLowerCase());
}

/** The Windows processes one session started (its launcher, winedbg, the program and its children). */
export function sessionProcesses(sessionId: string): WineProcess[] {
  return processesWithEnvironment(SESSION_VARIABLE, sessionId).filter((p) => !isSharedWineProcess(p.command));
}

/**
 * SIGKILLs `find()`'s processes round after round (a program may start another between a scan
 * and its kill) until none is left or `rounds` run out, then waits up to `withinMs` for them to be
 * gone. A process whose pid now has another start time is not signalled. Returns the pids killed.
 *
 * SIGKILL is what `wineserver -k` itself sends to its clients; the wineserver notices the closed
 * socket and frees the Windows process, so killing one session's processes leaves the server and
 * every other session's programs running.
 */
export async function killWineProcesses(find: () => WineProcess[], rounds = 8, withinMs = 2000): Promise<number[]> {
  const killed = new Map<number, string>();
  for (let round = 0; round < rounds; round++) {
    const found = find();
    if (found.length === 0) break;
    for (const p of found) {
      if (readStat(p.pid)?.startTime !== p.startTime) continue;
      try {
        process.kill(p.pid, 'SIGKILL');
        killed.set(p.pid, p.startTime);
      } catch {
        // gone already
      }
    }
  }
  const deadline = Date.now() + withinMs;
  const living = (): boolean =>
    [...killed].some(([pid, start]) => {
      const s = readStat(pid);
      return s !== undefined && s.state !== 'Z' && s.startTime === start;
    });
  while (living() && Date.now() < deadline) await sleep(5);
  return [...killed.keys()];
}

/** The synchronous sweep for a process 'exit' handler, where nothing can be awaited. */
export function killWineProcessesSync(find: () => WineProcess[], rounds = 8): number[] {
  const killed: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const found = find();
    if (found.length === 0) break;
    for (const p of found) {
      try {
        process.kill(p.pid, 'SIGKILL');
        killed.push(p.pid);
      } catch {
        // gone already
      }
    }
  }
  return killed;
}
