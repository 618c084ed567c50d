#!/usr/bin/env node

// Runs every benchmark, prints one table, and exits non-zero when any target is missed.
//   npm run bench   (builds first)
// A benchmark is an async function returning rows (see benchTable.mjs); add new ones to BENCHES.
// Each measures against its reference in the same run, taking turns, so drift hits both sides.
// At the end, the leak check of the tests (scripts/leakCheck.mjs, issue 30): a process the benches
// started that is still alive fails the run, named with the bench that was running when it started.

import { describeLeaks, killAll, leaksAfterGrace, nowTicks, runScope, startTicks } from '../scripts/leakCheck.mjs';
import { repoRoot } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';
import { runColdStartBench } from './coldStartBench.mjs';
import { runCrashTurnBench } from './crashTurnBench.mjs';
import { runFiveTasksBench } from './fiveTasksBench.mjs';
import { runFiveTasksLldbBench } from './fiveTasksLldbBench.mjs';
import { runHttpLoadBench } from './httpLoadBench.mjs';
import { runHugeDataBench } from './hugeDataBench.mjs';
import { runLinearityBench } from './linearityBench.mjs';
import { runLldbBench } from './lldbBench.mjs';
import { runOriginBench } from './originBench.mjs';
import { runOverheadBench } from './overheadBench.mjs';
import { runParserBench } from './parserBench.mjs';
import { runScaleBench } from './scaleBench.mjs';
import { runSecurityBench } from './securityBench.mjs';
import { runShutdownBench } from './shutdownBench.mjs';
import { runWinedbgBench } from './winedbgBench.mjs';

const BENCHES = [
  ['per-call overhead', runOverheadBench],
  ['crash turn', runCrashTurnBench],
  ['five tasks', runFiveTasksBench],
  ['cold start', runColdStartBench],
  ['scale', runScaleBench],
  ['huge data', runHugeDataBench],
  ['HTTP load', runHttpLoadBench],
  ['MI parser', runParserBench],
  ['MI linearity', runLinearityBench],
  ['shutdown', runShutdownBench],
  ['winedbg', runWinedbgBench],
  ['issue 11 bounds', runSecurityBench],
  ['lldb', runLldbBench],
  ['five tasks, LLDB', runFiveTasksLldbBench],
  ['origin', runOriginBench],
];

const since = startTicks();
const spans = [];
const rows = [];
for (const [name, bench] of BENCHES) {
  process.stderr.write(`bench: ${name}…\n`);
  const span = { file: `bench "${name}"`, from: nowTicks(), to: Number.POSITIVE_INFINITY };
  spans.push(span);
  try {
    rows.push(...(await bench()));
  } catch (e) {
    // A benchmark that cannot run has missed its targets: say why in its row.
    rows.push({ name, measured: `error: ${(e?.message ?? String(e)).split('\n')[0]}`, target: '—', pass: false });
  }
  span.to = nowTicks();
}
console.log(formatBenchTable(rows));
const missed = rows.filter((row) => !row.pass);
if (missed.length > 0) {
  console.error(`${missed.length} target(s) missed: ${missed.map((row) => row.name).join(', ')}`);
  process.exitCode = 1;
}
const left = await leaksAfterGrace(runScope(repoRoot, process.pid, since));
if (left.length > 0) {
  killAll(left);
  console.error(`leak check: ${left.length} process(es) the benches started still alive at the end (killed now):`);
  for (const line of describeLeaks(left, spans)) console.error(`  ${line}`);
  process.exitCode = 1;
}
