#!/usr/bin/env node
// Scale: 16 sessions at once, each in a stop-step-inspect loop (dbg_run continue to a breakpoint,
// dbg_run next, dbg_inspect stack), against one session alone (turns of 2 s each, so drift hits
// both): the total throughput, and the server's RSS per session, read from /proc (gdb and the
// programs are other processes): from the warmed-up server with no session open to the median of
// its RSS after each turn of all 16. Most of that growth is V8's heap sizing itself to a busier
// server (it keeps the memory after the sessions close), not memory the sessions hold.
//
//   npm run build && node bench/scaleBench.mjs

import { pathToFileURL } from 'node:url';
import {
  buildFixtures,
  fixture,
  markerLocation,
  mb,
  median,
  memoryOf,
  nowMs,
  ok,
  startServer,
} from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const SESSIONS = 16;
const WINDOW_MS = 2000;
const TURNS = 4;
const WARM_MS = 2000;
const RSS_PER_SESSION_MAX = 3 * 1024 * 1024;

/** Stop-step-inspect loops of one session until `until`; counts loops and the calls that failed. */
async function loop(server, sessionId, until, errors) {
  let loops = 0;
  while (nowMs() < until) {
    for (const [tool, args] of [
      ['dbg_run', { session_id: sessionId, action: 'continue' }],
      ['dbg_run', { session_id: sessionId, action: 'next' }],
      ['dbg_inspect', { session_id: sessionId, view: 'stack' }],
    ]) {
      const answer = await server.call(tool, args);
      if (answer.isError || answer.data.session?.state !== 'stopped') {
        errors.push(`${tool}: ${answer.text.slice(0, 200)}`);
        return loops;
      }
    }
    loops++;
  }
  return loops;
}

export async function runScaleBench() {
  await buildFixtures();
  const program = fixture('counter');
  const breakpoint = markerLocation('counter.c', 'loop');
  const server = await startServer();
  const errors = [];
  const open = async () =>
    ok(
      await server.call('dbg_start', { program, breakpoints: [{ location: breakpoint }], inspect: ['none'] }),
      'dbg_start',
    ).data.session_id;
  try {
    const openAll = async () => {
      const ids = [];
      for (let i = 0; i < SESSIONS; i++) ids.push(await open());
      return ids;
    };
    const together = async (ids, ms) => {
      const until = nowMs() + ms;
      return Promise.all(ids.map((id) => loop(server, id, until, errors)));
    };
    // The server warmed up by one session (code loaded, JIT), then closed: the RSS before.
    const warm = await open();
    await loop(server, warm, nowMs() + WARM_MS, errors);
    ok(await server.call('dbg_close', { session_id: warm }), 'dbg_close');
    const before = memoryOf(server.pid);

    // One session looping alone (the others idle), then all 16 at once, taking turns.
    const ids = await openAll();
    const opened = memoryOf(server.pid);
    /** RSS after each turn of all 16 (where V8's collector stands varies: the median of them). */
    const samples = [];
    let single = 0;
    let total = 0;
    const counts = new Array(SESSIONS).fill(0);
    for (let turn = 0; turn < TURNS; turn++) {
      single += (await together(ids.slice(0, 1), WINDOW_MS))[0];
      (await together(ids, WINDOW_MS)).forEach((n, i) => {
        counts[i] += n;
        total += n;
      });
      samples.push(memoryOf(server.pid).rss);
    }
    const after = { rss: median(samples), peak: memoryOf(server.pid).peak };
    const perSession = (after.rss - before.rss) / SESSIONS;
    const seconds = (TURNS * WINDOW_MS) / 1000;
    return [
      {
        name: `scale: ${SESSIONS} sessions at once, stop-step-inspect loops`,
        measured: `${(total / seconds).toFixed(1)} loops/s (${errors.length} errors)`,
        target: 'no errors',
        ratio: `${(total / single).toFixed(2)}× one session alone (${(single / seconds).toFixed(1)} loops/s)`,
        pass: errors.length === 0 && Math.min(...counts) > 0,
        errors,
      },
      {
        name: `scale: server RSS per session (${SESSIONS} open)`,
        measured: mb(perSession),
        target: `< ${mb(RSS_PER_SESSION_MAX)}`,
        ratio: `${mb(before.rss)} with none open, ${mb(after.rss)} with ${SESSIONS} (peak ${mb(after.peak)}); ${mb((opened.rss - before.rss) / SESSIONS)} each just opened`,
        pass: perSession < RSS_PER_SESSION_MAX,
      },
    ];
  } finally {
    await server.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runScaleBench();
  console.log(formatBenchTable(rows));
  for (const e of rows.flatMap((r) => r.errors ?? []).slice(0, 5)) console.error(e);
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
