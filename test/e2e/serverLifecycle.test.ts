// However the server ends — killed, terminated, or its client gone — no gdb and no debugged
// program outlives it.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, fixturesDir, repoRoot } from '../helpers/paths.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pids: number[], withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return pids.every((p) => !alive(p));
}

/** A raw JSON-RPC line client, so the test controls the server process itself. */
class RawClient {
  private buffer = '';
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: any) => void>();
  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        const msg = JSON.parse(line);
        if (msg.id !== undefined) this.waiting.get(msg.id)?.(msg);
      }
    });
  }
  request(method: string, params: unknown): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }
  notify(method: string): void {
    this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }
}

async function serverWithPrograms(): Promise<{ child: ChildProcess; pids: number[] }> {
  const child = spawn(process.execPath, [join(repoRoot, 'dist', 'dbg-mcp.js'), '--root', fixturesDir], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const client = new RawClient(child);
  await client.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'lifecycle', version: '1' },
  });
  client.notify('notifications/initialized');
  const call = (args: Record<string, unknown>) =>
    client.request('tools/call', { name: 'dbg_start', arguments: args }).then((r) => r.result.structuredContent);
  // One program spinning, one blocked reading its terminal, one stopped at main.
  const started = [
    await call({ program: fixture('spin'), timeout_ms: 200, on_timeout: 'return' }),
    await call({ program: fixture('stdin_echo'), stdin_eof: false, stdin: '', timeout_ms: 200, on_timeout: 'return' }),
    await call({ program: fixture('hello'), stop: 'main' }),
  ];
  const sessions = (await client.request('tools/call', { name: 'dbg_sessions', arguments: {} })).result
    .structuredContent.sessions;
  expect(started.map((s) => s.session_id).sort()).toEqual(sessions.map((s: { id: string }) => s.id).sort());
  const pids = sessions.flatMap((s: { pids: number[]; debugger_pid: number }) => [...s.pids, s.debugger_pid]);
  expect(pids.length).toBe(6);
  for (const p of pids) expect(alive(p)).toBe(true);
  return { child, pids };
}

describe('server lifecycle', () => {
  it('SIGKILL of the server: gdb sees end of input and takes its program along, within 2 s', async () => {
    const { child, pids } = await serverWithPrograms();
    child.kill('SIGKILL');
    expect(await gone(pids, 2000)).toBe(true);
  });

  it('SIGTERM: an orderly shutdown within 3 s, nothing left', async () => {
    const { child, pids } = await serverWithPrograms();
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const began = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - began).toBeLessThan(3000);
    expect(await gone(pids, 500)).toBe(true);
  });

  it('the client closing stdin: an orderly shutdown within 3 s, nothing left', async () => {
    const { child, pids } = await serverWithPrograms();
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const began = Date.now();
    child.stdin?.end();
    expect(await exited).toBe(0);
    expect(Date.now() - began).toBeLessThan(3000);
    expect(await gone(pids, 500)).toBe(true);
  });
});
