// What the benchmarks share: fixture programs, statistics, the built server driven over stdio
// with the MCP SDK client, and a bare gdb driven through a pipe (the reference: the same MI
// commands with nothing in between), plus the RSS of a process read from /proc.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const fixturesDir = path.join(repoRoot, 'fixtures', 'c');
/** The server measured: the build, or another entry point to compare (BENCH_SERVER_MAIN=path). */
export const serverMain = process.env.BENCH_SERVER_MAIN ?? path.join(repoRoot, 'dist', 'dbg-mcp.js');

/** The environment both sides get: nothing of the caller's beyond what a program needs. */
export const childEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };

// The fixture programs come from the same build as the tests' (scripts/buildFixtures.mjs), so a
// bench run and a test run share one set of binaries, keyed on what decides them, not on dates.
export { buildFixtures } from '../scripts/buildFixtures.mjs';

export function fixture(name) {
  return path.join(fixturesDir, 'build', name);
}

/** "file.c:N" of the line carrying `@marker` in a fixture source. */
export function markerLocation(file, marker) {
  const lines = readFileSync(path.join(fixturesDir, file), 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes(`@${marker}`));
  if (at < 0) throw new Error(`no @${marker} in ${file}`);
  return `${file}:${at + 1}`;
}

export function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function ms(value) {
  if (value >= 100) return `${Math.round(value)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

export function mb(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** VmRSS and VmHWM (peak) of a process, in bytes. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Runs `a` and `b` `times` times each, alternating which goes first; each returns samples, collected apart. */
export async function interleave(times, a, b) {
  const out = { a: [], b: [] };
  for (let i = 0; i < times; i++) {
    if (i % 2 === 0) {
      out.a.push(...(await a()));
      out.b.push(...(await b()));
    } else {
      out.b.push(...(await b()));
      out.a.push(...(await a()));
    }
  }
  return out;
}

/**
 * The built server (dist/dbg-mcp.js) over stdio with the SDK client, as an agent's client runs it.
 * `call` answers the parsed result with its wall time.
 */
export async function startServer(args = [], nodeArgs = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, serverMain, '--root', fixturesDir, ...args],
    env: childEnv,
    stderr: 'pipe',
  });
  // The server logs a JSON line per call: read it, as a client would, so the pipe never fills.
  const logs = [];
  transport.stderr?.on('data', (chunk) => {
    logs.push(chunk.toString('utf8'));
    if (logs.length > 200) logs.shift();
  });
  const client = new Client({ name: 'dbg-mcp-bench', version: '1' });
  const started = nowMs();
  await client.connect(transport);
  const readyMs = nowMs() - started;
  return {
    client,
    readyMs,
    logs,
    get pid() {
      return transport.pid;
    },
    async call(name, callArgs, timeoutMs = 120_000) {
      const t0 = nowMs();
      const result = await client.callTool({ name, arguments: callArgs }, { timeout: timeoutMs }).catch((e) => {
        // The server went away or went quiet: its own last warnings say why.
        const said = logs
          .join('')
          .split('\n')
          .filter((l) => /"level":"(warn|error)"/.test(l))
          .slice(-3);
        throw new Error(`${name}: ${e.message}${said.length > 0 ? `; the server said: ${said.join(' | ')}` : ''}`);
      });
      const elapsed = nowMs() - t0;
      const text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
      return {
        ms: elapsed,
        data: result.structuredContent ?? {},
        text,
        isError: result.isError === true,
        size: JSON.stringify(result).length,
      };
    },
    async close() {
      await client.close().catch(() => {});
    },
  };
}

/** Throws with the answer's text when a call failed: a benchmark of errors measures nothing. */
export function ok(answer, what) {
  if (answer.isError) throw new Error(`${what} failed: ${answer.text.slice(0, 400)}`);
  return answer;
}

/**
 * A bare gdb on MI through a pipe. `send` writes one command and resolves with its result line;
 * nothing is parsed beyond the token, which is the least any MI client can do.
 */
export class RawGdb {
  constructor(child) {
    this.child = child;
    this.nextToken = 1;
    this.pending = new Map();
    this.stopWaiters = [];
    this.stops = [];
    this.leftover = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => this.receive(text));
    child.stderr.resume();
    child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => child.on('exit', resolve));
  }

  /**
   * gdb with the settings the server gives its own (so both do the same work), the program
   * loaded with its output sent to /dev/null.
   */
  static async start(program, args = []) {
    const child = spawn('gdb', ['--interpreter=mi4', '-nx', '-q'], { env: childEnv, stdio: 'pipe' });
    const gdb = new RawGdb(child);
    const settings = [
      'mi-async on',
      'pagination off',
      'confirm off',
      'width 0',
      'height 0',
      'auto-load off',
      'breakpoint pending on',
      'startup-with-shell off',
      'print elements 200',
      'print repeats 10',
      'may-call-functions off',
      'debuginfod enabled off',
      'print max-depth 8',
    ];
    await Promise.all(settings.map((s) => gdb.send(`-gdb-set ${s}`)));
    await gdb.send('-inferior-tty-set /dev/null');
    await gdb.send(`-file-exec-and-symbols ${program}`);
    if (args.length > 0) await gdb.send(`-exec-arguments ${args.join(' ')}`);
    return gdb;
  }

  receive(text) {
    const lines = (this.leftover + text).split('\n');
    this.leftover = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^(\d+)\^(\w+)/.exec(line);
      if (m) {
        const entry = this.pending.get(Number(m[1]));
        if (entry) {
          this.pending.delete(Number(m[1]));
          if (m[2] === 'error') entry.reject(new Error(`${entry.command}: ${line}`));
          else entry.resolve(line);
        }
      } else if (line.startsWith('*stopped')) {
        const waiter = this.stopWaiters.shift();
        if (waiter) waiter(line);
        else this.stops.push(line);
      }
    }
  }

  send(command) {
    const token = this.nextToken++;
    return new Promise((resolve, reject) => {
      this.pending.set(token, { resolve, reject, command });
      this.child.stdin.write(`${token}${command}\n`);
    });
  }

  /** Runs the loaded program to its first stop at `location`; resolves with that `*stopped` record. */
  async runTo(location) {
    await this.send(`-break-insert -f -- ${location}`);
    await this.send('-exec-run');
    return this.stopped();
  }

  /** The next `*stopped` record (or one that already came). */
  stopped() {
    const early = this.stops.shift();
    if (early !== undefined) return Promise.resolve(early);
    return new Promise((resolve) => this.stopWaiters.push(resolve));
  }

  async close() {
    this.child.stdin.write('-gdb-exit\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Wall time of one command run to its end; its output is drained, the first 64 KiB kept. */
export function timeProcess(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(command, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let out = '';
    child.stdout.on('data', (chunk) => {
      if (out.length < 64 * 1024) out += chunk.toString('utf8');
    });
    child.stderr.resume();
    child.on('error', reject);
    child.on('exit', (code) => resolve({ ms: nowMs() - t0, code, out }));
  });
}
