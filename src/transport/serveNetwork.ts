// `dbg-mcp serve --http HOST:PORT` and/or `--unix PATH`: one SessionManager for every client,
// the front door on each listener, tokens reloaded on SIGHUP, and the shutdown on SIGTERM:
// stop accepting, let calls in flight finish for a moment, close every session (calls still
// waiting on one then answer), abort what is left, and exit; a second signal exits at once
// (the orphan guard outside the process tree then takes the debuggers down).

import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerConfig } from '../server/config.js';
import { createServer } from '../server/createServer.js';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { packageVersion } from '../util/version.js';
import { ClientAuth } from './clientAuth.js';
import { FrontDoor } from './frontDoor.js';
import { allowedHostnames, isLoopbackHost, mcpUrl } from './listenAddress.js';
import { McpEndpoint } from './mcpEndpoint.js';
import { Metrics } from './metrics.js';
import { TokenStore } from './tokenStore.js';
import type { TransportConfig } from './transportConfig.js';
import { listenOnUnixSocket, removeSocket } from './unixSocket.js';

/** How long calls in flight get to finish on their own once SIGTERM arrives. */
const GRACE_MS = 1500;
/** Then, how long calls get to answer once their sessions are closed. */
const ANSWER_MS = 2000;
/** Whatever happens, the process is gone this long after the first SIGTERM. */
const DEADLINE_MS = 8000;

/**
 * Idle keep-alive connections are kept this long. A client reuses an idle connection until a
 * second before the server's Keep-Alive timeout; Node's default of 5 s left a busy client's
 * event loop too little slack (measured: `fetch failed: ECONNRESET` on a POST sent as the server
 * closed the connection, 2 runs in 4 of bench/httpLoadBench.mjs on a loaded 2-core machine).
 */
const KEEP_ALIVE_MS = 65_000;

/** Refuses what the flags would make unsafe: a non-loopback bind without both flags. */
export function checkExposure(t: TransportConfig): void {
  if (t.http === undefined || isLoopbackHost(t.http.host)) return;
  const where = `--http ${t.http.host}:${t.http.port}`;
  if (!t.allowRemote) {
    throw new DebuggerError(
      'invalid_argument',
      `${where} is not a loopback address: serving beyond this machine needs --allow-remote and --token-file, behind a proxy that terminates TLS`,
    );
  }
  if (t.tokenFile === undefined) {
    throw new DebuggerError(
      'invalid_argument',
      `${where} with --allow-remote needs --token-file: a non-loopback address is never served without tokens`,
    );
  }
}

function listenTcp(server: Server, host: string, port: number): Promise<number> {
  return new Promise((done, fail) => {
    // EADDRINUSE, EACCES, EADDRNOTAVAIL: said as the flag's problem, not as a crash.
    server.once('error', (e) => fail(new DebuggerError('invalid_argument', `--http ${host}:${port}: ${e.message}`)));
    server.listen({ host, port }, () => {
      server.removeAllListeners('error');
      done((server.address() as AddressInfo).port);
    });
  });
}

export async function serveNetwork(config: ServerConfig, t: TransportConfig): Promise<void> {
  checkExposure(t);
  const tokens = t.tokenFile !== undefined ? TokenStore.load(t.tokenFile) : undefined;
  const metrics = new Metrics();
  // The one SessionManager: every per-request McpServer below is made around it.
  const root = createServer(config, undefined, metrics);
  metrics.observeSessions(() =>
    root.sessions.list().map((s) => ({
      backend: s.debugger.kind,
      state: s.phase,
      client: root.sessions.holderOf(s.id) ?? '',
    })),
  );
  const endpoint = new McpEndpoint(() => createServer(config, root.sessions, metrics).server);
  const origins = t.http ? allowedHostnames(t.http) : allowedHostnames({ host: 'localhost', port: 0 });
  const door = new FrontDoor({ auth: new ClientAuth(tokens), metrics, endpoint, allowedOrigins: origins });
  metrics.observeTransport(() => ({ inFlight: door.inFlight, mcpSessions: endpoint.legacy.size }));

  const servers: Server[] = [];
  // Signals are ours before the first listener exists: a SIGTERM just after start-up is a shutdown too.
  let stopping = false;
  const shutdown = async (why: string, code: number): Promise<void> => {
    if (stopping) {
      log('warn', 'second signal during shutdown: exiting now', { why });
      process.exit(code === 0 ? 1 : code);
    }
    stopping = true;
    log('info', 'shutting down', { why, callsInFlight: door.callsInFlight, sessions: root.sessions.size });
    setTimeout(() => {
      log('warn', 'shutdown deadline passed: exiting', { deadlineMs: DEADLINE_MS });
      process.exit(1);
    }, DEADLINE_MS).unref();
    door.stop();
    for (const s of servers) {
      s.close();
      s.closeIdleConnections();
    }
    const finished = await door.drained(GRACE_MS);
    await root.shutdown();
    const answered = finished || (await door.drained(ANSWER_MS));
    await endpoint.close();
    for (const s of servers) s.closeAllConnections();
    log('info', 'shut down', { callsFinished: finished, callsAnswered: answered });
    process.exit(code);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGHUP', () => {
    if (!tokens) return log('info', 'SIGHUP: no token file to reload', {});
    try {
      tokens.reload();
      log('info', 'tokens reloaded', { clients: tokens.names.join(', ') });
    } catch (e) {
      log('error', 'tokens not reloaded: the ones in force stay', { error: (e as Error).message });
    }
  });
  process.on('uncaughtException', (error) => {
    log('error', 'uncaught exception', { error: error.message, stack: error.stack });
    void shutdown('uncaught exception', 1);
  });
  process.on('unhandledRejection', (reason) => {
    log('error', 'unhandled rejection', { error: String(reason), stack: (reason as Error)?.stack });
  });
  const where: Record<string, string> = {};
  if (t.http) {
    const server = createHttpServer(
      { keepAliveTimeout: KEEP_ALIVE_MS },
      door.listener('tcp', allowedHostnames(t.http)),
    );
    servers.push(server);
    const port = await listenTcp(server, t.http.host, t.http.port);
    where['http'] = mcpUrl({ host: t.http.host, port });
  }
  const socketPath = t.unix;
  if (socketPath !== undefined) {
    const server = createHttpServer({ keepAliveTimeout: KEEP_ALIVE_MS }, door.listener('unix'));
    servers.push(server);
    await listenOnUnixSocket(server, socketPath);
    where['unix'] = socketPath;
    // Node removes the socket on close(); an exit without close (a second signal) removes it here.
    process.on('exit', () => removeSocket(socketPath));
  }

  log('info', 'dbg-mcp serving', {
    version: packageVersion(),
    ...where,
    auth: tokens ? `bearer tokens from ${tokens.path} (clients: ${tokens.names.join(', ')})` : 'none',
    remote: t.http !== undefined && !isLoopbackHost(t.http.host),
    config: { ...config, passthroughEnv: config.passthroughEnv.join(',') },
  });
  if (t.http && !isLoopbackHost(t.http.host)) {
    log(
      'warn',
      'listening beyond loopback (--allow-remote): plain HTTP with bearer tokens; put a proxy that terminates TLS in front',
      {
        address: `${t.http.host}`,
      },
    );
  } else if (t.http && !tokens) {
    log(
      'warn',
      'HTTP without --token-file: every local user can reach the loopback port; prefer --unix, or give a token file',
      {},
    );
  }
}
