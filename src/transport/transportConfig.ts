// How `dbg-mcp serve` is reached beyond stdio: the listeners, the token file and the flag that
// loosens the defaults. src/cli/options.ts fills it from --http, --unix, --token-file and
// --allow-remote (and their DBG_MCP_* variables). --client-sessions is the session manager's
// (ServerConfig.clientSessions): it holds on stdio too.

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
}

export function defaultTransportConfig(): TransportConfig {
  return { http: undefined, unix: undefined, tokenFile: undefined, allowRemote: false };
}

/** Whether serve speaks to the network (HTTP or the unix socket) rather than stdio. */
export function servesNetwork(t: TransportConfig): boolean {
  return t.http !== undefined || t.unix !== undefined;
}
