// How `dbg-mcp serve` is reached beyond stdio: the listeners, the token file and the flags that
// loosen the defaults. src/cli/options.ts fills it from --http, --unix, --token-file,
// --allow-remote and --client-sessions (and their DBG_MCP_* variables).

export interface HttpListen {
  /** A host name or an IP address (IPv6 without brackets). */
  host: string;
  /** 0 asks the kernel for a free port; the start-up log says which. */
  port: number;
}

export interface TransportConfig {
  /** Streamable HTTP on a TCP address, or undefined. */
  http: HttpListen | undefined;
  /** Streamable HTTP on an owner-only unix socket at this path, or undefined. */
  unix: string | undefined;
  /** `name:token` lines, one client a line; undefined: no bearer tokens. */
  tokenFile: string | undefined;
  /** Lets --http bind an address other than loopback (a token file is then required too). */
  allowRemote: boolean;
  /** Most debugging sessions one client may hold open at once (undefined: only --max-sessions). */
  clientSessions: number | undefined;
}

export function defaultTransportConfig(): TransportConfig {
  return { http: undefined, unix: undefined, tokenFile: undefined, allowRemote: false, clientSessions: undefined };
}

/** Whether serve speaks to the network (HTTP or the unix socket) rather than stdio. */
export function servesNetwork(t: TransportConfig): boolean {
  return t.http !== undefined || t.unix !== undefined;
}
