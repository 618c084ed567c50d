// The built server (dist/dbg-mcp.js) serving HTTP on a loopback port or a unix socket, as a
// child process this test owns (it can SIGTERM, SIGHUP or SIGKILL it), with SDK clients over
// Streamable HTTP and raw HTTP requests for what a client library would not send (a bad Host).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach } from 'vitest';
import { unixSocketFetch } from '../../src/transport/unixSocketFetch.js';
import type { CallResult } from './mcp.js';
import { fixturesDir, repoRoot, serverArgs } from './paths.js';
import { killQuietly } from './procfs.js';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface NetClient {
  client: Client;
  call(
    name: string,
    args: Record<string, unknown>,
    options?: { signal?: AbortSignal; onprogress?: (p: { progress: number; message?: string }) => void },
  ): Promise<CallResult>;
  close(): Promise<void>;
}

export interface NetworkServer {
  child: ChildProcess;
  /** http://127.0.0.1:PORT/mcp, or undefined when only a socket is served. */
  url: string | undefined;
  socket: string | undefined;
  /** JSON log lines the server wrote, parsed. */
  logs: any[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** An SDK client; `era: 'auto'` negotiates the 2026-07-28 protocol, the default is 2025's. */
  connect(options?: { token?: string; era?: 'legacy' | 'auto'; viaSocket?: boolean }): Promise<NetClient>;
  /** One raw HTTP request to the port (or the socket with viaSocket). */
  raw(
    path: string,
    options?: { method?: string; headers?: Record<string, string>; body?: string; viaSocket?: boolean },
  ): Promise<RawAnswer>;
  /** Resolves with the first log record `match` accepts, waiting up to `ms`. */
  waitForLog(match: (record: any) => boolean, what: string, ms?: number): Promise<any>;
}

const running: NetworkServer[] = [];
const clients: NetClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const s of running.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) {
      s.child.kill('SIGTERM');
      const timer = setTimeout(() => killQuietly(s.child.pid ?? 0), 10_000);
      await s.exited;
      clearTimeout(timer);
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh 0700 directory removed after the test. */
export function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-net-'));
  dirs.push(dir);
  return dir;
}

function spawnServer(
  args: string[],
  extraEnv: Record<string, string> = {},
): { child: ChildProcess; logs: any[]; lines: string[] } {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'dist', 'dbg-mcp.js'), 'serve', '--root', fixturesDir, ...serverArgs(args)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', ...extraEnv },
    },
  );
  const logs: any[] = [];
  const lines: string[] = [];
  let rest = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      lines.push(line);
      try {
        logs.push(JSON.parse(line));
      } catch {
        // a plain-text refusal ("dbg-mcp: …") is kept in lines only
      }
    }
  });
  child.stdout?.resume();
  return { child, logs, lines };
}

/** Runs the server with `args` expecting it to refuse to start: its exit code and what it said. */
export async function refusedStart(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; said: string }> {
  const { child, lines } = spawnServer(args, extraEnv);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  clearTimeout(timer);
  return { code, said: lines.join('\n') };
}

function rawRequest(
  target: { port?: number; socketPath?: string },
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...(target.socketPath ? { socketPath: target.socketPath } : { host: '127.0.0.1', port: target.port }),
        path,
        method: options.method ?? 'GET',
        headers: { host: `localhost`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The built server with `args`; `extraEnv` adds to its environment (PATH and HOME only, else). */
export async function startNetworkServer(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<NetworkServer> {
  const { child, logs, lines } = spawnServer(args, extraEnv);
  // 'close' rather than 'exit': by then every line the server wrote to stderr has been read.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const waitForLog = async (match: (record: any) => boolean, what: string, ms = 60_000): Promise<any> => {
    const started = Date.now();
    for (;;) {
      const found = logs.find(match);
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`server exited before ${what}: ${lines.join('\n')}`);
      if (Date.now() - started > ms)
        throw new Error(`waited ${ms} ms for ${what}; the server said: ${lines.join('\n')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const ready = await waitForLog((r) => r.message === 'dbg-mcp serving', 'the server to listen');
  const url: string | undefined = ready.http;
  const socket: string | undefined = ready.unix;
  const port = url ? Number(new URL(url).port) : undefined;

  const server: NetworkServer = {
    child,
    url,
    socket,
    logs,
    exited,
    waitForLog,
    raw: (path, options = {}) =>
      rawRequest(options.viaSocket ? { socketPath: socket as string } : { port: port as number }, path, options),
    async connect(options = {}) {
      const viaSocket = options.viaSocket ?? url === undefined;
      const transport = new StreamableHTTPClientTransport(
        new URL(viaSocket ? 'http://localhost/mcp' : (url as string)),
        {
          ...(viaSocket ? { fetch: unixSocketFetch(socket as string) } : {}),
          ...(options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {}),
        },
      );
      const client = new Client(
        { name: 'dbg-mcp-net-test', version: '1' },
        options.era === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await client.connect(transport);
      const net: NetClient = {
        client,
        async call(name, callArgs, callOptions = {}) {
          const result = await client.callTool(
            { name, arguments: callArgs },
            {
              timeout: 60_000,
              ...(callOptions.signal ? { signal: callOptions.signal } : {}),
              ...(callOptions.onprogress ? { onprogress: callOptions.onprogress } : {}),
            },
          );
          const data = (result.structuredContent ?? {}) as any;
          const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
          return {
            data,
            text,
            isError: result.isError === true,
            ...(result.isError ? { code: data.error?.code } : {}),
            size: JSON.stringify(result).length,
          };
        },
        async close() {
          await client.close().catch(() => {});
        },
      };
      clients.push(net);
      return net;
    },
  };
  running.push(server);
  return server;
}
