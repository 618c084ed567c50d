// The --http address: parsing HOST:PORT, telling loopback from the rest, and the Host header
// names a request to that address may carry (DNS-rebinding protection).

import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { DebuggerError } from '../util/errors.js';
import type { HttpListen } from './transportConfig.js';

/** `127.0.0.1:8080`, `localhost:0`, `[::1]:8080`; throws invalid_argument with what is wrong. */
export function parseListenAddress(text: string): HttpListen {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:[\]]+):(\d+)$/.exec(text);
  if (!m) {
    throw new DebuggerError('invalid_argument', `${JSON.stringify(text)} is not HOST:PORT (IPv6 as [::1]:PORT)`);
  }
  const host = m[1] as string;
  const port = Number(m[2]);
  if (port > 65535) throw new DebuggerError('invalid_argument', `port ${port} is out of range (0 to 65535)`);
  if (text.startsWith('[') && isIP(host) !== 6) {
    throw new DebuggerError('invalid_argument', `${JSON.stringify(host)} is not an IPv6 address`);
  }
  return { host, port };
}

/**
 * Loopback by address, or `localhost`: the one name that resolves to loopback by convention
 * (RFC 6761). Any other name could resolve anywhere, so it counts as remote.
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}

function bracketed(address: string): string {
  return isIP(address) === 6 ? `[${address}]` : address;
}

/**
 * Host header names (no port; IPv6 in brackets, as validateHostHeader wants them) a request to
 * `listen` may carry. Loopback: the loopback names only, so a page whose DNS name was rebound
 * to 127.0.0.1 is refused. Elsewhere (--allow-remote): also the bound address, or each
 * interface address for a wildcard bind, and this machine's name; a proxy in front must pass
 * one of these (nginx: `proxy_set_header Host localhost;`).
 */
export function allowedHostnames(listen: HttpListen): string[] {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  if (isLoopbackHost(listen.host)) return [...names];
  names.add(hostname());
  if (listen.host === '0.0.0.0' || listen.host === '::') {
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) names.add(bracketed(a.address));
    }
  } else {
    names.add(bracketed(listen.host));
  }
  return [...names];
}

/** The URL a client would use for `listen` (the actual port once bound). */
export function mcpUrl(listen: HttpListen): string {
  return `http://${bracketed(listen.host)}:${listen.port}/mcp`;
}
