// What a test run or a bench run leaves running (issue 30). Read from /proc, never asked of the
// code under test. Used by test/helpers/globalSetup.ts and leakSetup.ts, and by bench/run.mjs.
//
// A process is this run's when it is in the run's process tree (a descendant of the vitest main
// process or of the bench, or of one worker for a test file's own check), or when it fell out of
// the tree (its parent died and it was re-parented: to pid 1 or to a subreaper above the run) and
// belongs to this checkout: its executable or one of its arguments lies under the checkout, and
// it started after the run did. Other checkouts on the same machine (/work/wt/*, each with its
// own run) are other runs' business: their paths are not under this one.
//
// A process that is exiting (a zombie, or SIGKILLed and not yet reaped) is not a leak: the check
// polls until the candidates are gone, up to a bound, and only then names what is left.
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
/**
 * How long a process may take to finish exiting before it counts as left behind. The check's own
 * test shortens it (DBG_MCP_LEAK_GRACE_MS) for a run whose leak is certain, not exiting.
 */
export const EXIT_GRACE_MS = Number(process.env['DBG_MCP_LEAK_GRACE_MS']) || 10_000;
function stat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  const f = text.slice(close + 2).split(' ');
  return {
    pid,
    state: f[0] ?? '?',
    ppid: Number(f[1]),
    start: Number(f[19]),
    comm: text.slice(text.indexOf('(') + 1, close),
  };
}
function all() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const p = stat(Number(name));
    if (p && p.state !== 'Z' && p.state !== 'X') out.push(p);
  }
  return out;
}
function link(pid, what) {
  try {
    return readlinkSync(`/proc/${pid}/${what}`);
  } catch {
    return '';
  }
}
export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}
/** Start time of `pid` in clock ticks after boot (0 when it is gone). */
export function startTicks(pid = process.pid) {
  return stat(pid)?.start ?? 0;
}
let tickRate;
/** Clock ticks per second (getconf CLK_TCK; 100 on every Linux this runs on). */
function ticksPerSecond() {
  if (tickRate === undefined) {
    try {
      tickRate = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      tickRate = 100;
    }
  }
  return tickRate;
}
/** Clock ticks after boot, now. */
export function nowTicks() {
  const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return Math.floor(uptime * ticksPerSecond());
}
/** A start time in ticks as a wall-clock ISO time. */
export function wallTime(ticks) {
  const btime = Number(/^btime (\d+)/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? 0);
  return new Date((btime + ticks / ticksPerSecond()) * 1000).toISOString();
}
/** `pid` and its ancestors, nearest first (stops at pid 1 or a process that is gone). */
function ancestry(pid, byPid) {
  const chain = [];
  for (let p = byPid.get(pid); p && p.ppid > 0 && chain.length < 4096; p = byPid.get(p.ppid)) chain.push(p.ppid);
  return chain;
}
/** What in `scope` is alive now. */
export function leaksNow(scope) {
  const procs = all();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const rootAncestors = new Set(ancestry(scope.root, byPid));
  const under = (path) => path.startsWith(`${scope.checkout}/`);
  const found = [];
  for (const p of procs) {
    if (p.pid === scope.root || p.pid === process.pid || p.start < scope.since) continue;
    // vitest's own processes (its workers, started for the next file while this one ends) are the
    // run's machinery, not leaks.
    if (commandLine(p.pid).includes(scope.machinery)) continue;
    const chain = ancestry(p.pid, byPid);
    if (chain.includes(scope.root)) {
      found.push({ pid: p.pid, command: commandLine(p.pid), start: p.start, how: 'descendant' });
      continue;
    }
    // Out of the tree: re-parented to pid 1 or to a subreaper above the run. Its working directory
    // says nothing (the server's orphan guard, a /bin/sh living as long as its server, runs in the
    // checkout); its executable or an argument under the checkout does.
    if (scope.orphans === false) continue;
    const orphan = p.ppid === 1 || rootAncestors.has(p.ppid);
    if (!orphan) continue;
    const command = commandLine(p.pid);
    const mine = under(link(p.pid, 'exe')) || command.split(' ').some((a) => under(a));
    if (mine) found.push({ pid: p.pid, command, start: p.start, how: 'orphan' });
  }
  return found;
}
/**
 * The scope of this checkout's run. DBG_MCP_LEAK_CHECKOUT names another directory whose programs
 * count as the run's: the check's own test leaks a program from a directory of its own, so that
 * what the enclosing run has out of the tree at that moment is not seen as the inner run's.
 */
export function runScope(repoRoot, root, since) {
  return {
    root,
    since,
    checkout: process.env['DBG_MCP_LEAK_CHECKOUT'] || repoRoot,
    machinery: `${repoRoot}/node_modules/`,
  };
}
/** Polls until nothing in `scope` is alive, or `graceMs` passed; answers what is still alive. */
export async function leaksAfterGrace(scope, graceMs = EXIT_GRACE_MS) {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = leaksNow(scope);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}
export function killAll(leaks) {
  for (const l of leaks) {
    try {
      process.kill(l.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
export function logFileEvent(log, event, file) {
  appendFileSync(log, `${nowTicks()} ${event} ${file}\n`);
}
export function readSpans(log) {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  const open = new Map();
  const spans = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+) (start|end) (.+)$/.exec(line);
    if (!m) continue;
    const [, ticks, event, file] = m;
    if (event === 'start') open.set(file, Number(ticks));
    else {
      spans.push({ file, from: open.get(file) ?? 0, to: Number(ticks) });
      open.delete(file);
    }
  }
  for (const [file, from] of open) spans.push({ file, from, to: Number.POSITIVE_INFINITY });
  return spans;
}
/** Whether a file other than `file` ran at some time from `since` until now. */
export function othersRan(spans, file, since) {
  return spans.some((s) => s.file !== file && s.to >= since);
}
/** The test files that were running when a process started at `ticks` (a tick either side). */
export function filesRunningAt(spans, ticks) {
  return spans.filter((s) => s.from - 1 <= ticks && ticks <= s.to + 1).map((s) => s.file);
}
/** One line per leak: pid, command line, start time and what was running when it started. */
export function describeLeaks(leaks, spans = []) {
  return leaks.map((l) => {
    const files = filesRunningAt(spans, l.start);
    const during = files.length > 0 ? `, started during ${files.join(', ')}` : '';
    const how = l.how === 'orphan' ? ' (re-parented: its parent is gone)' : '';
    return `pid ${l.pid} \`${l.command}\` started ${wallTime(l.start)}${during}${how}`;
  });
}
