// What an agent may point a debugger at besides a program under the workspace roots: a running
// process (attach) and a remote stub (gdbserver, QEMU). Attaching gives the agent the target's
// memory and registers, and a remote address makes the debugger open a connection; both pass an
// allowlist the operator sets (--attach-pids, --remote-hosts). The defaults: processes of the
// user the server runs as, and loopback addresses only.

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { guardedPids } from '../process/orphanGuard.js';
import { DebuggerError } from '../util/errors.js';

/** Which processes may be attached to: none, the server user's own (default), any, or a list. */
export type AttachPolicy = 'none' | 'own' | 'any' | readonly number[];

export const DEFAULT_REMOTE_HOSTS: readonly string[] = ['localhost', '127.0.0.0/8', '::1'];

export interface PolicyConfig {
  attachPids: AttachPolicy;
  /** Host patterns: names (`*` matches one or more labels), IPv4/IPv6 addresses, CIDR blocks, or `*`. */
  remoteHosts: readonly string[];
}

/** What the policy needs to know of a process; read from /proc unless a test supplies it. */
export interface ProcessFacts {
  /** Real uid, or undefined when no such process exists. */
  uid: number | undefined;
  /** The pids from this server up to init: attaching to one would freeze the client or the server. */
  ancestors: readonly number[];
  /** The uid the server runs as. */
  ownUid: number;
  /**
   * Whether the process is the server's own doing: a debugger it guards (a session's, the pool's,
   * a probe's), or a process of its session, process group or descent (the program it debugs).
   */
  serverOwned?: boolean;
}

function procField(pid: number, field: string): string | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return new RegExp(`^${field}:\\s*(.*)$`, 'm').exec(status)?.[1];
  } catch {
    return undefined;
  }
}

/** Whether `pid`, its session, its process group or one of its ancestors is a guarded debugger. */
function ownedByServer(pid: number, guardedIds: ReadonlySet<number>): boolean {
  if (guardedIds.size === 0) return false;
  for (let p = pid, n = 0; p > 1 && n < 64; n++) {
    if (guardedIds.has(p)) return true;
    try {
      // /proc/PID/stat: "pid (comm) state ppid pgrp session …"; comm may hold spaces and parens.
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const [ppid, pgrp, session] = [Number(fields[1]), Number(fields[2]), Number(fields[3])];
      if (guardedIds.has(pgrp) || guardedIds.has(session)) return true;
      p = ppid;
    } catch {
      return false;
    }
  }
  return false;
}

export function readProcessFacts(pid: number): ProcessFacts {
  const uidLine = procField(pid, 'Uid');
  const ancestors: number[] = [];
  for (let p = process.pid; p > 1 && ancestors.length < 64; ) {
    ancestors.push(p);
    const parent = Number(procField(p, 'PPid'));
    if (!Number.isInteger(parent) || parent <= 0) break;
    p = parent;
  }
  return {
    uid: uidLine === undefined ? undefined : Number(uidLine.split(/\s+/)[0]),
    ancestors,
    ownUid: process.getuid?.() ?? -1,
    serverOwned: ownedByServer(pid, guardedPids()),
  };
}

/**
 * Network clients (HTTP, the unix socket) attach only where the operator said so with
 * --attach-pids: another client's processes are the server user's own too, so the default `own`
 * would let one client stop another's programs. stdio's single client keeps the default.
 */
export function checkNetworkAttach(config: { attachPidsFromOperator?: boolean }, client: string): void {
  if (client === 'stdio' || config.attachPidsFromOperator === true) return;
  throw new DebuggerError(
    'invalid_argument',
    'attach: attaching is off for clients over HTTP and the unix socket unless the operator allows it: start the server with --attach-pids own, any or a list of pids',
    { fields: ['attach'], refusal: 'attach_policy' },
  );
}

/**
 * Throws `invalid_argument` unless the policy lets a session attach to `pid`. Never true for
 * init, the server or the processes that started it, whatever the policy.
 */
export function checkAttachAllowed(
  pid: number,
  config: PolicyConfig,
  facts: (pid: number) => ProcessFacts = readProcessFacts,
): void {
  // A policy's refusal says so (details.refusal, counted in /metrics); a pid that names nothing does not.
  function refuse(why: string, refusal: string | undefined = 'attach_policy'): never {
    throw new DebuggerError('invalid_argument', `pid: ${why}`, { fields: ['pid'], ...(refusal ? { refusal } : {}) });
  }
  if (!Number.isSafeInteger(pid) || pid <= 1) refuse(`${pid} is not a process that can be attached to`, undefined);
  const policy = config.attachPids;
  if (policy === 'none') refuse('attaching is off on this server (start it with --attach-pids own, any or a list)');
  const f = facts(pid);
  if (f.uid === undefined) refuse(`no process ${pid} is running`, undefined);
  if (f.ancestors.includes(pid)) {
    refuse(`${pid} is this server or a process that started it; attaching would freeze the client`);
  }
  // Whatever the policy: another session's debugger or program, the pool's debuggers, a probe.
  if (f.serverOwned) {
    refuse(
      `${pid} is one of this server's own processes (a session's debugger or the program it debugs, or a debugger the pool holds): it is read through its own session, never attached to`,
    );
  }
  if (Array.isArray(policy)) {
    if (!policy.includes(pid)) {
      refuse(`${pid} is not in the allowed list (--attach-pids ${policy.join(',')})`);
    }
    return;
  }
  if (policy === 'own' && f.uid !== f.ownUid) {
    refuse(
      `process ${pid} belongs to uid ${f.uid}, not to the server's user (uid ${f.ownUid}); start the server with --attach-pids any or a list to allow it`,
    );
  }
}

export interface RemoteTarget {
  host: string;
  port: number;
  /** The address as GDB's `target remote` reads it: host:port, [v6]:port. */
  address: string;
}

/**
 * Parses `host:port` (or `[v6addr]:port`, optionally prefixed `tcp:`) and throws
 * `invalid_argument` unless the host matches the allowlist. Names are matched as written, not
 * resolved: a name is allowed only when a name pattern allows it. Other GDB connection forms are
 * refused: `| command` runs a shell command, and serial devices or `udp:` are not offered.
 */
export function checkRemoteAllowed(hostPort: string, config: PolicyConfig, field = 'remote'): RemoteTarget {
  function refuse(why: string, refusal?: string): never {
    throw new DebuggerError('invalid_argument', `${field}: ${why}`, {
      fields: [field],
      ...(refusal ? { refusal } : {}),
    });
  }
  const text = hostPort.trim().replace(/^tcp:/i, '');
  if (text.startsWith('|')) refuse('a pipe to a command is not a remote address; give host:port');
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
  if (!m) refuse(`${JSON.stringify(hostPort)} is not host:port (IPv6: [::1]:1234)`);
  const [, v6, name, portText] = m;
  const host = (v6 ?? name ?? '').toLowerCase();
  const port = Number(portText);
  if (port < 1 || port > 65535) refuse(`port ${port} is out of range (1 to 65535)`);
  if (v6 !== undefined && isIP(host) !== 6) refuse(`${host} is not an IPv6 address`);
  if (!config.remoteHosts.some((pattern) => hostMatches(host, pattern))) {
    refuse(
      `${host} is not an allowed remote host (allowed: ${config.remoteHosts.join(', ')}); start the server with --remote-hosts to allow it`,
      'remote_host_policy',
    );
  }
  return { host, port, address: isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}` };
}

/** Whether `host` (lower case) matches one allowlist pattern. */
export function hostMatches(host: string, pattern: string): boolean {
  const p = pattern.trim().toLowerCase();
  if (p === '*') return true;
  const slash = p.indexOf('/');
  if (slash > 0) return inCidr(host, p.slice(0, slash), Number(p.slice(slash + 1)));
  if (isIP(p) !== 0 || isIP(host) !== 0) return isIP(p) !== 0 && sameAddress(host, p);
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

/** An IP address as bits (IPv4: 32, IPv6: 128); undefined when it is not one. */
function addressBits(text: string): { bits: bigint; width: number } | undefined {
  const kind = isIP(text);
  if (kind === 4) {
    const bits = text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
    return { bits, width: 32 };
  }
  if (kind !== 6) return undefined;
  let body = text;
  // A dotted IPv4 tail (::ffff:127.0.0.1) as two groups of hex.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (v4?.[1]) {
    const n = addressBits(v4[1])?.bits ?? 0n;
    body = `${body.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = body.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return { bits: groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n), width: 128 };
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) compares as the IPv4 address it carries. */
function normalised(text: string): { bits: bigint; width: number } | undefined {
  const a = addressBits(text);
  if (a && a.width === 128 && a.bits >> 32n === 0xffffn) return { bits: a.bits & 0xffffffffn, width: 32 };
  return a;
}

function sameAddress(a: string, b: string): boolean {
  const x = normalised(a);
  const y = normalised(b);
  return x !== undefined && y !== undefined && x.width === y.width && x.bits === y.bits;
}

function inCidr(host: string, base: string, prefix: number): boolean {
  const h = normalised(host);
  const b = normalised(base);
  if (!h || !b || h.width !== b.width || !Number.isInteger(prefix) || prefix < 0 || prefix > b.width) return false;
  const shift = BigInt(b.width - prefix);
  return h.bits >> shift === b.bits >> shift;
}

/** Parses the value of --attach-pids; throws with the reason when it is not one. */
export function parseAttachPolicy(raw: string): AttachPolicy {
  const v = raw.trim().toLowerCase();
  if (v === 'none' || v === 'own' || v === 'any') return v;
  const pids = v.split(',').map((p) => p.trim());
  if (pids.length === 0 || pids.some((p) => !/^\d{1,9}$/.test(p) || Number(p) <= 1)) {
    throw new Error(`${JSON.stringify(raw)} is not none, own, any or a comma-separated list of pids`);
  }
  return pids.map(Number);
}

/** Parses the value of --remote-hosts; throws naming a pattern that can never match. */
export function parseRemoteHosts(raw: string): string[] {
  const patterns = raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (patterns.length === 0) throw new Error('no host pattern given');
  for (const p of patterns) {
    const slash = p.indexOf('/');
    const ok =
      p === '*' ||
      (slash > 0
        ? isIP(p.slice(0, slash)) !== 0 && /^\d{1,3}$/.test(p.slice(slash + 1))
        : isIP(p) !== 0 || /^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(p));
    if (!ok) throw new Error(`${JSON.stringify(p)} is not a host name, address, CIDR block or *`);
  }
  return patterns;
}
