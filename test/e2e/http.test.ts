// The built server on loopback HTTP (`serve --http 127.0.0.1:0`), driven by the SDK client over
// Streamable HTTP on both protocol eras: the crash turn, progress and cancellation, the refusals
// of the front door, /healthz and /metrics, SIGTERM with a call in flight, SIGHUP reloading tokens.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type NetworkServer, privateDir, refusedStart, startNetworkServer } from '../helpers/networkServer.js';
import { fixture } from '../helpers/paths.js';
import { alive, descendants, describeProcs, until } from '../helpers/procfs.js';

const ALICE = 'alice-0123456789abcdef0123456789';
const BOB = 'bob-0123456789abcdef0123456789ab';
const ERAS = [
  ['2025-11-25 (MCP session)', 'legacy', 'legacy'],
  ['2026-07-28 (per request)', 'auto', 'modern'],
] as const;

function tokenFile(lines: string, mode = 0o600): string {
  const path = join(privateDir(), 'tokens');
  writeFileSync(path, lines);
  chmodSync(path, mode);
  return path;
}

/** The value of one Prometheus sample line, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Pids of the server's processes named `comm` (gdb, the program). */
function pidsOf(server: NetworkServer, comm: string): number[] {
  return descendants(server.child.pid)
    .filter((p) => p.comm === comm)
    .map((p) => p.pid);
}

describe('MCP over loopback HTTP', { timeout: 90_000 }, () => {
  for (const [name, era, expected] of ERAS) {
    it(`diagnoses the NULL dereference in one dbg_start call, ${name}`, async () => {
      const server = await startNetworkServer(['--http', '127.0.0.1:0']);
      const c = await server.connect({ era });
      expect(c.client.getProtocolEra()).toBe(expected);
      const r = await c.call('dbg_start', { program: fixture('crash'), args: ['segv'] });
      expect(r.isError).toBe(false);
      expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
      expect(r.data.views.crash.hint).toMatch(/NULL pointer dereference in store/);
      // The session outlives the request that made it: a later request finds it.
      const listed = await c.call('dbg_sessions', {});
      expect(listed.data.sessions.map((s: { id: string }) => s.id)).toEqual([r.data.session_id]);
      expect((await c.call('dbg_close', { session_id: r.data.session_id })).isError).toBe(false);
    });

    it(`sends progress, and a client's cancel ends a long dbg_start at once, its session closed, ${name}`, async () => {
      const server = await startNetworkServer(['--http', '127.0.0.1:0']);
      const c = await server.connect({ era });
      const controller = new AbortController();
      const messages: string[] = [];
      let spin: number[] = [];
      const call = c.call(
        'dbg_start',
        { program: fixture('spin'), timeout_ms: 120_000 },
        {
          signal: controller.signal,
          onprogress: (p) => {
            messages.push(p.message ?? '');
            if (/^running for/.test(p.message ?? '') && !controller.signal.aborted) {
              spin = pidsOf(server, 'spin');
              controller.abort();
            }
          },
        },
      );
      await expect(call).rejects.toThrow(/abort/i);
      expect(messages.slice(0, 2)).toEqual(['starting the debugger', 'running the program']);
      expect(spin).toHaveLength(1);
      // The tool's signal fired: its call ended long before its 120 s, and a start nobody waits
      // for any more is closed, its program with it (one with a request_id is kept for its retry:
      // retries.test.ts).
      const logged = await server.waitForLog(
        (l) => l.message === 'tool call' && l.tool === 'dbg_start',
        'the cancelled call to end',
        60_000,
      );
      expect(logged.durationMs).toBeLessThan(120_000);
      expect((await c.call('dbg_sessions', {})).data.sessions).toEqual([]);
      await until(() => !alive(spin[0] as number), 'the program to be killed', 10_000);
    });
  }
});

describe('the front door', { timeout: 90_000 }, () => {
  it('refuses no token and a wrong token (401), a bad Host or Origin (403), and logs no token', async () => {
    const server = await startNetworkServer(['--http', '127.0.0.1:0', '--token-file', tokenFile(`alice:${ALICE}\n`)]);
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = (extra: Record<string, string>) =>
      server.raw('/mcp', { method: 'POST', headers: { ...headers, ...extra }, body: init });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect((await post({ authorization: `Bearer ${BOB}` })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${ALICE}`, host: 'evil.example:80' })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${ALICE}`, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${ALICE}`, origin: 'http://localhost:3000' })).status).toBe(200);
    // The SDK client: refused without the token, served with it.
    await expect(server.connect()).rejects.toThrow();
    const c = await server.connect({ token: ALICE });
    expect((await c.call('dbg_sessions', {})).isError).toBe(false);
    // The log lines come on stderr, which may trail the answers on the socket.
    for (const reason of ['no_token', 'bad_token', 'bad_host', 'bad_origin']) {
      await server.waitForLog(
        (l) => l.message === 'HTTP request refused' && l.reason === reason,
        `the ${reason} log line`,
      );
    }
    const all = JSON.stringify(server.logs);
    expect(all).not.toContain(ALICE);
    expect(all).not.toContain(BOB);
  });

  it('answers /healthz to anyone, and /metrics only with a token', async () => {
    const server = await startNetworkServer(['--http', '127.0.0.1:0', '--token-file', tokenFile(`alice:${ALICE}\n`)]);
    const health = await server.raw('/healthz');
    expect(health).toMatchObject({ status: 200, body: 'ok\n' });
    expect((await server.raw('/metrics')).status).toBe(401);
    expect((await server.raw('/metrics', { headers: { authorization: `Bearer ${BOB}` } })).status).toBe(401);
    const metrics = await server.raw('/metrics', { headers: { authorization: `Bearer ${ALICE}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(metrics.body, 'dbg_mcp_http_refusals_total{reason="no_token"}')).toBe(1);
    expect(sample(metrics.body, 'dbg_mcp_http_refusals_total{reason="bad_token"}')).toBe(1);
    expect((await server.raw('/elsewhere', { headers: { authorization: `Bearer ${ALICE}` } })).status).toBe(404);
  });

  it('/metrics shows the session a call opened, by backend and state', async () => {
    const server = await startNetworkServer(['--http', '127.0.0.1:0']);
    const c = await server.connect();
    const r = await c.call('dbg_start', { program: fixture('crash'), args: ['segv'] });
    expect(r.data.session.state).toBe('stopped');
    const text = (await server.raw('/metrics')).body;
    expect(sample(text, 'dbg_mcp_sessions{backend="gdb",state="stopped"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_sessions{backend="gdb",state="running"}')).toBe(0);
    expect(sample(text, 'dbg_mcp_mcp_sessions')).toBe(1);
  });

  it('/metrics counts the tool call just made, when the server layer reports calls', async (ctx) => {
    const server = await startNetworkServer(['--http', '127.0.0.1:0']);
    const c = await server.connect();
    const r = await c.call('dbg_start', { program: fixture('crash'), args: ['segv'] });
    expect(r.isError).toBe(false);
    const text = (await server.raw('/metrics')).body;
    if (!text.split('\n').some((l) => l.startsWith('dbg_mcp_tool_calls_total{'))) {
      ctx.skip('createServer does not call Metrics.toolCall yet (the transport handoff, item 2)');
    }
    expect(sample(text, 'dbg_mcp_tool_calls_total{tool="dbg_start",outcome="ok"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_tool_call_duration_seconds_count{tool="dbg_start"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_answer_bytes_total{tool="dbg_start"}')).toBeGreaterThan(500);
  });

  it("puts the token's name in the call's log line, when the server layer logs it", async (ctx) => {
    const server = await startNetworkServer(['--http', '127.0.0.1:0', '--token-file', tokenFile(`alice:${ALICE}\n`)]);
    const c = await server.connect({ token: ALICE });
    await c.call('dbg_sessions', {});
    const line = await server.waitForLog((l) => l.message === 'tool call', 'the call log line');
    if (!('client' in line)) ctx.skip('createServer does not log the client name yet (the transport handoff, item 1)');
    expect(line.client).toBe('alice');
  });
});

describe('start-up refusals', { timeout: 60_000 }, () => {
  it('refuses a non-loopback address without --allow-remote, and without a token file', async () => {
    const bare = await refusedStart(['--http', '0.0.0.0:0']);
    expect(bare.code).toBe(2);
    expect(bare.said).toMatch(
      /0\.0\.0\.0:0 is not a loopback address: serving beyond this machine needs --allow-remote and --token-file/,
    );
    const noTokens = await refusedStart(['--http', '0.0.0.0:0', '--allow-remote']);
    expect(noTokens.code).toBe(2);
    expect(noTokens.said).toMatch(/needs --token-file/);
  });

  it('refuses a token file others can read, and a port already taken', async () => {
    const loose = tokenFile(`alice:${ALICE}\n`, 0o644);
    const r = await refusedStart(['--http', '127.0.0.1:0', '--token-file', loose]);
    expect(r.code).toBe(2);
    expect(r.said).toContain(`token file ${loose}: has mode 0644: only its owner may read it (chmod 600 ${loose})`);
    expect(r.said).not.toContain(ALICE);
    const first = await startNetworkServer(['--http', '127.0.0.1:0']);
    const taken = await refusedStart(['--http', `127.0.0.1:${new URL(first.url as string).port}`]);
    expect(taken.code).toBe(2);
    expect(taken.said).toMatch(/EADDRINUSE/);
  });

  it('serves beyond loopback with both flags, saying so in its log', async () => {
    const server = await startNetworkServer([
      '--http',
      '0.0.0.0:0',
      '--allow-remote',
      '--token-file',
      tokenFile(`alice:${ALICE}\n`),
    ]);
    expect(server.logs.find((l) => l.message === 'dbg-mcp serving')).toMatchObject({ remote: true });
    await server.waitForLog((l) => /^listening beyond loopback \(--allow-remote\)/.test(l.message), 'the warning');
    const port = new URL(server.url as string).port;
    const health = await server.raw('/metrics', {
      headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${ALICE}` },
    });
    expect(health.status).toBe(200);
  });
});

describe('signals', { timeout: 90_000 }, () => {
  /** A server with a stopped session and a dbg_start still waiting on a spinning program. */
  async function busyServer(): Promise<{
    server: NetworkServer;
    inFlight: Promise<unknown>;
    pids: number[];
  }> {
    const server = await startNetworkServer(['--http', '127.0.0.1:0']);
    const c = await server.connect();
    const stopped = await c.call('dbg_start', { program: fixture('hello'), stop: 'main' });
    expect(stopped.data.session.state).toBe('stopped');
    let running!: () => void;
    const isRunning = new Promise<void>((r) => {
      running = r;
    });
    const inFlight = c.call(
      'dbg_start',
      { program: fixture('spin'), timeout_ms: 120_000 },
      { onprogress: (p) => /^running for/.test(p.message ?? '') && running() },
    );
    inFlight.catch(() => {});
    await isRunning;
    const pids = descendants(server.child.pid).map((p) => p.pid);
    expect(describeProcs(descendants(server.child.pid)).join('\n')).toMatch(/gdb[\s\S]*hello|hello[\s\S]*gdb/);
    expect(pidsOf(server, 'spin')).toHaveLength(1);
    return { server, inFlight, pids };
  }

  it('SIGTERM with a call in flight: the call is answered, the server exits 0, no process is left', async () => {
    const { server, inFlight, pids } = await busyServer();
    server.child.kill('SIGTERM');
    const answer = (await inFlight) as { isError: boolean; code?: string; data: any };
    // Closing its session ended the wait: the call came back with an answer, not a dropped
    // stream, and the answer says why (not that gdb exited).
    expect(answer).toMatchObject({ isError: true, code: 'no_session' });
    expect(answer.data.error.message).toMatch(/^session [0-9a-f]{8} is closed: the server is shutting down$/);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.logs.find((l) => l.message === 'shut down')).toMatchObject({ callsAnswered: true });
    await until(() => pids.every((p) => !alive(p)), `no process left of ${pids.join(', ')}`, 10_000);
  });

  it('a second SIGTERM exits at once, and the orphan guard still leaves no process', async () => {
    const { server, pids } = await busyServer();
    server.child.kill('SIGTERM');
    await server.waitForLog((l) => l.message === 'shutting down', 'the shutdown to begin');
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.logs.some((l) => l.message === 'second signal during shutdown: exiting now')).toBe(true);
    await until(() => pids.every((p) => !alive(p)), `no process left of ${pids.join(', ')}`, 10_000);
  });

  it('SIGHUP reloads the tokens, and keeps them when the new file is refused', async () => {
    const file = tokenFile(`alice:${ALICE}\n`);
    const server = await startNetworkServer(['--http', '127.0.0.1:0', '--token-file', file]);
    const metrics = (token: string) => server.raw('/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect((await metrics(ALICE)).status).toBe(200);
    expect((await metrics(BOB)).status).toBe(401);
    writeFileSync(file, `bob:${BOB}\n`);
    server.child.kill('SIGHUP');
    await server.waitForLog((l) => l.message === 'tokens reloaded', 'the reload');
    expect((await metrics(ALICE)).status).toBe(401);
    expect((await metrics(BOB)).status).toBe(200);
    chmodSync(file, 0o644);
    server.child.kill('SIGHUP');
    const refused = await server.waitForLog(
      (l) => l.message === 'tokens not reloaded: the ones in force stay',
      'the refusal',
    );
    expect(refused.error).toMatch(/mode 0644/);
    expect((await metrics(BOB)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});
