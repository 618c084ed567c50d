#!/usr/bin/env node
// Throughput of the built MI line splitter + parser (dist/), against V8's JSON.parse on the same
// records re-encoded as JSON: JSON.parse is native code and about the practical limit for
// turning text into objects, so the ratio says how much room is left.
//
//   npx tsc -p tsconfig.json && node bench/parserBench.mjs
//
// Inputs come from the shared seeded generator (../shared/bench/mi-gen.mjs) and are cached in
// bench/.data/ (git-ignored): 50,000 and 500,000 synthetic lines, and "big" (three huge lines).

import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatBenchTable } from './benchTable.mjs';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '..');
/** The shared generator: `shared/bench/mi-gen.mjs` beside the checkout, or beside a parent (a worktree). */
function findGenerator() {
  for (let dir = path.dirname(repoRoot); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'bench', 'mi-gen.mjs');
    if (existsSync(candidate) || path.dirname(dir) === dir) return candidate;
  }
}
const generator = process.env.BENCH_MI_GEN ?? findGenerator();
const dataDir = path.join(benchDir, '.data');
const CHUNK = 64 * 1024; // what a pipe read delivers at most

// Targets are ratios to a reference measured in the same run, never absolute speeds (this VM and
// another differ by 2.5× in cold start alone). Measured on a loaded 2-core VM: synthetic 1.02× to
// 1.09× JSON.parse; big 1.9× to 3.6× (its huge strings make both sides' time swing with the
// collector); scaling 8.4× to 10.1×.
const TARGETS = { syntheticVsJson: 1.5, bigVsJson: 5, maxScaling: 12 };

/** The generator's output for `args`, generated once and cached. */
function input(name, args) {
  const file = path.join(dataDir, `${name}.mi`);
  if (!existsSync(file)) {
    if (!existsSync(generator)) throw new Error(`generator not found at ${generator}`);
    mkdirSync(dataDir, { recursive: true });
    const partial = `${file}.partial`;
    const fd = openSync(partial, 'w');
    const run = spawnSync(process.execPath, [generator, ...args], { stdio: ['ignore', fd, 'inherit'] });
    closeSync(fd);
    if (run.status !== 0) throw new Error(`mi-gen.mjs ${args.join(' ')} failed (${run.status ?? run.signal})`);
    renameSync(partial, file);
  }
  return readFileSync(file);
}

async function loadBuilt() {
  const dist = path.join(repoRoot, 'dist', 'protocols', 'mi');
  const parser = path.join(dist, 'miParser.js');
  if (!existsSync(parser)) throw new Error('dist/ is missing: run `npx tsc -p tsconfig.json` first');
  const { parseMiLine } = await import(pathToFileURL(parser).href);
  const { MiLineSplitter } = await import(pathToFileURL(path.join(dist, 'miLineSplitter.js')).href);
  return { parseMiLine, MiLineSplitter };
}

/** Best wall time of `runs` calls after `warmups` untimed ones, in milliseconds. */
function best(fn, runs, warmups = 2) {
  for (let i = 0; i < warmups; i++) fn();
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    min = Math.min(min, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return min;
}

/** Splitter + parser over the whole stream, fed as a pipe would. Returns the record count. */
function parseStream(mi, bytes) {
  const splitter = new mi.MiLineSplitter();
  let records = 0;
  let raw = 0;
  for (let at = 0; at < bytes.length; at += CHUNK) {
    for (const line of splitter.push(bytes.subarray(at, at + CHUNK))) {
      if (mi.parseMiLine(line).kind === 'raw') raw++;
      records++;
    }
  }
  for (const line of splitter.end()) {
    if (mi.parseMiLine(line).kind === 'raw') raw++;
    records++;
  }
  return { records, raw };
}

/** The same records as JSON lines, and the best time for JSON.parse to read them all. */
/** The same records as JSON lines, for JSON.parse to read: the reference. */
function jsonLines(mi, bytes) {
  const lines = bytes.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => JSON.stringify(mi.parseMiLine(line)));
}

function throughputRow(mi, name, bytes, target, runs) {
  const { raw } = parseStream(mi, bytes);
  if (raw > 0) throw new Error(`${name}: ${raw} lines did not parse`);
  const json = jsonLines(mi, bytes);
  const parseJson = () => {
    for (const text of json) JSON.parse(text);
  };
  // The two take turns, a run each, so a busy moment on a shared machine hits both sides.
  best(() => parseStream(mi, bytes), 0);
  best(parseJson, 0);
  let ms = Number.POSITIVE_INFINITY;
  let jsonMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    ms = Math.min(
      ms,
      best(() => parseStream(mi, bytes), 1, 0),
    );
    jsonMs = Math.min(jsonMs, best(parseJson, 1, 0));
  }
  const mbPerSec = bytes.length / 1e6 / (ms / 1000);
  const ratio = ms / jsonMs;
  return {
    name,
    measured: `${ratio.toFixed(2)}× the time of JSON.parse (${mbPerSec.toFixed(1)} MB/s)`,
    target: `≤ ${target}×`,
    ratio: 'JSON.parse of the same records as JSON, in the same run',
    pass: ratio <= target,
  };
}

export async function runParserBench() {
  const mi = await loadBuilt();
  const small = input('synthetic-50000-1', ['50000', '1']);
  const big = input('big', ['big']);
  const synthetic = throughputRow(mi, 'mi parse: synthetic 50,000 lines', small, TARGETS.syntheticVsJson, 9);
  const bigRow = throughputRow(mi, 'mi parse: big (3 huge lines)', big, TARGETS.bigVsJson, 9);

  // Scaling: ten times the lines should cost about ten times the time. The two sizes take turns,
  // so a busy moment on a shared machine hits both rather than one.
  const large = input('synthetic-500000-1', ['500000', '1']);
  parseStream(mi, large);
  let smallMs = Number.POSITIVE_INFINITY;
  let largeMs = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 4; round++) {
    smallMs = Math.min(
      smallMs,
      best(() => parseStream(mi, small), 2, round === 0 ? 2 : 0),
    );
    largeMs = Math.min(
      largeMs,
      best(() => parseStream(mi, large), 1, 0),
    );
  }
  const scaling = largeMs / smallMs;
  const scalingRow = {
    name: 'mi parse: 500,000 vs 50,000 lines',
    measured: `${scaling.toFixed(2)}× the time`,
    target: `≤ ${TARGETS.maxScaling}× the time`,
    ratio: 'the 50,000 lines, in the same run',
    pass: scaling <= TARGETS.maxScaling,
  };
  return [synthetic, bigRow, scalingRow];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runParserBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
