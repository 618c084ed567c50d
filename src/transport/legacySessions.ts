// 2025-era MCP over Streamable HTTP with sessions (Mcp-Session-Id), served by the SDK's own
// transport, one McpServer per MCP session. Stateless serving is not enough for that era: a
// client cancels a call by POSTing notifications/cancelled, which must reach the McpServer that
// runs the call (measured: with the SDK's stateless fallback the tool's signal fired only when
// the client closed its connection, 2 s later, not at the cancel). Each session is bound to the
// client name that opened it: another client's requests for it get 404 like an unknown id.

import { randomUUID } from 'node:crypto';
import { type AuthInfo, type McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { log } from '../util/log.js';
import { jsonRpcError, whenBodyDone } from './webResponse.js';

export type ServerFactory = (auth: AuthInfo | undefined) => McpServer;

export interface LegacySessionOptions {
  /** MCP sessions held at once; at the cap the least recently used idle one is closed. */
  maxSessions: number;
  /** An MCP session with no request for this long is closed (its client starts a new one). */
  idleMs: number;
}

interface Entry {
  id: string | undefined;
  client: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  lastUsed: number;
  /** Exchanges whose response is still being written (a GET stream counts while it is open). */
  active: number;
}

export const DEFAULT_LEGACY_SESSIONS: LegacySessionOptions = { maxSessions: 256, idleMs: 60 * 60_000 };

export class LegacySessions {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly factory: ServerFactory,
    private readonly options: LegacySessionOptions = DEFAULT_LEGACY_SESSIONS,
  ) {
    const every = Math.max(1000, Math.min(60_000, Math.floor(options.idleMs / 4)));
    this.sweeper = setInterval(() => this.expireIdle(), every);
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  async fetch(request: Request, auth: AuthInfo | undefined): Promise<Response> {
    const client = auth?.clientId ?? 'anonymous';
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const entry = this.entries.get(id);
      if (entry === undefined || entry.client !== client) return jsonRpcError(404, -32001, 'Session not found');
      return this.serve(entry, request, auth);
    }
    if (request.method.toUpperCase() !== 'POST') {
      return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    if (this.entries.size >= this.options.maxSessions && !this.evictOne()) {
      return jsonRpcError(503, -32000, 'Too many MCP sessions are open; retry later');
    }
    // A POST without a session: an initialize opens one; anything else the SDK refuses (400).
    const server = this.factory(auth);
    const entry: Entry = {
      id: undefined,
      client,
      server,
      lastUsed: Date.now(),
      active: 0,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          entry.id = sid;
          this.entries.set(sid, entry);
        },
        onsessionclosed: (sid) => void this.drop(sid),
      }),
    };
    await server.connect(entry.transport);
    const response = await this.serve(entry, request, auth);
    if (entry.id === undefined) return whenBodyDone(response, () => void this.closeEntry(entry));
    return response;
  }

  private async serve(entry: Entry, request: Request, auth: AuthInfo | undefined): Promise<Response> {
    entry.active++;
    entry.lastUsed = Date.now();
    let response: Response;
    try {
      response = await entry.transport.handleRequest(request, auth ? { authInfo: auth } : {});
    } catch (e) {
      entry.active--;
      throw e;
    }
    return whenBodyDone(
      response,
      () => {
        entry.active--;
        entry.lastUsed = Date.now();
      },
      request.signal,
    );
  }

  /** Closes the least recently used session with nothing in flight; false when all are busy. */
  private evictOne(): boolean {
    let oldest: Entry | undefined;
    for (const e of this.entries.values()) {
      if (e.active === 0 && (oldest === undefined || e.lastUsed < oldest.lastUsed)) oldest = e;
    }
    if (oldest === undefined) return false;
    log('info', 'closing the least recently used MCP session (cap reached)', { client: oldest.client });
    void this.closeEntry(oldest);
    return true;
  }

  expireIdle(now = Date.now()): void {
    for (const e of [...this.entries.values()]) {
      if (e.active === 0 && now - e.lastUsed >= this.options.idleMs) {
        log('info', 'closing an idle MCP session', { client: e.client, idleMs: now - e.lastUsed });
        void this.closeEntry(e);
      }
    }
  }

  private async drop(id: string): Promise<void> {
    const e = this.entries.get(id);
    if (e !== undefined) await this.closeEntry(e);
  }

  /** Closing the server aborts the calls it still runs (their AbortSignal fires). */
  private async closeEntry(e: Entry): Promise<void> {
    if (e.id !== undefined) this.entries.delete(e.id);
    await e.transport.close().catch(() => {});
    await e.server.close().catch(() => {});
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.entries.values()].map((e) => this.closeEntry(e)));
  }
}
