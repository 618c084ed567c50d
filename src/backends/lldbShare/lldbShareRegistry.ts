// LLDB's own registry of protocol servers. Measured with LLDB 22.1.8: `protocol-server start MCP
// listen://localhost:0` writes ~/.lldb/lldb-mcp-<lldb pid>.json (0600, in a 0750 directory) holding
// only {"connection_uri":"connection://[127.0.0.1]:PORT"}, and removes it at `protocol-server
// stop MCP` and when LLDB exits normally; a killed LLDB leaves it behind (stale).
//
// The listener is plain TCP with no authentication, so the file alone is not proof of whose it is:
// the port must be listened on by a socket of this user that the named LLDB process holds
// (/proc/net/tcp and /proc/<pid>/fd), or the share is refused.

import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, join } from 'node:path';
import type { ShareListing } from '../debuggerBackend.js';
import { commandLine, directoryDistrust, ownUid, processAlive, readTrustedJson } from '../shares/shareFiles.js';

export interface LldbListener {
  host: string;
  port: number;
}

/** "connection://[127.0.0.1]:43177" → 127.0.0.1:43177; only loopback addresses are accepted. */
export function parseConnectionUri(uri: string): LldbListener | string {
  const m = /^connection:\/\/(?:\[([^\]]+)\]|([^:/]+)):(\d{1,5})\/?$/.exec(uri);
  if (!m) return `has a connection_uri dbg-mcp does not know (${JSON.stringify(uri.slice(0, 80))})`;
  const host = (m[1] ?? m[2] ?? '').toLowerCase();
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return 'names no valid port';
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (!loopback) return `listens on ${host}, not on this machine's loopback: refused`;
  return { host: host === 'localhost' ? '127.0.0.1' : host, port };
}

/** Whether `pid` runs LLDB (its executable is lldb, lldb-22, …): a reused pid would not. */
export function isLldbProcess(pid: number): boolean {
  let exe = '';
  try {
    exe = basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    exe = basename(commandLine(pid)[0] ?? '');
  }
  return /^lldb(-\d+)?$/.test(exe);
}

interface TcpListen {
  port: number;
  uid: number;
  inode: string;
}

/** Listening TCP sockets of this machine (/proc/net/tcp and tcp6: state 0A is LISTEN). */
function listeningSockets(): TcpListen[] {
  const out: TcpListen[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;
      const port = Number.parseInt(f[1]?.split(':')[1] ?? '', 16);
      out.push({ port, uid: Number(f[7]), inode: f[9] ?? '' });
    }
  }
  return out;
}

/** Socket inodes a process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * Why the listener on `port` is not the named LLDB's own, or undefined when it is: some socket
 * listening on that port must belong to this user and be held by process `pid`.
 */
export function listenerDistrust(port: number, pid: number, uid = ownUid()): string | undefined {
  const onPort = listeningSockets().filter((s) => s.port === port);
  if (onPort.length === 0) return `nothing listens on port ${port} any more`;
  const held = socketInodes(pid);
  if (onPort.some((s) => s.uid === uid && held.has(s.inode))) return undefined;
  const others = onPort.filter((s) => s.uid !== uid).map((s) => s.uid);
  return others.length > 0
    ? `port ${port} is listened on by uid ${others.join(', ')}, not by this user's LLDB: refused`
    : `port ${port} is not held by LLDB process ${pid}: refused`;
}

/** The LLDB shares registered under `dir` (~/.lldb), and the files passed over with why. */
export function readLldbShares(dir: string): ShareListing {
  const listing: ShareListing = { shares: [], ignored: [] };
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^lldb-mcp-\d+\.json$/.test(n));
  } catch {
    return listing; // no ~/.lldb: nobody shares an LLDB
  }
  if (names.length === 0) return listing;
  const distrust = directoryDistrust(dir, false);
  if (distrust) {
    listing.ignored.push({ file: dir, why: `LLDB's registry directory ${distrust}` });
    return listing;
  }
  for (const name of names.sort()) {
    const file = join(dir, name);
    const pid = Number(/(\d+)/.exec(name)?.[1]);
    let parsed: unknown;
    try {
      parsed = readTrustedJson(file);
    } catch (e) {
      listing.ignored.push({ file, why: (e as Error).message });
      continue;
    }
    const uri = (parsed as { connection_uri?: unknown } | null)?.connection_uri;
    if (typeof uri !== 'string') {
      listing.ignored.push({ file, why: 'has no connection_uri' });
      continue;
    }
    const listener = parseConnectionUri(uri);
    if (typeof listener === 'string') {
      listing.ignored.push({ file, why: listener });
      continue;
    }
    if (!processAlive(pid) || !isLldbProcess(pid)) {
      const why = processAlive(pid)
        ? `stale: process ${pid} is not LLDB (the LLDB that wrote this is gone, and its pid was reused)`
        : `stale: LLDB process ${pid} is gone (killed before it could remove the file)`;
      listing.ignored.push({ file, why, stale: true });
      continue;
    }
    listing.shares.push({
      id: `lldb-${pid}`,
      debugger: 'lldb',
      // LLDB 22's registry says nothing of what the person allows: reading only, always.
      access: 'read',
      address: `${listener.host.includes(':') ? `[${listener.host}]` : listener.host}:${listener.port}`,
      owner: userInfo().username,
      debuggerPid: pid,
      state: 'unknown',
      file,
    });
  }
  return listing;
}
