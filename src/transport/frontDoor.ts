// Every HTTP request, on TCP or the unix socket, passes here first: /healthz answers without
// question; everything else is checked in the order the MCP SDK's guides give (Host, then
// Origin, with the SDK's own node guards, then the bearer token) before /metrics or /mcp.
// While the server shuts down, new requests get 503; calls in flight are counted so shutdown
// can wait for them.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { log } from '../util/log.js';
import type { ClientAuth, ListenerKind } from './clientAuth.js';
import type { McpEndpoint } from './mcpEndpoint.js';
import type { Metrics } from './metrics.js';
import { jsonRpcError, sendResponse } from './webResponse.js';

type Guard = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface FrontDoorOptions {
  auth: ClientAuth;
  metrics: Metrics;
  endpoint: McpEndpoint;
  /** Origin hostnames a browser page may call from (requests without Origin pass). */
  allowedOrigins: string[];
}

export class FrontDoor {
  /** Requests being answered (a 2025-era GET stream counts while it is open). */
  inFlight = 0;
  /** POSTs to /mcp being answered: the calls a shutdown lets finish. */
  private calls = 0;
  private stopping = false;
  private readonly drainWaiters = new Set<() => void>();
  private readonly checkOrigin: Guard;

  constructor(private readonly options: FrontDoorOptions) {
    this.checkOrigin = originValidation(options.allowedOrigins);
  }

  /** The request listener of one server: `allowedHosts` for TCP (DNS rebinding), none on the socket. */
  listener(via: ListenerKind, allowedHosts?: string[]): (req: IncomingMessage, res: ServerResponse) => void {
    const checkHost = allowedHosts ? hostHeaderValidation(allowedHosts) : undefined;
    return (req, res) => {
      this.inFlight++;
      const isCall = req.method === 'POST';
      if (isCall) this.calls++;
      res.once('close', () => {
        this.inFlight--;
        if (isCall && --this.calls === 0) for (const wake of this.drainWaiters) wake();
      });
      this.route(req, res, via, checkHost).catch((e: unknown) => {
        log('error', 'HTTP request failed', { error: (e as Error)?.message, stack: (e as Error)?.stack });
        if (!res.headersSent) void sendResponse(res, jsonRpcError(500, -32603, 'Internal server error'));
        else res.destroy();
      });
    };
  }

  private async route(req: IncomingMessage, res: ServerResponse, via: ListenerKind, checkHost?: Guard): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (this.stopping) {
      this.options.metrics.httpRefused('shutting_down');
      res.setHeader('connection', 'close');
      return sendResponse(res, jsonRpcError(503, -32000, 'The server is shutting down'));
    }
    if (path === '/healthz') {
      // Liveness for a supervisor or a proxy: no auth, and nothing about the server in it.
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('ok\n');
      return;
    }
    if (checkHost && !checkHost(req, res)) return this.refused('bad_host', req, via);
    if (!this.checkOrigin(req, res)) return this.refused('bad_origin', req, via);
    const outcome = await this.options.auth.authenticate(req.headers.authorization, via);
    if (!outcome.ok) {
      this.refused(outcome.reason, req, via);
      return sendResponse(res, outcome.response);
    }
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      const text = await this.options.metrics.render();
      return sendResponse(
        res,
        new Response(req.method === 'HEAD' ? null : text, {
          headers: { 'content-type': this.options.metrics.contentType },
        }),
      );
    }
    if (path === '/mcp') {
      (req as IncomingMessage & { auth?: AuthInfo }).auth = outcome.auth;
      return this.options.endpoint.handle(req, res);
    }
    return sendResponse(res, jsonRpcError(404, -32000, `Not found: MCP is served at /mcp`));
  }

  /**
   * Counted and logged: never the token (only its absence or that it matched no client), and the
   * path without its query, where a client might have put one.
   */
  private refused(reason: string, req: IncomingMessage, via: ListenerKind): void {
    this.options.metrics.httpRefused(reason);
    log('warn', 'HTTP request refused', {
      reason,
      via,
      method: req.method,
      path: new URL(req.url ?? '/', 'http://localhost').pathname.slice(0, 200),
      remote: req.socket.remoteAddress ?? 'unix socket',
    });
  }

  /** From now on every request but those already running gets 503. */
  stop(): void {
    this.stopping = true;
  }

  /** Resolves when no call is in flight, or after `ms`, whichever comes first; true if drained. */
  drained(ms: number): Promise<boolean> {
    if (this.calls === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.drainWaiters.delete(wake);
        resolve(this.calls === 0);
      };
      const timer = setTimeout(wake, ms);
      this.drainWaiters.add(wake);
    });
  }

  /** POSTs still being answered. */
  get callsInFlight(): number {
    return this.calls;
  }
}
