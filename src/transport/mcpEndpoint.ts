// MCP at /mcp: the SDK's createMcpHandler serves 2026-07-28 traffic (one McpServer per request;
// a client cancels by closing the request, which aborts the call), and 2025-era traffic goes to
// sessions held by the SDK's own transport (legacySessions.ts), routed by the SDK's
// isLegacyRequest as its documentation shows. Every McpServer comes from the one factory, and
// all of them share one SessionManager, so debugging sessions outlive the requests.

import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { log } from '../util/log.js';
import {
  DEFAULT_LEGACY_SESSIONS,
  type LegacySessionOptions,
  LegacySessions,
  type ServerFactory,
} from './legacySessions.js';

export class McpEndpoint {
  private readonly modern: McpHttpHandler;
  readonly legacy: LegacySessions;
  /** The node:http handler; `req.auth` (AuthInfo) is passed on to the factory and the tools. */
  readonly handle: NodeMcpRequestHandler;

  constructor(factory: ServerFactory, legacyOptions: LegacySessionOptions = DEFAULT_LEGACY_SESSIONS) {
    // The SDK reports refused requests here too (a client's mistake, not ours): debug level.
    const onerror = (e: Error): void => log('debug', 'MCP request refused or failed', { error: e.message });
    this.modern = createMcpHandler((ctx) => factory(ctx.authInfo), { legacy: 'reject', onerror });
    this.legacy = new LegacySessions(factory, legacyOptions);
    this.handle = toNodeHandler(
      { fetch: (request, options) => this.fetch(request, options) },
      { onerror: (e) => log('warn', 'MCP HTTP request failed', { error: e.message }) },
    );
  }

  private async fetch(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    if (await isLegacyRequest(request)) return this.legacy.fetch(request, options?.authInfo);
    return this.modern.fetch(request, options);
  }

  /** Aborts every call still in flight and closes every MCP session. */
  async close(): Promise<void> {
    await Promise.allSettled([this.modern.close(), this.legacy.close()]);
  }
}
