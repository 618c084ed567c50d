// The built server (dist/dbg-mcp.js) as a child process this test owns, driven by raw JSON-RPC
// lines: the test can SIGKILL it, SIGTERM it or close its stdin, which the SDK client cannot.

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { withoutVersion } from './mcp.js';
import { fixturesDir, repoRoot, serverArgs } from './paths.js';

export class RawServer {
  private buffer = '';
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: any) => void>();
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        const msg = JSON.parse(line);
        if (msg.id !== undefined) this.waiting.get(msg.id)?.(msg);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) =>
      this.stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean)),
    );
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts the server with the fixtures as workspace root, and initialises MCP. */
  static async start(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RawServer> {
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'dist', 'dbg-mcp.js'), '--root', fixturesDir, ...serverArgs(args, env)],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', ...env },
      },
    );
    const server = new RawServer(child);
    await server.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    server.notify('notifications/initialized');
    return server;
  }

  request(method: string, params: unknown): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`, (e) => {
        if (e) reject(e);
      });
    });
  }

  notify(method: string): void {
    this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  /** A tool call's structuredContent (errors included: they carry `error`). */
  async call(name: string, args: Record<string, unknown>): Promise<any> {
    const r = await this.request('tools/call', { name, arguments: args });
    return r.result?.structuredContent ? withoutVersion(r.result.structuredContent) : r.error;
  }

  /** A tool call as the SDK harness gives it (helpers/mcp.ts): data, text, isError, code. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ data: any; text: string; isError: boolean; code?: string }> {
    const r = await this.request('tools/call', { name, arguments: args });
    if (r.error) throw new Error(`tools/call ${name}: ${JSON.stringify(r.error)}`);
    const data = withoutVersion(r.result.structuredContent);
    const text = (r.result.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');
    return { data, text, isError: r.result.isError === true, ...(r.result.isError ? { code: data.error?.code } : {}) };
  }

  /** Ends the server the way a client does: stdin closed, then the exit awaited (bounded). */
  async close(): Promise<void> {
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}
