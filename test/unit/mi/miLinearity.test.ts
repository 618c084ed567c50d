// Parsing and splitting must stay linear in the size of a line: GDB can send megabyte records
// (memory reads, deep stacks), and a quadratic step turns those into minutes. Each test times
// size N and 10N, interleaved (so a busy machine slows both alike), best of several runs after a
// warm-up, and allows a ratio of 30: linear work shows about 10, a quadratic step about 100.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MiLineSplitter } from '../../../src/protocols/mi/miLineSplitter.js';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';

const MAX_RATIO = 30;
const TIMEOUT = 60_000;

// A collection of garbage from earlier runs landing inside a timed run is noise, not the
// parser's cost: collect before each one (the worker's gc, exposed for this file).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function time(run: () => void): number {
  collect();
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** Times make(n) and make(10n) through work, and checks the result of the large one. */
function scaling<T>(n: number, make: (n: number) => T, work: (input: T) => unknown, check: (output: unknown) => void) {
  const small = make(n);
  const large = make(n * 10);
  check(work(large));
  work(small);
  let tSmall = Number.POSITIVE_INFINITY;
  let tLarge = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 9; i++) {
    tSmall = Math.min(
      tSmall,
      time(() => work(small)),
    );
    tLarge = Math.min(
      tLarge,
      time(() => work(large)),
    );
  }
  return { ratio: tLarge / Math.max(tSmall, 0.05), tSmall, tLarge };
}

function expectRecord(kind: string) {
  return (output: unknown) => expect((output as { kind: string }).kind).toBe(kind);
}

describe('parser linearity', () => {
  it(
    'a 5 MB c-string without escapes',
    () => {
      const r = scaling(500_000, (n) => `~"${'x'.repeat(n)}"`, parseMiLine, expectRecord('console'));
      expect(r.ratio, JSON.stringify(r)).toBeLessThanOrEqual(MAX_RATIO);
    },
    TIMEOUT,
  );

  it(
    'a 5 MB c-string full of escapes and octal UTF-8',
    () => {
      const piece = 'a \\"quoted\\" word\\t d\\303\\251j\\303\\240 \\\\ \\345\\245\\275\\n';
      const r = scaling(
        500_000,
        (n) => `~"${piece.repeat(Math.ceil(n / piece.length))}"`,
        parseMiLine,
        expectRecord('console'),
      );
      expect(r.ratio, JSON.stringify(r)).toBeLessThanOrEqual(MAX_RATIO);
    },
    TIMEOUT,
  );

  it(
    'many short strings with a single escape at the very end of the line',
    () => {
      // The trap: a per-string indexOf('\\') would scan to the end of the line for each string.
      const r = scaling(
        100_000,
        (n) => `^done,l=[${Array.from({ length: n }, () => '"abcdef"').join(',')}],tail="\\n"`,
        parseMiLine,
        expectRecord('result'),
      );
      expect(r.ratio, JSON.stringify(r)).toBeLessThanOrEqual(MAX_RATIO);
    },
    TIMEOUT,
  );

  it(
    'a 50,000-element list of frames',
    () => {
      const frame = (i: number) =>
        `frame={level="${i}",addr="0x0000555555555${(i % 4096).toString(16).padStart(3, '0')}",func="recurse",file="deep.c",fullname="/home/user/project/deep.c",line="12",arch="i386:x86-64"}`;
      const r = scaling(
        5_000,
        (n) => `8^done,stack=[${Array.from({ length: n }, (_, i) => frame(i)).join(',')}]`,
        parseMiLine,
        (output) => {
          const record = output as { kind: string; results: { stack: unknown[] } };
          expect(record.kind).toBe('result');
          expect(record.results.stack).toHaveLength(50_000);
        },
      );
      expect(r.ratio, JSON.stringify(r)).toBeLessThanOrEqual(MAX_RATIO);
    },
    TIMEOUT,
  );

  it(
    'a tuple with many repeated keys',
    () => {
      const r = scaling(
        2_000,
        (n) => `^done,t={${Array.from({ length: n }, (_, i) => `addr="${i}"`).join(',')}}`,
        parseMiLine,
        expectRecord('result'),
      );
      expect(r.ratio, JSON.stringify(r)).toBeLessThanOrEqual(MAX_RATIO);
    },
    TIMEOUT,
  );
});

describe('splitter linearity', () => {
  const line = (n: number) => Buffer.from(`~"${'y'.repeat(n)}"\n`);
  for (const chunkSize of [1024, 64 * 1024]) {
    it(
      `a 10 MB line fed in ${chunkSize}-byte chunks`,
      () => {
        // 1 MB against 10 MB: both past the sizes the allocator keeps at hand, so the ratio
        // measures the splitter, not where fresh memory comes from.
        const r = scaling(
          1_000_000,
          line,
          (data) => {
            const splitter = new MiLineSplitter();
            let out: string[] = [];
            for (let i = 0; i < data.length; i += chunkSize) {
              const lines = splitter.push(data.subarray(i, i + chunkSize));
              if (lines.length > 0) out = lines;
            }
            return out;
          },
          (output) => {
            const lines = output as string[];
            expect(lines).toHaveLength(1);
            expect(lines[0]).toHaveLength(10_000_003);
          },
        );
        expect(r.ratio, JSON.stringify(r)).toBeLessThanOrEqual(MAX_RATIO);
      },
      TIMEOUT,
    );
  }

  it(
    'a 1 MB line fed one byte at a time',
    () => {
      const r = scaling(
        100_000,
        line,
        (data) => {
          const splitter = new MiLineSplitter();
          let count = 0;
          for (let i = 0; i < data.length; i++) count += splitter.push(data.subarray(i, i + 1)).length;
          return count;
        },
        (count) => expect(count).toBe(1),
      );
      expect(r.ratio, JSON.stringify(r)).toBeLessThanOrEqual(MAX_RATIO);
    },
    TIMEOUT,
  );
});
