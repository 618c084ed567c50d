// A watcher that outlives the server by a moment, for the one case where the server cannot
// clean up after itself: it was SIGKILLed. GDB notices (end of input) and exits, and the kernel
// kills what it traced (PTRACE_O_EXITKILL); but children the program forked are not traced, and
// one that ignores SIGHUP survives its terminal. So a small /bin/sh process, in a session of its
// own, reads the sessions to watch from a pipe; when the pipe ends (the server is gone, whatever
// way it went) it kills every process still in those sessions or process groups, as the sweep at
// close does (processTree.ts), and exits. Orderly closes tell it to forget their sessions first.

import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { log } from '../util/log.js';
import type { ProcessIdentity } from './processTree.js';
import { sealedStdio } from './sealedStdio.js';

// Lines on stdin: "+ ID START" watches session/group ID (START: the start time of process ID,
// or "-"), "- ID" forgets it. At end of input: a process ID whose start time is not START is
// another process that reused the pid, and its session is left alone. /proc/N/stat is
// "pid (comm) state ppid pgrp session … starttime(22)"; after the last ")" state is $1, pgrp $3,
// session $4 and starttime $20.
const SCRIPT = `
set -f
ids=""
while read -r op id start; do
  case "$op" in
    +) ids="$ids $id:$start" ;;
    -) kept=""; for e in $ids; do [ "\${e%%:*}" = "$id" ] || kept="$kept $e"; done; ids="$kept" ;;
  esac
done
targets=""
for e in $ids; do
  id=\${e%%:*}; start=\${e#*:}
  if { read -r line < /proc/$id/stat; } 2>/dev/null; then
    set -- \${line##*)}
    [ "$start" = "-" ] || [ "\${20}" = "$start" ] || continue
  fi
  targets="$targets $id"
done
[ -n "$targets" ] || exit 0
round=0
while [ $round -lt 8 ]; do
  round=$((round + 1)); found=0
  set +f
  for f in /proc/[0-9]*/stat; do
    { read -r line < "$f"; } 2>/dev/null || continue
    set -f
    pid=\${line%% *}
    set -- \${line##*)}
    for t in $targets; do
      if [ "$3" = "$t" ] || [ "$4" = "$t" ]; then
        if [ "$1" != Z ]; then kill -9 "$pid" 2>/dev/null; found=1; fi
      fi
    done
  done
  set -f
  [ $found = 1 ] || break
done
`;

/**
 * Starts the watcher as a grandchild: the shell that spawn() starts hands the pipe (its fd 3) to
 * a background shell as stdin and exits, so the watcher is in no one's process tree (a check
 * that the server's descendants are gone stays true) and lives exactly as long as the pipe. Not
 * the launcher's stdin: Node destroys a child's stdin stream when the child exits.
 */
const LAUNCH = '/bin/sh -c "$0" <&3 3<&- >/dev/null 2>&1 & exit 0';

class OrphanGuard {
  private pipe: Writable | undefined;
  private failed = false;

  private ensure(): Writable | undefined {
    if (this.pipe || this.failed) return this.pipe;
    try {
      const child = spawn('/bin/sh', ['-c', LAUNCH, SCRIPT], {
        detached: true, // its own session: a ^C or hangup aimed at the server's group misses it
        stdio: sealedStdio(['ignore', 'ignore', 'ignore', 'pipe']),
        env: { PATH: '/usr/bin:/bin' },
      });
      const pipe = child.stdio[3] as Writable | null;
      if (!pipe) throw new Error('no pipe to the orphan guard');
      child.on('error', (e) => {
        this.failed = true;
        this.pipe = undefined;
        log('warn', 'the orphan guard did not start; a killed server may leave forked children', {
          error: e.message,
        });
      });
      // The watcher gone (killed by someone): start another at the next watch.
      pipe.on('error', () => {
        if (this.pipe === pipe) this.pipe = undefined;
      });
      // Neither the launcher nor the pipe keeps the server alive; the pipe ends when the server does.
      child.unref();
      (pipe as unknown as { unref?: () => void }).unref?.();
      this.pipe = pipe;
    } catch (e) {
      this.failed = true;
      log('warn', 'the orphan guard did not start', { error: (e as Error).message });
    }
    return this.pipe;
  }

  watch(who: ProcessIdentity): void {
    if (!Number.isSafeInteger(who.pid) || who.pid <= 1) return;
    this.ensure()?.write(`+ ${who.pid} ${who.startTime || '-'}\n`);
  }

  forget(pid: number): void {
    this.pipe?.write(`- ${pid}\n`);
  }
}

const guard = new OrphanGuard();

/** The processes guarded now (debuggers of sessions and of the pool, probes), by pid. */
const guarded = new Set<number>();

/** What the server watches now: attaching to one of these, or to what they run, is refused. */
export function guardedPids(): ReadonlySet<number> {
  return guarded;
}

/** Watches the session and process group of `who` until forgotten or until this process ends. */
export function guardSession(who: ProcessIdentity): void {
  guarded.add(who.pid);
  guard.watch(who);
}

export function releaseSession(pid: number): void {
  guarded.delete(pid);
  guard.forget(pid);
}
