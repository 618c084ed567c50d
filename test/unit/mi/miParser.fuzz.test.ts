// Fuzzing the MI parser and line splitter with fast-check: random text, MI-shaped text, golden
// transcripts (real gdb, test/golden/*.mi) mutated and cut at random points. The parser never
// throws and never loops; a line it cannot read comes back whole as a `raw` record; the splitter
// gives back the lines however the bytes were cut; and on mutated input the work stays linear:
// every line is parsed once more behind the counting Proxy of helpers/opCount.ts, and the
// characters it reads stay within a fixed number per input character (a count, not a time: a
// busy machine cannot fail it; a loop or a quadratic step can).
// FUZZ_RUNS sets the number of cases (default 100,000 in all, as in CI). Their time is the
// machine's: under the full suite on a loaded 2-core VM one test took past vitest's default 30 s,
// so each gets the deadline that only catches a hang.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiLineSplitter } from '../../../src/protocols/mi/miLineSplitter.js';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';
import type { MiRecord } from '../../../src/protocols/mi/miRecords.js';
import { countedString, type Tally } from '../../helpers/opCount.js';
import { HANG_TEST_MS } from '../../helpers/outcomes.js';
import { repoRoot } from '../../helpers/paths.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 100_000);
const KINDS = new Set(['result', 'exec', 'status', 'notify', 'console', 'target', 'log', 'prompt', 'raw']);
/**
 * Characters read per input character, plus a constant for the tiniest lines: measured at most
 * 3 on the linearity inputs (miLinearity.test.ts); a per-string rescan of the line costs its length.
 */
const PER_CHAR = 4;
const PER_LINE = 64;
const COUNTED_FROM = 128;

const goldenDir = join(repoRoot, 'test', 'golden');
const transcripts = readdirSync(goldenDir)
  .filter((f) => f.endsWith('.mi'))
  .map((f) => readFileSync(join(goldenDir, f), 'utf8'));
const goldenLines = transcripts.flatMap((t) => t.split('\n')).filter((l) => l !== '');

let cases = 0;

/** The characters parseMiLine reads to parse `line` (the parser is pure: the record is the same). */
function unitsToParse(line: string): number {
  const tally: Tally = { units: 0 };
  parseMiLine(countedString(line, tally));
  return tally.units;
}

/** Parses `line` and checks what every record must satisfy, whatever the input. */
function parseChecked(line: string): MiRecord {
  cases++;
  // Counted where a super-linear step could show at all; a short line that loops forever is the
  // test's timeout to catch. (Counting every line made this file half as slow again.)
  if (line.length >= COUNTED_FROM) {
    const units = unitsToParse(line);
    if (units > PER_CHAR * line.length + PER_LINE) {
      throw new Error(`${units} characters read for a ${line.length}-char line: ${JSON.stringify(line.slice(0, 200))}`);
    }
  }
  const record = parseMiLine(line);
  expect(KINDS.has(record.kind), record.kind).toBe(true);
  if (record.kind === 'raw') expect(record.text).toBe(line);
  // Whatever came out can be serialised (no cycles, no getters that throw).
  JSON.stringify(record);
  return record;
}

const miChar = fc.constantFrom(
  ...'^*+=~@&"\\{}[],=()- \t0123456789abcdefxyz_.:/'.split(''),
  '\\n',
  '\\"',
  '\\\\',
  '\\303\\251',
  '\\0',
  '\\777',
  '\u0000',
  '\u2028',
  '\ufffd',
  '\ud800',
  'é',
  '好',
  '(gdb) ',
);
const miText = fc.string({ unit: miChar, maxLength: 200 });
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 300 }),
  fc.string({ unit: fc.constantFrom('{', '[', '"', 'a=', ',', '}', ']', '\\'), maxLength: 400 }),
);
/** A record prefix, so the random tail is read as results, strings or lists. */
const prefix = fc.constantFrom(
  '',
  '^done,',
  '1^error,msg=',
  '*stopped,',
  '=thread-group-started,',
  '~',
  '&',
  '@',
  '123',
);

/** A golden line with a random edit: cut, insertion, deletion, duplication or a splice. */
const mutatedGolden = fc
  .tuple(
    fc.constantFrom(...goldenLines),
    fc.constantFrom(...goldenLines),
    fc.nat(),
    fc.nat(),
    miText,
    fc.integer({ min: 0, max: 4 }),
  )
  .map(([a, b, i, j, insert, how]) => {
    const at = i % (a.length + 1);
    const to = at + (j % (a.length - at + 1));
    switch (how) {
      case 0:
        return a.slice(0, at);
      case 1:
        return a.slice(0, at) + insert + a.slice(at);
      case 2:
        return a.slice(0, at) + a.slice(to);
      case 3:
        return a.slice(0, to) + a.slice(at);
      default:
        return a.slice(0, at) + b.slice(j % (b.length + 1));
    }
  });

describe(`MI parser fuzzing (${RUNS} cases)`, () => {
  it('random and MI-shaped text: never throws, never hangs, raw keeps the line', { timeout: HANG_TEST_MS }, () => {
    fc.assert(
      fc.property(prefix, fc.oneof(miText, anyText), (p, tail) => {
        parseChecked(p + tail);
      }),
      { numRuns: Math.round(RUNS * 0.5) },
    );
  });

  it('golden lines mutated: the same, and an untouched golden line never parses as raw', {
    timeout: HANG_TEST_MS,
  }, () => {
    for (const line of goldenLines) expect(parseChecked(line).kind, line).not.toBe('raw');
    fc.assert(
      fc.property(mutatedGolden, (line) => {
        parseChecked(line);
      }),
      { numRuns: Math.round(RUNS * 0.45) },
    );
  });

  it('golden transcripts cut into random chunks: the splitter gives back every line, each parses', {
    timeout: HANG_TEST_MS,
  }, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...transcripts),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 16 }),
        fc.nat(),
        (text, sizes, cutAt) => {
          // A transcript stopped at a random point, as when gdb dies mid-line.
          const bytes = Buffer.from(text.slice(0, cutAt % (text.length + 1)));
          const splitter = new MiLineSplitter();
          const lines: string[] = [];
          for (let at = 0, k = 0; at < bytes.length; k++) {
            const size = sizes[k % sizes.length] as number;
            lines.push(...splitter.push(bytes.subarray(at, at + size)));
            at += size;
          }
          lines.push(...splitter.end());
          const expected = bytes.toString('utf8').split('\n');
          if (expected[expected.length - 1] === '') expected.pop();
          expect(lines).toEqual(expected);
          for (const line of lines) parseChecked(line);
        },
      ),
      // Each case splits and parses a whole transcript (40-75 lines): fewer cases, as many lines.
      { numRuns: Math.round(RUNS * 0.05) },
    );
    console.log(`${cases} lines parsed from fuzzed input`);
  });

  /** Pairs of long lines built from mutated golden fragments, the second ten times the first. */
  const mutatedLongLines = (): [string, string][] => {
    const fragments = fc.sample(mutatedGolden, { numRuns: 400, seed: 4 });
    const make = (n: number): string => {
      let s = '^done,x=[';
      for (let i = 0; s.length < n; i++)
        s += `${JSON.stringify(fragments[i % fragments.length])},{a=${fragments[(i * 7) % fragments.length]}},`;
      return s;
    };
    return [
      [make(50_000), make(500_000)],
      [`~"${fragments.join('\\"').slice(0, 50_000)}`, `~"${fragments.join('\\"').repeat(20).slice(0, 500_000)}`],
    ];
  };

  it('work stays linear on mutated input: ten times the text, about ten times the characters read', {
    timeout: HANG_TEST_MS,
  }, () => {
    // One long line of mutated golden fragments, and one ten times as long (the bounds of
    // miLinearity.test.ts). The time of the same inputs is bench/linearityBench.mjs's.
    for (const [small, large] of mutatedLongLines()) {
      parseChecked(small);
      parseChecked(large);
      const seen = {
        small: { size: small.length, units: unitsToParse(small) },
        large: { size: large.length, units: unitsToParse(large) },
      };
      expect(seen.large.units / seen.small.units, JSON.stringify(seen)).toBeLessThanOrEqual(20);
    }
  });
});
