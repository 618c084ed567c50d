#!/usr/bin/env node
// Windows programs under Wine (backend winedbg): the time to the first stop at main.
//   warm prefix: a server whose prefix and wineserver are up, one dbg_start … stop main each;
//   cold wineserver: a new server on a prefix already on disk, spawn to the first stop (the
//     server leases the prefix, starts `wineserver -p` and warms it before the session);
//   new prefix: the same with no prefix at all (wineboot makes one: 695 MB), once.
// Beside them, for scale: the same dbg_start of a Linux program on the same server.
// The bench's cache is its own (under the temp dir), so the user's is never touched; the new
// prefix is made in a directory of its own and deleted afterwards.
//
//   npm run build && node bench/winedbgBench.mjs

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildFixtures, childEnv, fixture, fixturesDir, median, ms, nowMs, ok, serverMain } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const WARM_STARTS = 7;
const COLD_SERVERS = 3;
const TOOLS = ['wine', 'winedbg', 'wineserver', 'gdb', 'x86_64-w64-mingw32-gcc'];
const benchCache = path.join(tmpdir(), `dbg-mcp-bench-xdg-${process.getuid?.() ?? 0}`);

function missingTools() {
  const missing = TOOLS.filter((t) => {
    try {
      execFileSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  return missing.length > 0 ? `${missing.join(', ')} not installed` : undefined;
}

/** The built server with its cache under `xdg`; `logs` keeps its JSON log lines (Wine's prefix report). */
async function startServer(xdg) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverMain, '--root', fixturesDir],
    env: { ...childEnv, XDG_CACHE_HOME: xdg },
    stderr: 'pipe',
  });
  const logs = [];
  transport.stderr?.on('data', (chunk) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const client = new Client({ name: 'dbg-mcp-bench', version: '1' });
  await client.connect(transport);
  return {
    logs,
    async call(name, args) {
      const t0 = nowMs();
      const result = await client.callTool({ name, arguments: args }, { timeout: 600_000 });
      return {
        ms: nowMs() - t0,
        data: result.structuredContent ?? {},
        text: (result.content ?? []).map((c) => c.text ?? '').join('\n'),
        isError: result.isError === true,
      };
    },
    close: () => client.close().catch(() => {}),
  };
}

/** dbg_start of a Windows fixture to main, then dbg_close: the start's wall time. */
async function startToMain(server, program) {
  const answer = ok(await server.call('dbg_start', { backend: 'winedbg', program, stop: 'main' }), 'dbg_start');
  if (answer.data.outcome?.frame?.function !== 'main') {
    throw new Error(`dbg_start did not stop at main: ${answer.text.slice(0, 300)}`);
  }
  ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
  return answer.ms;
}

/** The server's "Wine prefix ready" log line: how long creating and warming its prefix took. */
function prefixReport(server) {
  for (const line of server.logs) {
    try {
      const entry = JSON.parse(line);
      if (entry.message === 'Wine prefix ready') return entry;
    } catch {
      // not a JSON line
    }
  }
  return undefined;
}

/** A new server, spawn to the first stop at main, closed after. */
async function firstStop(xdg, program) {
  const t0 = nowMs();
  const server = await startServer(xdg);
  try {
    await startToMain(server, program);
    return { ms: nowMs() - t0, prefix: prefixReport(server) };
  } finally {
    await server.close();
  }
}

export async function runWinedbgBench() {
  const load = loadavg()[0].toFixed(1);
  const missing = missingTools();
  if (missing !== undefined) {
    return [{ name: 'winedbg: time to the first stop', measured: `not measured: ${missing}`, target: '—', pass: true }];
  }
  await buildFixtures();
  const program = path.join(fixturesDir, 'build', 'windows', 'locals.exe');
  if (!existsSync(program)) throw new Error(`${program} was not built`);

  // Once, unmeasured: the bench cache's prefix exists and the launcher is built.
  await firstStop(benchCache, program);
  const cold = [];
  for (let i = 0; i < COLD_SERVERS; i++) cold.push(await firstStop(benchCache, program));

  const server = await startServer(benchCache);
  const warm = [];
  const linux = [];
  try {
    await startToMain(server, program);
    for (let i = 0; i < WARM_STARTS; i++) {
      warm.push(await startToMain(server, program));
      const answer = ok(await server.call('dbg_start', { program: fixture('hello'), stop: 'main' }), 'dbg_start');
      ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
      linux.push(answer.ms);
    }
  } finally {
    await server.close();
  }

  // No prefix at all: made in a cache of its own, deleted afterwards (695 MB).
  const fresh = mkdtempSync(path.join(tmpdir(), 'dbg-mcp-bench-new-prefix-'));
  let created;
  try {
    created = await firstStop(fresh, program);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }

  const warmUp = (r) => (r.prefix ? `wineserver started and warmed in ${ms(r.prefix.warmMs)}` : 'no prefix report');
  return [
    {
      name: `winedbg: dbg_start to the first stop at main, warm prefix (median of ${WARM_STARTS})`,
      measured: ms(median(warm)),
      target: 'reported',
      ratio: `${(median(warm) / median(linux)).toFixed(1)}× the same start of a Linux program (${ms(median(linux))}); load ${load} at the start`,
      pass: true,
    },
    {
      name: `winedbg: new server to the first stop, prefix on disk (median of ${COLD_SERVERS})`,
      measured: ms(median(cold.map((c) => c.ms))),
      target: 'reported',
      ratio: warmUp(cold[cold.length >> 1]),
      pass: true,
    },
    {
      name: 'winedbg: new server to the first stop, no prefix yet (once)',
      measured: ms(created.ms),
      target: 'reported',
      ratio: created.prefix
        ? `prefix created in ${ms(created.prefix.createMs)}, warmed in ${ms(created.prefix.warmMs)}`
        : 'no prefix report',
      pass: true,
    },
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runWinedbgBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
