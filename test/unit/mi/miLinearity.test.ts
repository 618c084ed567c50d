// Parsing and splitting must stay linear in the size of a line: GDB can send megabyte records
// (memory reads, deep stacks), and a quadratic step turns those into minutes. Each test counts the
// characters (or bytes) the parser or splitter reads, scans, copies and allocates (helpers/opCount.ts)
// for an input of size N and of 10N: linear work is a fixed number of units per input character at
// both sizes, so ten times the input costs ten times the units; a quadratic step (an indexOf per
// string that runs to the end of the line, a splitter that rescans its leftover) costs a hundred.
// Counts, not times, so a busy machine cannot fail these; the timing is `npm run bench`
// (bench/linearityBench.mjs), which also sees what a count cannot (a rope of string pieces that
// the garbage collector copies again and again).

import { describe, expect, it } from 'vitest';
import { MiLineSplitter } from '../../../src/protocols/mi/miLineSplitter.js';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';
import type { MiRecord } from '../../../src/protocols/mi/miRecords.js';
import { countedBuffer, countedString, countingBufferAllocations, type Tally } from '../../helpers/opCount.js';

/**
 * Ten times the input may cost at most this many times the units: linear work measures 9.5 to
 * 11.5 (the splitter's blocks double, so what it allocates rounds up), a quadratic step ~100.
 */
const MAX_GROWTH = 20;
/** Units per input character: measured 2.0 to 3.0 for the parser, 4.3 to 5.6 for the splitter. */
const PARSER_PER_CHAR = 4;
const SPLITTER_PER_BYTE = 8;

interface Work<T> {
  units: number;
  size: number;
  output: T;
}

function parseCounted(line: string): Work<MiRecord> {
  const tally: Tally = { units: 0 };
  const output = parseMiLine(countedString(line, tally));
  return { units: tally.units, size: line.length, output };
}

/**
 * Counts work(make(n)) and work(make(10n)); checks the growth, the units per input unit of each
 * (at most `perUnit`), and the large output. Answers both counts for the failure message.
 */
function expectLinear<T>(
  n: number,
  make: (n: number) => string | Buffer,
  work: (input: string | Buffer) => Work<T>,
  perUnit: number,
  check: (output: T) => void,
) {
  const small = work(make(n));
  const large = work(make(n * 10));
  check(large.output);
  const seen = JSON.stringify({
    small: { size: small.size, units: small.units },
    large: { size: large.size, units: large.units },
  });
  expect(large.units / small.units, seen).toBeLessThanOrEqual(MAX_GROWTH);
  expect(small.units / small.size, seen).toBeLessThanOrEqual(perUnit);
  expect(large.units / large.size, seen).toBeLessThanOrEqual(perUnit);
}

const kind = (k: string) => (output: MiRecord) => expect(output.kind).toBe(k);
const parse = (input: string | Buffer) => parseCounted(input as string);

describe('parser linearity (characters read)', () => {
  it('a c-string without escapes', () => {
    expectLinear(50_000, (n) => `~"${'x'.repeat(n)}"`, parse, PARSER_PER_CHAR, kind('console'));
  });

  it('a c-string full of escapes and octal UTF-8', () => {
    const piece = 'a \\"quoted\\" word\\t d\\303\\251j\\303\\240 \\\\ \\345\\245\\275\\n';
    expectLinear(
      50_000,
      (n) => `~"${piece.repeat(Math.ceil(n / piece.length))}"`,
      parse,
      PARSER_PER_CHAR,
      kind('console'),
    );
  });

  it('many short strings with a single escape at the very end of the line', () => {
    // The trap: a per-string indexOf('\\') would scan to the end of the line for each string.
    expectLinear(
      2_000,
      (n) => `^done,l=[${Array.from({ length: n }, () => '"abcdef"').join(',')}],tail="\\n"`,
      parse,
      PARSER_PER_CHAR,
      kind('result'),
    );
  });

  it('a list of frames (5,000 in the large one)', () => {
    const frame = (i: number) =>
      `frame={level="${i}",addr="0x0000555555555${(i % 4096).toString(16).padStart(3, '0')}",func="recurse",file="deep.c",fullname="/home/user/project/deep.c",line="12",arch="i386:x86-64"}`;
    expectLinear(
      500,
      (n) => `8^done,stack=[${Array.from({ length: n }, (_, i) => frame(i)).join(',')}]`,
      parse,
      PARSER_PER_CHAR,
      (output) => {
        expect(output.kind).toBe('result');
        expect((output as unknown as { results: { stack: unknown[] } }).results.stack).toHaveLength(5_000);
      },
    );
  });

  it('a tuple with many repeated keys', () => {
    expectLinear(
      2_000,
      (n) => `^done,t={${Array.from({ length: n }, (_, i) => `addr="${i}"`).join(',')}}`,
      parse,
      PARSER_PER_CHAR,
      (output) => {
        expect(output.kind).toBe('result');
        expect((output as unknown as { results: { t: { addr: unknown[] } } }).results.t.addr).toHaveLength(20_000);
      },
    );
  });

  it('the counter sees the quadratic trap it is there to catch', () => {
    // The same line read the way the trap reads it (an indexOf('\\') from each string's start)
    // costs the square of the line; the test above would fail on it.
    const line = (n: number) => `^done,l=[${Array.from({ length: n }, () => '"abcdef"').join(',')}],tail="\\n"`;
    const trap = (text: string): number => {
      const tally: Tally = { units: 0 };
      const s = countedString(text, tally);
      for (let at = text.indexOf('"'); at !== -1; at = text.indexOf('"', text.indexOf('"', at + 1) + 1)) {
        s.indexOf('\\', at + 1);
      }
      return tally.units;
    };
    expect(trap(line(20_000)) / trap(line(2_000))).toBeGreaterThan(50);
  });
});

describe('splitter linearity (bytes scanned, decoded, copied and allocated)', () => {
  const line = (n: number) => Buffer.from(`~"${'y'.repeat(n)}"\n`);
  /** Feeds `data` in `chunkSize` pieces; answers the lines of the last push that completed any. */
  const feed =
    (chunkSize: number) =>
    (input: string | Buffer): Work<string[]> => {
      const data = input as Buffer;
      const tally: Tally = { units: 0 };
      const output = countingBufferAllocations(tally, () => {
        const splitter = new MiLineSplitter();
        let out: string[] = [];
        for (let i = 0; i < data.length; i += chunkSize) {
          const lines = splitter.push(countedBuffer(data.subarray(i, i + chunkSize), tally));
          if (lines.length > 0) out = lines;
        }
        return out;
      });
      return { units: tally.units, size: data.length, output };
    };

  for (const chunkSize of [1024, 64 * 1024]) {
    it(`a 1 MB line fed in ${chunkSize}-byte chunks`, () => {
      expectLinear(100_000, line, feed(chunkSize), SPLITTER_PER_BYTE, (lines) => {
        expect(lines).toHaveLength(1);
        expect(lines[0]).toHaveLength(1_000_003);
      });
    });
  }

  it('a 100 kB line fed one byte at a time', () => {
    expectLinear(10_000, line, feed(1), SPLITTER_PER_BYTE, (lines) => {
      expect(lines).toHaveLength(1);
      expect(lines[0]).toHaveLength(100_003);
    });
  });

  it('many lines in one chunk: each scanned and decoded once', () => {
    const lines = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => `~"line ${i}"\n`).join(''));
    expectLinear(1_000, lines, feed(64 * 1024), SPLITTER_PER_BYTE, (out) => expect(out.length).toBeGreaterThan(0));
  });
});
