// 2025-era MCP sessions over the SDK's transport: a cancel reaches the call it names, a session
// belongs to the client that opened it, idle and surplus sessions are closed, busy ones are not.
import { type AuthInfo, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { clientAuthInfo } from '../../../src/transport/clientAuth.js';
import { LegacySessions } from '../../../src/transport/legacySessions.js';

const alice = clientAuthInfo('alice', 'tcp');
const bob = clientAuthInfo('bob', 'tcp');
const open: LegacySessions[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** What the tool `wait` saw: started, and the abort reason once its signal fired. */
interface Seen {
  started: number;
  aborted: string[];
}

function sessions(options = { maxSessions: 8, idleMs: 60_000 }): { legacy: LegacySessions; seen: Seen } {
  const seen: Seen = { started: 0, aborted: [] };
  const factory = (_auth: AuthInfo | undefined): McpServer => {
    const server = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    server.registerTool('wait', { inputSchema: z.object({}) }, async (_args, ctx) => {
      seen.started++;
      await new Promise<void>((resolve) =>
        ctx.mcpReq.signal.addEventListener('abort', () => {
          seen.aborted.push(String(ctx.mcpReq.signal.reason));
          resolve();
        }),
      );
      return { content: [{ type: 'text', text: 'done' }] };
    });
    return server;
  };
  const legacy = new LegacySessions(factory, options);
  open.push(legacy);
  return { legacy, seen };
}

function post(body: unknown, sessionId?: string): Request {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } : {}),
    },
    body: JSON.stringify(body),
  });
}

async function initialize(legacy: LegacySessions, auth: AuthInfo): Promise<string> {
  const r = await legacy.fetch(
    post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
    auth,
  );
  expect(r.status).toBe(200);
  await r.text();
  const id = r.headers.get('mcp-session-id');
  if (!id) throw new Error('no session id');
  await (await legacy.fetch(post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id), auth)).text();
  return id;
}

async function toolsList(legacy: LegacySessions, id: string, auth: AuthInfo): Promise<number> {
  const r = await legacy.fetch(post({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, id), auth);
  await r.text();
  return r.status;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`never: ${what}`);
}

describe('LegacySessions', () => {
  it('delivers notifications/cancelled to the call it names, in the same MCP session', async () => {
    const { legacy, seen } = sessions();
    const id = await initialize(legacy, alice);
    const call = await legacy.fetch(
      post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {} } }, id),
      alice,
    );
    await until(() => seen.started === 1, 'the call to start');
    const cancel = await legacy.fetch(
      post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'user' } }, id),
      alice,
    );
    expect(cancel.status).toBe(202);
    await until(() => seen.aborted.length === 1, 'the call to see the cancel');
    expect(seen.aborted).toEqual(['user']);
    await call.body?.cancel();
  });

  it('binds a session to the client that opened it: another client gets 404, as for an unknown id', async () => {
    const { legacy } = sessions();
    const id = await initialize(legacy, alice);
    expect(await toolsList(legacy, id, alice)).toBe(200);
    expect(await toolsList(legacy, id, bob)).toBe(404);
    expect(await toolsList(legacy, 'no-such-session', alice)).toBe(404);
  });

  it('closes a session idle past the limit, and not before', async () => {
    const { legacy } = sessions({ maxSessions: 8, idleMs: 60_000 });
    const id = await initialize(legacy, alice);
    legacy.expireIdle(Date.now() + 30_000);
    expect(await toolsList(legacy, id, alice)).toBe(200);
    legacy.expireIdle(Date.now() + 61_000);
    expect(legacy.size).toBe(0);
    expect(await toolsList(legacy, id, alice)).toBe(404);
  });

  it('at the cap closes the least recently used idle session, and answers 503 when all are busy', async () => {
    const { legacy } = sessions({ maxSessions: 2, idleMs: 60_000 });
    const first = await initialize(legacy, alice);
    const second = await initialize(legacy, alice);
    expect(await toolsList(legacy, second, alice)).toBe(200);
    const third = await initialize(legacy, bob);
    expect(await toolsList(legacy, first, alice)).toBe(404);
    expect(legacy.size).toBe(2);
    // Both left busy: an open GET stream each.
    const streams = await Promise.all(
      [
        [second, alice],
        [third, bob],
      ].map(([id, auth]) =>
        legacy.fetch(
          new Request('http://localhost/mcp', {
            headers: {
              accept: 'text/event-stream',
              'mcp-session-id': id as string,
              'mcp-protocol-version': '2025-11-25',
            },
          }),
          auth as AuthInfo,
        ),
      ),
    );
    expect(streams.map((s) => s.status)).toEqual([200, 200]);
    const refused = await legacy.fetch(
      post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
      alice,
    );
    expect(refused.status).toBe(503);
    await Promise.all(streams.map((s) => s.body?.cancel()));
  });

  it('counts a stream as done as soon as its client goes away, not at the next keep-alive', async () => {
    const { legacy } = sessions({ maxSessions: 1, idleMs: 60_000 });
    const first = await initialize(legacy, alice);
    const gone = new AbortController();
    const stream = await legacy.fetch(
      new Request('http://localhost/mcp', {
        headers: { accept: 'text/event-stream', 'mcp-session-id': first, 'mcp-protocol-version': '2025-11-25' },
        signal: gone.signal,
      }),
      alice,
    );
    expect(stream.status).toBe(200);
    // What toNodeHandler does when the connection closes: it aborts the request's signal.
    gone.abort();
    await initialize(legacy, bob);
    expect(await toolsList(legacy, first, alice)).toBe(404);
  });

  it('close() aborts the calls still running', async () => {
    const { legacy, seen } = sessions();
    const id = await initialize(legacy, alice);
    await legacy.fetch(
      post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {} } }, id),
      alice,
    );
    await until(() => seen.started === 1, 'the call to start');
    await legacy.close();
    await until(() => seen.aborted.length === 1, 'the call to be aborted');
    expect(seen.aborted[0]).toMatch(/Connection closed/);
  });

  it('refuses a GET without a session and keeps nothing for a POST that is not initialize', async () => {
    const { legacy } = sessions();
    expect(
      (await legacy.fetch(new Request('http://localhost/mcp', { headers: { accept: 'text/event-stream' } }), alice))
        .status,
    ).toBe(400);
    const r = await legacy.fetch(post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), alice);
    expect(r.status).toBe(400);
    await r.text();
    expect(legacy.size).toBe(0);
  });
});
