// The Wine half of the orphan guard (process/orphanGuard.ts), for the one case where the server
// cannot clean up after itself: it was SIGKILLed. orphanGuard kills what stays in the sessions and
// process groups we started; Wine's processes leave those (wineProcesses.ts: every Windows
// process and wineserver call setsid() or are double-forked), so this watcher kills by the
// environment instead: at the end of its pipe, every process started with one of the watched
// entries (WINEPREFIX=<our prefix>, DBGMCP_WINE_SESSION=<id>) is SIGKILLed, round after round.
//
// Same shape as orphanGuard: a /bin/sh grandchild in a session of its own, reading "+ ENTRY" and
// "- ENTRY" lines from a pipe that ends when this process ends, whatever way it went. GNU grep's
// -z reads /proc/PID/environ's NUL-separated entries, -x matches a whole entry, -l lists the
// files: one exec finds every process. The watcher's own environment holds PATH only, so it and
// its grep never match.

import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { sealedStdio } from '../../process/sealedStdio.js';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';

const SCRIPT = `
set -f
nl='
'
entries=""
while IFS= read -r line; do
  case "$line" in
    "+ "*) entries="$entries$nl\${line#+ }" ;;
    "- "*) kept=""; IFS="$nl"; for e in $entries; do [ "$e" = "\${line#- }" ] || kept="$kept$nl$e"; done; unset IFS; entries="$kept" ;;
  esac
done
[ -n "$entries" ] || exit 0
round=0
while [ $round -lt 8 ]; do
  round=$((round + 1)); found=0
  IFS="$nl"
  for e in $entries; do
    [ -n "$e" ] || continue
    set +f
    files=$(grep -lzxF -e "$e" /proc/[0-9]*/environ 2>/dev/null)
    set -f
    for f in $files; do
      pid=\${f#/proc/}; pid=\${pid%/environ}
      kill -9 "$pid" 2>/dev/null && found=1
    done
  done
  unset IFS
  [ $found = 1 ] || break
done
`;

/** A grandchild of a shell that exits at once: the watcher is in nobody's process tree. */
const LAUNCH = '/bin/sh -c "$0" <&3 3<&- >/dev/null 2>&1 & exit 0';

class WineGuard {
  private pipe: Writable | undefined;
  private failed = false;

  private ensure(): Writable | undefined {
    if (this.pipe || this.failed) return this.pipe;
    try {
      const child = spawn('/bin/sh', ['-c', LAUNCH, SCRIPT], {
        detached: true,
        stdio: sealedStdio(['ignore', 'ignore', 'ignore', 'pipe']),
        env: { PATH: '/usr/bin:/bin' },
      });
      const pipe = child.stdio[3] as Writable | null;
      if (!pipe) throw new Error('no pipe to the Wine guard');
      child.on('error', (e) => {
        this.failed = true;
        this.pipe = undefined;
        log('warn', 'the Wine guard did not start; a killed server may leave Wine processes', { error: e.message });
      });
      pipe.on('error', () => {
        if (this.pipe === pipe) this.pipe = undefined;
      });
      child.unref();
      (pipe as unknown as { unref?: () => void }).unref?.();
      this.pipe = pipe;
    } catch (e) {
      this.failed = true;
      log('warn', 'the Wine guard did not start', { error: (e as Error).message });
    }
    return this.pipe;
  }

  write(op: '+' | '-', entry: string): void {
    this.ensure()?.write(`${op} ${entry}\n`);
  }
}

const guard = new WineGuard();

function entryOf(name: string, value: string): string {
  const entry = `${name}=${value}`;
  // One line per entry on the pipe, and grep -F takes a newline as two patterns.
  if (/[\n\r\0]/.test(entry)) throw new DebuggerError('invalid_argument', `${name} holds a line break or NUL`);
  return entry;
}

/** Until released or until this process ends: every process started with `name=value` is killed when it ends. */
export function guardEnvironment(name: string, value: string): void {
  guard.write('+', entryOf(name, value));
}

export function releaseEnvironment(name: string, value: string): void {
  guard.write('-', entryOf(name, value));
}
