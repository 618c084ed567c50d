#!/usr/bin/env node
// Cold start. The server: spawn of `node dist/dbg-mcp.js` to its answer to `initialize` (what a
// client waits for before its first call), beside a bare `node -e 0` for scale. A session: one
// dbg_start that stops at main, against gdb's own `gdb -nx -batch -ex start`. The sides take turns.
//
//   npm run build && node bench/coldStartBench.mjs

import { pathToFileURL } from 'node:url';
import { buildFixtures, fixture, interleave, median, ms, ok, startServer, timeProcess } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const SPAWNS = 15;
const STARTS = 15;
/**
 * The server's ready time as a multiple of a bare `node -e 0` in the same run, not in ms: measured
 * 90 ms on one machine and 229 ms on another, but 3.7× and 4.5× node on both.
 */
const READY_RATIO = 6;

export async function runColdStartBench() {
  await buildFixtures();
  const serverReady = async () => {
    const server = await startServer();
    await server.close();
    return [server.readyMs];
  };
  const bareNode = async () => [(await timeProcess(process.execPath, ['-e', '0'])).ms];
  await serverReady();
  const ready = await interleave(SPAWNS, serverReady, bareNode);

  const program = fixture('hello');
  const server = await startServer();
  let first;
  try {
    const ours = async () => {
      const answer = ok(await server.call('dbg_start', { program, stop: 'main' }), 'dbg_start');
      if (answer.data.outcome?.kind !== 'stopped' || answer.data.outcome.frame?.function !== 'main') {
        throw new Error(`dbg_start did not stop at main: ${answer.text.slice(0, 300)}`);
      }
      ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
      return [answer.ms];
    };
    const gdb = async () => {
      const run = await timeProcess('gdb', ['-nx', '-q', '-batch', '-ex', 'start', program]);
      if (!/main \(/.test(run.out)) throw new Error(`gdb -batch -ex start said: ${run.out.slice(0, 300)}`);
      return [run.ms];
    };
    await ours();
    await gdb();
    first = await interleave(STARTS, ours, gdb);
  } finally {
    await server.close();
  }
  return [
    {
      name: `cold start: server spawn to initialize answer (median of ${SPAWNS})`,
      measured: `${(median(ready.a) / median(ready.b)).toFixed(2)}× (${ms(median(ready.a))})`,
      target: `≤ ${READY_RATIO}×`,
      ratio: `a bare node -e 0 in the same run (${ms(median(ready.b))})`,
      pass: median(ready.a) / median(ready.b) <= READY_RATIO,
    },
    {
      name: `cold start: dbg_start to the first stop at main (median of ${STARTS})`,
      measured: ms(median(first.a)),
      target: 'reported',
      ratio: `${(median(first.a) / median(first.b)).toFixed(2)}× gdb -batch -ex start (${ms(median(first.b))})`,
      pass: true,
    },
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runColdStartBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
