#!/usr/bin/env node
// Runs every benchmark, prints one table, and exits non-zero when any target is missed.
//   npm run bench   (builds first)
// A benchmark is an async function returning rows (see benchTable.mjs); add new ones to BENCHES.

import { formatBenchTable } from './benchTable.mjs';
import { runParserBench } from './parserBench.mjs';

const BENCHES = [runParserBench];

const rows = [];
for (const bench of BENCHES) rows.push(...(await bench()));
console.log(formatBenchTable(rows));
const missed = rows.filter((row) => !row.pass);
if (missed.length > 0) {
  console.error(`${missed.length} target(s) missed: ${missed.map((row) => row.name).join(', ')}`);
  process.exitCode = 1;
}
