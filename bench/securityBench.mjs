#!/usr/bin/env node
// The bounds of issue 11, timed (npm test checks only that they hold, never how fast):
// - stdin: while a 64 KiB dbg_io write waits for a stopped program that does not read, another
//   session's calls are answered: dbg_sessions latency during the write (target < 100 ms; it
//   once froze the whole server until killed);
// - breakpoints: 1,000 sets in one session cost the same each (they once re-listed the table at
//   each set: 31 s for 1,000);
// - the session cap under a burst: 200 parallel dbg_start with --max-sessions 2, every answer
//   back and no more than 2 gdbs.
//
//   npm run build && node bench/securityBench.mjs

import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildFixtures, fixture, median, ms, nowMs, ok, startServer } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const WRITE_BYTES = 65536;
const LATENCY_MAX_MS = 100;
const BREAKPOINTS = 1000;
const BURST = 200;

/** dbg_sessions, over and over, while a big write to a stopped program waits for its deadline. */
async function stdinRow() {
  const server = await startServer();
  try {
    const writer = ok(await server.call('dbg_start', { program: fixture('stdin_echo'), stop: 'main' }), 'dbg_start')
      .data.session_id;
    ok(await server.call('dbg_start', { program: fixture('hello'), stop: 'main' }), 'dbg_start');
    const data = `${'a'.repeat(99)}\n`.repeat(WRITE_BYTES / 100 + 1).slice(0, WRITE_BYTES);
    let done = false;
    const write = server.call('dbg_io', { session_id: writer, action: 'write', data }).then((a) => {
      done = true;
      return a;
    });
    const latencies = [];
    while (!done) latencies.push((await server.call('dbg_sessions', {})).ms);
    const written = ok(await write, 'dbg_io write');
    // The 95th percentile: a loaded 2-core machine stalls any process now and then (measured
    // here: single calls of 30-120 ms at random points, the median near 2 ms).
    const sorted = [...latencies].sort((a, b) => a - b);
    const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
    const max = sorted[sorted.length - 1];
    return {
      name: `stdin: dbg_sessions during a ${WRITE_BYTES / 1024} KiB write to a stopped program`,
      measured: `p95 ${ms(p95)}, median ${ms(median(latencies))}, max ${ms(max)} (${latencies.length} calls)`,
      target: `p95 < ${LATENCY_MAX_MS} ms`,
      ratio: `the write answered in ${ms(written.ms)}: ${written.data.taken} taken, ${written.data.waiting} waiting`,
      pass: p95 < LATENCY_MAX_MS && written.data.waiting > 0,
    };
  } finally {
    await server.close();
  }
}

/** 1,000 breakpoints set one by one: the first and the last hundred timed apart. */
async function breakpointsRow() {
  const server = await startServer(['--max-breakpoints', String(BREAKPOINTS)]);
  try {
    const id = ok(await server.call('dbg_start', { program: fixture('hello'), stop: 'main' }), 'dbg_start').data
      .session_id;
    const times = [];
    for (let i = 0; i < BREAKPOINTS; i++) {
      const kind =
        i % 2 === 0 ? { location: 'add' } : { kind: 'dprintf', location: 'add', format: 'a=%d\\n', format_args: ['a'] };
      times.push(ok(await server.call('dbg_breakpoints', { session_id: id, action: 'set', ...kind }), 'set').ms);
    }
    const total = times.reduce((a, b) => a + b, 0);
    const first = median(times.slice(0, 100));
    const last = median(times.slice(-100));
    return {
      name: `breakpoints: ${BREAKPOINTS} sets in one session (half dprintf)`,
      measured: `${ms(total)} in all; median ${ms(first)} for the first 100, ${ms(last)} for the last 100`,
      target: 'the last 100 < 2× the first 100',
      ratio: 'issue 11: 31 s for 1,000, each set re-listing the table',
      pass: last < 2 * first,
    };
  } finally {
    await server.close();
  }
}

/** Debuggers under `pid`: processes named gdb whose parent is not one (a gdb's fork is named gdb too). */
function gdbsUnder(pid) {
  const procs = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      procs.push({
        pid: Number(name),
        comm: stat.slice(stat.indexOf('(') + 1, close),
        ppid: Number(stat.slice(close + 2).split(' ')[1]),
      });
    } catch {
      // gone
    }
  }
  const children = new Map();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const under = [];
  for (const queue = [pid]; queue.length > 0; ) {
    for (const c of children.get(queue.shift()) ?? []) {
      under.push(c);
      queue.push(c.pid);
    }
  }
  const gdbs = new Set(under.filter((p) => p.comm === 'gdb').map((p) => p.pid));
  return under.filter((p) => gdbs.has(p.pid) && !gdbs.has(p.ppid)).length;
}

async function burstRow() {
  // No warm debugger: the row counts the gdbs under the server, and a pooled one is no session's.
  const server = await startServer(['--max-sessions', '2', '--warm', '0']);
  try {
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, gdbsUnder(server.pid));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const t0 = nowMs();
    const answers = await Promise.all(
      Array.from({ length: BURST }, () => server.call('dbg_start', { program: fixture('hello'), stop: 'main' })),
    );
    const elapsed = nowMs() - t0;
    sampling = false;
    await sampler;
    const succeeded = answers.filter((a) => !a.isError).length;
    return {
      name: `session cap: ${BURST} parallel dbg_start, --max-sessions 2`,
      measured: `${succeeded} opened, ${BURST - succeeded} refused, all answered in ${ms(elapsed)}`,
      target: 'exactly 2 opened, at most 2 gdbs',
      ratio: `most gdbs at once: ${most} (issue 11: 117)`,
      pass: succeeded === 2 && most <= 2,
    };
  } finally {
    await server.close();
  }
}

export async function runSecurityBench() {
  await buildFixtures();
  return [await stdinRow(), await breakpointsRow(), await burstRow()];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runSecurityBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
