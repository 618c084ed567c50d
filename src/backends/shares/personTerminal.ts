// A line for the person, on the terminal of their own debugger: that an agent joined, that it
// left. Neither debugger offers a way to print on the person's console from the shared channel
// (measured: GDB's `echo` through the new MI channel, and Python's gdb.write even from
// gdb.post_event, print on that channel; LLDB's `script print` prints twice and runs Python in
// the person's session), so the line goes to the terminal the debugger writes to (its stdout),
// when that is a terminal of this user. The debugger itself is not touched.

import { closeSync, constants, openSync, readlinkSync, statSync, writeSync } from 'node:fs';
import { ownUid } from './shareFiles.js';

/** The terminal a process writes its output to, when it is a terminal of this user. */
export function terminalOf(pid: number): string | undefined {
  for (const fd of [1, 2, 0]) {
    let path: string;
    try {
      path = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (!/^\/dev\/(pts\/\d+|tty\w*)$/.test(path)) continue;
    try {
      const st = statSync(path);
      if (st.isCharacterDevice() && st.uid === ownUid()) return path;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/**
 * Writes one line to the person's terminal, starting on a fresh line (their prompt is not
 * redrawn: the line stands above whatever they type next). Never blocks, never throws: a full or
 * vanished terminal only loses the line.
 */
export function tellPerson(pid: number | undefined, text: string): boolean {
  if (pid === undefined) return false;
  const tty = terminalOf(pid);
  if (!tty) return false;
  let fd: number | undefined;
  try {
    fd = openSync(tty, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
    writeSync(fd, `\r\n[dbg-mcp] ${text.replace(/[\x00-\x1f\x7f]/g, ' ')}\r\n`);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
