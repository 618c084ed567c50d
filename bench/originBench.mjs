#!/usr/bin/env node
// The origin search's cost (issue 21): dbg_start origin=true on a program that works 0.1 s and
// 2 s before it fails, against a plain dbg_start of the same program to the same crash. The two
// take turns. Target: at most 3× (the search re-executes the program twice).
//
//   npm run build && node bench/originBench.mjs

import { pathToFileURL } from 'node:url';
import { buildFixtures, fixture, interleave, median, ms, ok, startServer } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const RUNS = 3;
const MAX_RATIO = 3;

export async function runOriginBench() {
  await buildFixtures();
  const program = fixture('origin_slow');
  const server = await startServer();
  const rows = [];
  try {
    for (const work of ['100', '2000']) {
      let bytes = 0;
      let technique = '';
      const withOrigin = async () => {
        const answer = ok(await server.call('dbg_start', { program, args: [work], origin: true }), 'dbg_start origin');
        const origin = answer.data.origin;
        if (origin?.kind !== 'write' || origin.write?.after !== '0x0') {
          throw new Error(`dbg_start origin=true did not name the write: ${answer.text.slice(0, 400)}`);
        }
        bytes = JSON.stringify(origin).length;
        technique = origin.technique;
        ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
        return [answer.ms];
      };
      const plain = async () => {
        const answer = ok(await server.call('dbg_start', { program, args: [work] }), 'dbg_start');
        if (answer.data.outcome?.signal !== 'SIGSEGV') throw new Error(`no crash: ${answer.text.slice(0, 300)}`);
        ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
        return [answer.ms];
      };
      const { a, b } = await interleave(RUNS, withOrigin, plain);
      const ratio = median(a) / median(b);
      rows.push({
        name: `origin: dbg_start origin=true, program failing after ${work} ms (${technique}; median of ${RUNS})`,
        measured: ms(median(a)),
        target: `≤ ${MAX_RATIO}× dbg_start`,
        ratio: `${ratio.toFixed(2)}× dbg_start to the crash (${ms(median(b))})`,
        pass: ratio <= MAX_RATIO,
      });
      rows.push({
        name: `origin: bytes of the origin part (${work} ms program)`,
        measured: `${bytes} B`,
        target: '< 1536 B',
        ratio: '',
        pass: bytes < 1536,
      });
    }
    return rows;
  } finally {
    await server.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runOriginBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
