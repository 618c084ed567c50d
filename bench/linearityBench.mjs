#!/usr/bin/env node
// Linearity in time of the built MI parser and line splitter (dist/): each input of size N is the
// reference for the same input at 10N, measured in the same run, taking turns, best of several
// after a warm-up with garbage collected before each timed run. Linear work shows about 10×, a
// quadratic step about 100×. The unit tests count the characters read instead
// (test/unit/mi/miLinearity.test.ts), which no busy machine can fail; the time is measured here
// because it also sees what a count cannot, such as a rope of small strings that each collection
// copies again (measured once: 5 MB of escapes took 50× the time of 0.5 MB).
//
//   npx tsc -p tsconfig.json && node bench/linearityBench.mjs

import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { repoRoot } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

/** Ten times the input may take at most this many times as long. */
const MAX_RATIO = 30;
const ROUNDS = 9;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc');

function time(run) {
  collect();
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function loadBuilt() {
  const dist = path.join(repoRoot, 'dist', 'protocols', 'mi');
  if (!existsSync(path.join(dist, 'miParser.js'))) throw new Error('dist/ is missing: run `npx tsc -p tsconfig.json`');
  const { parseMiLine } = await import(pathToFileURL(path.join(dist, 'miParser.js')).href);
  const { MiLineSplitter } = await import(pathToFileURL(path.join(dist, 'miLineSplitter.js')).href);
  return { parseMiLine, MiLineSplitter };
}

/** Best times of work(make(n)) and work(make(10n)), taking turns; `check` sees the large output. */
function scaling(n, make, work, check) {
  const small = make(n);
  const large = make(n * 10);
  check(work(large));
  work(small);
  let tSmall = Number.POSITIVE_INFINITY;
  let tLarge = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ROUNDS; i++) {
    tSmall = Math.min(
      tSmall,
      time(() => work(small)),
    );
    tLarge = Math.min(
      tLarge,
      time(() => work(large)),
    );
  }
  return { tSmall, tLarge, ratio: tLarge / Math.max(tSmall, 0.05) };
}

function expectKind(kind) {
  return (record) => {
    if (record.kind !== kind) throw new Error(`parsed as ${record.kind}, not ${kind}: ${record.error ?? ''}`);
  };
}

function cases(mi) {
  const parse = (line) => mi.parseMiLine(line);
  const piece = 'a \\"quoted\\" word\\t d\\303\\251j\\303\\240 \\\\ \\345\\245\\275\\n';
  const frame = (i) =>
    `frame={level="${i}",addr="0x0000555555555${(i % 4096).toString(16).padStart(3, '0')}",func="recurse",file="deep.c",fullname="/home/user/project/deep.c",line="12",arch="i386:x86-64"}`;
  const line = (n) => Buffer.from(`~"${'y'.repeat(n)}"\n`);
  const feed = (chunkSize) => (data) => {
    const splitter = new mi.MiLineSplitter();
    let out = [];
    for (let i = 0; i < data.length; i += chunkSize) {
      const lines = splitter.push(data.subarray(i, i + chunkSize));
      if (lines.length > 0) out = lines;
    }
    return out;
  };
  const oneLine = (length) => (lines) => {
    if (lines.length !== 1 || lines[0].length !== length) throw new Error(`expected one line of ${length}`);
  };
  return [
    ['parse: a 5 MB c-string without escapes', 500_000, (n) => `~"${'x'.repeat(n)}"`, parse, expectKind('console')],
    [
      'parse: a 5 MB c-string full of escapes',
      500_000,
      (n) => `~"${piece.repeat(Math.ceil(n / piece.length))}"`,
      parse,
      expectKind('console'),
    ],
    [
      'parse: 1,000,000 short strings, one escape at the end',
      100_000,
      (n) => `^done,l=[${Array.from({ length: n }, () => '"abcdef"').join(',')}],tail="\\n"`,
      parse,
      expectKind('result'),
    ],
    [
      'parse: 50,000 frames',
      5_000,
      (n) => `8^done,stack=[${Array.from({ length: n }, (_, i) => frame(i)).join(',')}]`,
      parse,
      expectKind('result'),
    ],
    [
      'parse: 20,000 repeated keys in a tuple',
      2_000,
      (n) => `^done,t={${Array.from({ length: n }, (_, i) => `addr="${i}"`).join(',')}}`,
      parse,
      expectKind('result'),
    ],
    // 1 MB against 10 MB: both past the sizes the allocator keeps at hand, so the ratio measures
    // the splitter, not where fresh memory comes from.
    ['split: a 10 MB line in 1 KiB chunks', 1_000_000, line, feed(1024), oneLine(10_000_003)],
    ['split: a 10 MB line in 64 KiB chunks', 1_000_000, line, feed(64 * 1024), oneLine(10_000_003)],
    [
      'split: a 1 MB line one byte at a time',
      100_000,
      line,
      (data) => {
        const splitter = new mi.MiLineSplitter();
        const out = [];
        for (let i = 0; i < data.length; i++) out.push(...splitter.push(data.subarray(i, i + 1)));
        return out;
      },
      oneLine(1_000_003),
    ],
  ];
}

export async function runLinearityBench() {
  const mi = await loadBuilt();
  const rows = [];
  for (const [name, n, make, work, check] of cases(mi)) {
    const r = scaling(n, make, work, check);
    rows.push({
      name: `linearity, ${name}`,
      measured: `${r.ratio.toFixed(1)}× the time for 10× the input`,
      target: `≤ ${MAX_RATIO}×`,
      ratio: `against the 1/10 input in the same run (${r.tSmall.toFixed(2)} ms)`,
      pass: r.ratio <= MAX_RATIO,
    });
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runLinearityBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
