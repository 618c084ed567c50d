#!/usr/bin/env node
// The crash turn: one dbg_start that runs a program to its SIGSEGV and answers with the crash
// view, against what a person types for the same evidence:
// `gdb -nx -batch -ex run -ex bt -ex "info locals" --args crash segv`. The two take turns.
//
//   npm run build && node bench/crashTurnBench.mjs

import { pathToFileURL } from 'node:url';
import { buildFixtures, fixture, interleave, median, ms, ok, startServer, timeProcess } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const RUNS = 15;
const MAX_RATIO = 1.3;

export async function runCrashTurnBench() {
  await buildFixtures();
  const program = fixture('crash');
  const server = await startServer();
  try {
    const ours = async () => {
      const answer = ok(await server.call('dbg_start', { program, args: ['segv'] }), 'dbg_start');
      const crash = answer.data.views?.crash;
      if (crash?.signal !== 'SIGSEGV' || !Array.isArray(crash.stack) || crash.stack.length < 4) {
        throw new Error(`dbg_start did not answer with the crash view: ${answer.text.slice(0, 300)}`);
      }
      // Closing is the next call's business, not part of this turn.
      ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
      return [answer.ms];
    };
    const gdb = async () => {
      const run = await timeProcess('gdb', [
        '-nx',
        '-q',
        '-batch',
        '-ex',
        'run',
        '-ex',
        'bt',
        '-ex',
        'info locals',
        '--args',
        program,
        'segv',
      ]);
      if (!/SIGSEGV/.test(run.out) || !/#3 .*main/.test(run.out))
        throw new Error(`gdb -batch said: ${run.out.slice(0, 300)}`);
      return [run.ms];
    };
    await ours();
    await gdb();
    const { a, b } = await interleave(RUNS, ours, gdb);
    const ratio = median(a) / median(b);
    return [
      {
        name: `crash turn: dbg_start to the crash view (median of ${RUNS})`,
        measured: ms(median(a)),
        target: `≤ ${MAX_RATIO}× gdb -batch`,
        ratio: `${ratio.toFixed(2)}× gdb -batch run, bt, info locals (${ms(median(b))})`,
        pass: ratio <= MAX_RATIO,
      },
    ];
  } finally {
    await server.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runCrashTurnBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
