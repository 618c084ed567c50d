// File descriptors a child must not inherit. Node opens its own with O_CLOEXEC, but the pty
// addon does not (node-pty's open() returns plain fds), and the server may have been started
// with fds of its client left open. Whatever is open without O_CLOEXEC when gdb is spawned passes
// to gdb and, through it, to every program it runs: measured, a second session's program held
// the first session's pty master and slave, so it could read that program's output and type into
// its stdin. libuv cannot close an fd in the child, but it dup2()s whatever the stdio array maps
// onto each index: mapping those indices to /dev/null replaces them before exec.

import { openSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC as /proc/self/fdinfo shows it (octal flags), the same on every Linux architecture. */
const O_CLOEXEC = 0o2000000;

let devNull: number | undefined;

/** Fds of this process, 3 and up, that a child would inherit (no O_CLOEXEC). */
export function inheritableFds(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3 || fd === devNull) continue;
    try {
      const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // closed since the listing (the fd readdir itself used, for one)
    }
  }
  return found.sort((a, b) => a - b);
}

type Stdio = 'pipe' | 'ignore' | 'inherit' | number;

/**
 * `base` (the child's fds 0, 1, 2…) extended so every inheritable fd of this process is replaced
 * by /dev/null in the child. Pass the result as spawn()'s `stdio`.
 */
export function sealedStdio(base: readonly Stdio[]): Stdio[] {
  const leaks = inheritableFds().filter((fd) => fd >= base.length);
  if (leaks.length === 0) return [...base];
  devNull ??= openSync('/dev/null', 'r+');
  const stdio: Stdio[] = [...base];
  const last = leaks[leaks.length - 1] as number;
  for (let fd = base.length; fd <= last; fd++) stdio.push('ignore');
  for (const fd of leaks) stdio[fd] = devNull;
  return stdio;
}
