// Where winedbg's gdb proxy listens, read from /proc instead of asked with a connect. The proxy
// accepts exactly one connection and then closes its listening socket (gdbproxy.c: accept, then
// closesocket): a probe connect would be that connection, and GDB's own would be refused.
//
// `--port 0` lets the kernel choose a free port at bind(), so no port is picked by us and raced
// for. winedbg prints the port it got ("target remote localhost:N") with the C runtime's stderr,
// which is block-buffered on a pipe (measured: nothing arrives until winedbg exits). And the
// socket is not winedbg's: Wine 8 keeps Windows sockets in the wineserver (measured: the LISTEN
// inode is among the wineserver's descriptors, never winedbg's). So the port is the LISTEN entry
// of /proc/net/tcp whose inode the prefix's wineserver holds and did not hold before winedbg was
// spawned; the prefix runs one proxy start at a time (WinePrefix.serially) so that entry is ours.
// winedbg binds INADDR_ANY: until GDB connects, anyone who can reach this host could take the
// one connection, which is why the wait is short and why proxyPeerIsOurs() checks who got it.

import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { sleep } from '../../util/deadline.js';
import { DebuggerError } from '../../util/errors.js';

/** TCP states as /proc/net/tcp writes them (include/net/tcp_states.h). */
const ESTABLISHED = '01';
const LISTEN = '0A';

export interface TcpEntry {
  localPort: number;
  remotePort: number;
  state: string;
  inode: number;
}

/** The IPv4 TCP sockets of this network namespace. */
export function tcpEntries(text = readFileSync('/proc/net/tcp', 'utf8')): TcpEntry[] {
  const entries: TcpEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    // "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …"
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const local = f[1]?.split(':')[1];
    const remote = f[2]?.split(':')[1];
    if (local === undefined || remote === undefined) continue;
    entries.push({
      localPort: Number.parseInt(local, 16),
      remotePort: Number.parseInt(remote, 16),
      state: f[3] ?? '',
      inode: Number(f[9]),
    });
  }
  return entries;
}

/** Inodes of the sockets a process has open (its fds that read "socket:[N]"). */
export function socketInodes(pid: number): Set<number> {
  const found = new Set<number>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return found;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) found.add(Number(m[1]));
    } catch {
      // closed while we looked
    }
  }
  return found;
}

/** The LISTEN sockets process `pid` holds: inode → port. */
export function listeningSockets(pid: number): Map<number, number> {
  const held = socketInodes(pid);
  const found = new Map<number, number>();
  if (held.size === 0) return found;
  for (const e of tcpEntries()) if (e.state === LISTEN && held.has(e.inode)) found.set(e.inode, e.localPort);
  return found;
}

export interface PortWaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Checked between polls: a reason to stop waiting (winedbg exited, with what it said). */
  failure?: () => string | undefined;
}

/**
 * Polls /proc every 10 ms until the process `holder()` names (the wineserver; it may start late)
 * holds a LISTEN socket that is not in `before`, and returns its port. Never connects.
 */
export async function waitForNewListeningPort(
  holder: () => number | undefined,
  before: ReadonlySet<number>,
  options: PortWaitOptions,
): Promise<number> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const pid = holder();
    if (pid !== undefined) {
      for (const [inode, port] of listeningSockets(pid)) if (!before.has(inode)) return port;
    }
    const failure = options.failure?.();
    if (failure !== undefined) throw new DebuggerError('debugger_error', failure);
    if (Date.now() > deadline) {
      throw new DebuggerError('timeout', `winedbg's gdb proxy was not listening after ${options.timeoutMs} ms`);
    }
    await sleep(10, options.signal);
  }
}

/**
 * Whether the one connection the proxy on `port` accepted is GDB's (process `gdbPid`): the
 * established socket from `port` to some port P, and the socket from P back to `port` being one
 * of GDB's descriptors.
 */
export function proxyPeerIsOurs(port: number, gdbPid: number, text?: string): boolean {
  const entries = tcpEntries(text);
  const theirs = entries.find((e) => e.state === ESTABLISHED && e.localPort === port);
  if (!theirs) return false;
  const ours = entries.find(
    (e) => e.state === ESTABLISHED && e.localPort === theirs.remotePort && e.remotePort === port,
  );
  return ours !== undefined && socketInodes(gdbPid).has(ours.inode);
}
