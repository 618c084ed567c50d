// Round trip: any record the parser can produce, written back as MI text, parses to itself.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';
import type { MiRecord, MiTuple, MiValue } from '../../../src/protocols/mi/miRecords.js';
import { serializeMiRecord } from '../../../src/protocols/mi/miSerialize.js';

/** A tuple from entries, storing names like __proto__ as own fields, as the parser does. */
function tupleOf(entries: [string, MiValue][]): MiTuple {
  const tuple: MiTuple = {};
  for (const [key, value] of entries) {
    Object.defineProperty(tuple, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return tuple;
}

const nameChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-_.'.split(''));
const name = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: nameChar, minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'thread-id') },
);

// Text with everything a c-string must escape, mixed with plain and non-ASCII characters.
const tricky = fc.constantFrom(
  '"',
  '\\',
  '\n',
  '\t',
  '\r',
  '\x07',
  '\b',
  '\f',
  '\v',
  '\x1b',
  '\x00',
  '\x7f',
  '\x01',
  '\\"',
);
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 3,
    arbitrary: fc.string({
      unit: fc.oneof(tricky, fc.constantFrom('a', ' ', 'é', '好', '🎉', '{', ']', ',', '=')),
      maxLength: 30,
    }),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
);

const { value } = fc.letrec<{ value: MiValue; tuple: MiTuple; list: MiValue[] }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, text, tie('tuple'), tie('list')),
  tuple: fc.uniqueArray(fc.tuple(name, tie('value')), { selector: ([key]) => key, maxLength: 5 }).map(tupleOf),
  list: fc.array(tie('value'), { maxLength: 5 }),
}));

const results = fc.uniqueArray(fc.tuple(name, value), { selector: ([key]) => key, maxLength: 6 }).map(tupleOf);
const token = fc.option(fc.nat({ max: 999_999_999_999_999 }), { nil: undefined });
const asyncClass = fc.stringMatching(/^[a-z][a-z-]{0,20}$/);

// fc.record builds null-prototype objects; the spread in the map makes them plain, like ours.
const record: fc.Arbitrary<MiRecord> = fc
  .oneof(
    fc.record({
      kind: fc.constant('result' as const),
      token,
      class: fc.constantFrom(
        'done' as const,
        'running' as const,
        'connected' as const,
        'error' as const,
        'exit' as const,
      ),
      results,
    }),
    fc.record({
      kind: fc.constantFrom('exec' as const, 'status' as const, 'notify' as const),
      token,
      class: asyncClass,
      results,
    }),
    fc.record({ kind: fc.constantFrom('console' as const, 'target' as const, 'log' as const), text }),
    fc.constant({ kind: 'prompt' as const }),
  )
  .map((r): MiRecord => ({ ...r }));

/**
 * An exact text form of a record: own keys in order, undefined kept, and a mark on any object
 * whose prototype is not Object.prototype. (toStrictEqual cannot be used: it compares
 * `a.constructor === b.constructor`, which fails for a tuple with a field named constructor.)
 */
function exact(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(exact).join(',')}]`;
  const proto = Object.getPrototypeOf(value) === Object.prototype ? '' : '<not a plain object>';
  const fields = Object.keys(value).map(
    (key) => `${JSON.stringify(key)}:${exact((value as Record<string, unknown>)[key])}`,
  );
  return `${proto}{${fields.join(',')}}`;
}

describe('parse ∘ serialize', () => {
  it('gives back the record (non-ASCII written raw)', () => {
    fc.assert(
      fc.property(record, (r) => {
        expect(exact(parseMiLine(serializeMiRecord(r)))).toBe(exact(r));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives back the record (non-ASCII written as octal UTF-8, like GDB 13)', () => {
    fc.assert(
      fc.property(record, (r) => {
        const line = serializeMiRecord(r, { escapeNonAscii: true });
        expect(line).toMatch(/^[\x20-\x7e]*$/);
        expect(exact(parseMiLine(line))).toBe(exact(r));
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on mutated MI text, and a raw record keeps the line', () => {
    fc.assert(
      fc.property(record, fc.nat(), fc.string({ maxLength: 3 }), (r, at, insert) => {
        const line = serializeMiRecord(r);
        const cut = at % (line.length + 1);
        const mutated = line.slice(0, cut) + insert + line.slice(cut + 1);
        const parsed = parseMiLine(mutated);
        if (parsed.kind === 'raw') expect(parsed.text).toBe(mutated);
      }),
      { numRuns: 2000 },
    );
  });
});
