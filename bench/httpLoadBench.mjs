#!/usr/bin/env node
// Load over Streamable HTTP: 32 SDK clients, each with its own MCP session and its own debugging
// session, all at once against one `serve --http --max-sessions 32`, each in a stop-step-inspect
// loop (dbg_run continue to a breakpoint, dbg_run next, dbg_inspect stack): errors (must be 0),
// calls per second, p50 and p99 of one call. Sessions are opened before and closed after the timed
// loops (starting 32 gdbs is the cold-start bench's business). The reference: the same 32
// workloads over stdio one after another (one client, one session at a time), loops timed alike. Then the
// 32 clients again while another client pipelines tools/list on connections it never reads from:
// the others must not slow down (its answers back up in its own sockets, not in the server).
//
//   npm run build && node bench/httpLoadBench.mjs     (HTTP_BENCH_LOOPS=N loops per client, default 10)

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  buildFixtures,
  childEnv,
  fixture,
  fixturesDir,
  markerLocation,
  mb,
  memoryOf,
  ms,
  nowMs,
  ok,
  serverMain,
  startServer,
} from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const CLIENTS = 32;
const LOOPS = Number(process.env.HTTP_BENCH_LOOPS ?? 10);
/** Connections the stalled client pipelines on, and requests it writes on each. */
const STALLED_SOCKETS = 4;
const STALLED_REQUESTS = 200;
/** With a stalled client, the others keep at least this share of their throughput. */
const STALL_MIN_RATIO = 0.75;
/** Turns of each kind (with and without the stalled client), alternating. */
const TURNS = 2;

/** CPU time (user + system, ms) a process has used, from /proc (clock ticks of 10 ms). */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Live processes below `root` (pid, ppid, comm, CPU ms): the debuggers and their programs. */
function descendants(root) {
  const stats = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (f[0] === 'Z') continue;
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      stats.push({ pid: Number(name), ppid: Number(f[1]), comm, ms: (Number(f[11]) + Number(f[12])) * 10 });
    } catch {
      // exited while listed
    }
  }
  const below = new Set([root]);
  const found = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of stats) {
      if (!below.has(p.pid) && below.has(p.ppid)) {
        below.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * Until the debuggers of the previous turn are gone (closing 32 sessions goes on in the
 * background for a while): a turn must not pay for the one before.
 */
async function settled(root) {
  const until = nowMs() + 20_000;
  while (descendants(root).some((p) => p.comm === 'gdb' || p.comm === 'counter') && nowMs() < until) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** CPU time (ms) of every live process below `root`: the debuggers and their programs. */
function descendantsCpuMs(root) {
  return descendants(root).reduce((sum, p) => sum + p.ms, 0);
}

function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** `serve --http 127.0.0.1:0`; resolves once its log says where it listens. */
async function startHttpServer(args) {
  const child = spawn(
    process.execPath,
    [serverMain, 'serve', '--http', '127.0.0.1:0', '--root', fixturesDir, ...args],
    {
      env: childEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      log += chunk.toString('utf8');
      if (log.length > 1_000_000) log = log.slice(-100_000);
      const m = /"message":"dbg-mcp serving"[^\n]*"http":"([^"]+)"/.exec(log);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${log.slice(-500)}`)));
  });
  return {
    url,
    pid: child.pid,
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** One SDK client over HTTP with the call shape of benchSupport's stdio client. */
async function httpClient(url) {
  const client = new Client({ name: 'dbg-mcp-http-bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    async call(name, args) {
      const t0 = nowMs();
      const result = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
      return {
        ms: nowMs() - t0,
        data: result.structuredContent ?? {},
        isError: result.isError === true,
        text: JSON.stringify(result.content).slice(0, 300),
      };
    },
    close: () => client.close().catch(() => {}),
  };
}

/** A debugging session for one client, stopped at the breakpoint. */
async function open(client, program, breakpoint) {
  const start = await client.call('dbg_start', { program, breakpoints: [{ location: breakpoint }], inspect: ['none'] });
  return ok(start, 'dbg_start').data.session_id;
}

/** LOOPS stop-step-inspect loops on one session: each call's latency, or the error. */
async function loops(client, id, latencies, errors) {
  for (let loop = 0; loop < LOOPS; loop++) {
    for (const [tool, args] of [
      ['dbg_run', { session_id: id, action: 'continue' }],
      ['dbg_run', { session_id: id, action: 'next' }],
      ['dbg_inspect', { session_id: id, view: 'stack' }],
    ]) {
      const answer = await client.call(tool, args).catch((e) => ({ isError: true, text: e.message, ms: 0, data: {} }));
      if (answer.isError || answer.data.session?.state !== 'stopped') errors.push(`${tool}: ${answer.text}`);
      else latencies.push(answer.ms);
    }
  }
}

/** Turns measured alike, added up: calls per second over their summed time, percentiles over all calls. */
function figures(turns) {
  const latencies = turns.flatMap((t) => t.latencies);
  const errors = turns.flatMap((t) => t.errors);
  const seconds = turns.reduce((sum, t) => sum + t.seconds, 0);
  const calls = latencies.length + errors.length;
  const cpu = (side) => turns.reduce((sum, t) => sum + t.cpu[side], 0) / calls;
  return {
    calls,
    perSecond: calls / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuServer: cpu('server'),
    cpuClients: cpu('clients'),
    cpuDebuggers: cpu('debuggers'),
    errors,
  };
}

/** All clients open their sessions, then loop at once (the measured part), then close. */
async function httpRun(server, program, breakpoint) {
  const url = server.url;
  const latencies = [];
  const errors = [];
  const failed = (what) => (e) => {
    errors.push(`${what}: ${e.message}${e.cause ? ` (${e.cause.code ?? e.cause.message})` : ''}`);
    return undefined;
  };
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => httpClient(url).catch(failed('connect'))));
  const ids = await Promise.all(clients.map((c) => c && open(c, program, breakpoint).catch(failed('dbg_start'))));
  const t0 = nowMs();
  const cpu0 = { server: cpuMs(server.pid), clients: cpuMs(process.pid), debuggers: descendantsCpuMs(server.pid) };
  await Promise.all(clients.map((c, i) => c && ids[i] && loops(c, ids[i], latencies, errors)));
  const seconds = (nowMs() - t0) / 1000;
  const cpu = {
    server: cpuMs(server.pid) - cpu0.server,
    clients: cpuMs(process.pid) - cpu0.clients,
    debuggers: descendantsCpuMs(server.pid) - cpu0.debuggers,
  };
  await Promise.all(
    clients.map((c, i) => c && ids[i] && c.call('dbg_close', { session_id: ids[i] }).catch(failed('dbg_close'))),
  );
  await Promise.all(clients.map((c) => c?.close()));
  return { latencies, errors, seconds, cpu };
}

/** The same workloads over one stdio server, one after another; only the loops are timed. */
async function stdioRun(program, breakpoint) {
  // No warm debugger: `settled` waits for no gdb under the server between clients.
  const server = await startServer(['--max-sessions', String(CLIENTS), '--warm', '0']);
  try {
    const latencies = [];
    const errors = [];
    let loopMs = 0;
    const cpu = { server: 0, clients: 0, debuggers: 0 };
    for (let i = -1; i < CLIENTS; i++) {
      await settled(server.pid);
      const id = await open(server, program, breakpoint);
      const t0 = nowMs();
      const cpu0 = { server: cpuMs(server.pid), clients: cpuMs(process.pid), debuggers: descendantsCpuMs(server.pid) };
      // The first round warms the server up and is not counted.
      await loops(server, id, i < 0 ? [] : latencies, i < 0 ? [] : errors);
      if (i >= 0) {
        loopMs += nowMs() - t0;
        cpu.server += cpuMs(server.pid) - cpu0.server;
        cpu.clients += cpuMs(process.pid) - cpu0.clients;
        cpu.debuggers += descendantsCpuMs(server.pid) - cpu0.debuggers;
      }
      await server.call('dbg_close', { session_id: id });
    }
    return figures([{ latencies, errors, seconds: loopMs / 1000, cpu }]);
  } finally {
    await server.close();
  }
}

/**
 * A client that stopped reading: an MCP session of its own, then STALLED_SOCKETS connections, each
 * with STALLED_REQUESTS tools/list requests (16 KB answers) written back to back and never read.
 */
async function stallClient(url) {
  const { host, port } = new URL(url);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stalled', version: '1' } },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const request = [
    `POST /mcp HTTP/1.1`,
    `Host: ${host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Mcp-Session-Id: ${session}`,
    'Mcp-Protocol-Version: 2025-11-25',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
  const sockets = [];
  for (let i = 0; i < STALLED_SOCKETS; i++) {
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    socket.pause(); // never reads: the server's answers pile up in this connection
    socket.write(request.repeat(STALLED_REQUESTS));
    sockets.push(socket);
  }
  return () => {
    for (const s of sockets) s.destroy();
  };
}

export async function runHttpLoadBench() {
  await buildFixtures();
  const program = fixture('counter');
  const breakpoint = markerLocation('counter.c', 'loop');
  const server = await startHttpServer(['--max-sessions', String(CLIENTS), '--warm', '0']);
  const plain = [];
  const beside = [];
  const rss = [];
  try {
    // Warm-up (code loaded, JIT), then turns with and without the stalled client, alternating so
    // that the machine's drift (it is shared) hits both alike.
    const warm = await httpClient(server.url);
    const warmId = await open(warm, program, breakpoint);
    await loops(warm, warmId, [], []);
    await warm.call('dbg_close', { session_id: warmId });
    await warm.close();
    for (let turn = 0; turn < TURNS; turn++) {
      for (const stalled of turn % 2 === 0 ? [false, true] : [true, false]) {
        process.stderr.write(`http: ${CLIENTS} clients${stalled ? ' beside a stalled one' : ''}…\n`);
        await settled(server.pid);
        const release = stalled ? await stallClient(server.url) : undefined;
        await new Promise((r) => setTimeout(r, 500)); // its answers fill its sockets (both kinds wait alike)
        (stalled ? beside : plain).push(await httpRun(server, program, breakpoint));
        if (release) {
          rss.push(memoryOf(server.pid).rss);
          release();
        }
      }
    }
  } finally {
    await server.close();
  }
  process.stderr.write('stdio: one by one…\n');
  const stdio = await stdioRun(program, breakpoint);
  const http = figures(plain);
  const stalled = figures(beside);
  const line = (f) =>
    `${f.perSecond.toFixed(1)} calls/s, p50 ${ms(f.p50)}, p99 ${ms(f.p99)} (${f.errors.length} errors)`;
  const cpu = (f) =>
    `CPU per call: server ${ms(f.cpuServer)}, clients ${ms(f.cpuClients)}, gdb+program ${ms(f.cpuDebuggers)}`;
  return [
    {
      name: `http: ${CLIENTS} clients at once, own sessions, stop-step-inspect (${http.calls} calls)`,
      measured: line(http),
      target: '0 errors',
      ratio: `${(http.perSecond / stdio.perSecond).toFixed(2)}× the calls/s of stdio one by one; ${cpu(http)}`,
      pass: http.errors.length === 0,
      errors: http.errors,
    },
    {
      name: `stdio: the same ${CLIENTS} clients one by one (${stdio.calls} calls)`,
      measured: line(stdio),
      target: '0 errors',
      ratio: `${cpu(stdio)}; machine load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
      pass: stdio.errors.length === 0,
      errors: stdio.errors,
    },
    {
      name: `http: the ${CLIENTS} clients beside a client that stopped reading (${STALLED_SOCKETS}×${STALLED_REQUESTS} tools/list unread)`,
      measured: line(stalled),
      target: `0 errors, ≥ ${STALL_MIN_RATIO}× the calls/s without it`,
      ratio: `${(stalled.perSecond / http.perSecond).toFixed(2)}× the calls/s, p99 ${(stalled.p99 / http.p99).toFixed(2)}× without it; server RSS while stalled ${rss.map(mb).join(', ')}`,
      pass: stalled.errors.length === 0 && stalled.perSecond >= STALL_MIN_RATIO * http.perSecond,
      errors: stalled.errors,
    },
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const rows = await runHttpLoadBench();
  console.log(formatBenchTable(rows));
  for (const e of rows.flatMap((r) => r.errors ?? []).slice(0, 5)) console.error(e);
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
