// Bounds of every input field of every tool, walked from the zod schemas (helpers/schemaWalk.ts):
// strings are one line and capped, arrays and records are capped, numbers are whole and ranged,
// objects refuse fields they do not know. The handler validates with these same schemas
// (createServer.ts), so what a schema refuses never reaches a tool. test/e2e/badInput.test.ts
// sends the same refusals through the real server.
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/v4';
import {
  BREAKS,
  checkValue,
  defOf,
  everyField,
  everyTool,
  type Field,
  stringFields,
  TERMINAL_TEXT,
} from '../../helpers/schemaWalk.js';

const name = (f: Field): string => `${f.tool}.${f.path}`;
const fields = everyField();
const accepts = (schema: z.ZodType, value: unknown): boolean => schema.safeParse(value).success;

describe('the walk', () => {
  it('finds the fields of every tool, nested ones and batch operations included', () => {
    const names = new Set(fields.map(name));
    for (const expected of [
      'dbg_start.program',
      'dbg_start.args[]',
      'dbg_start.env{key}',
      'dbg_start.env{value}',
      'dbg_start.breakpoints[].location',
      'dbg_evaluate.assign.target',
      'dbg_batch.operations[](evaluate).expressions[]',
      'dbg_batch.operations[](memory).address',
      'dbg_command.command',
      'dbg_close.session_id',
    ]) {
      expect(names.has(expected), expected).toBe(true);
    }
    const withFields = everyTool().filter((t) => Object.keys(t.input.shape).length > 0);
    expect(new Set(fields.map((f) => f.tool))).toEqual(new Set(withFields.map((t) => t.name)));
    console.log(
      `${fields.length} fields in ${everyTool().length} tools; ${stringFields().length} take strings (${stringFields().filter((f) => f.kind === 'string').length} free text)`,
    );
  });
});

describe('strings', () => {
  const strings = stringFields();
  const sample = (f: Field): string => (f.kind === 'string' && f.path.endsWith('session_id') ? '0123abcd' : 'ok');

  it.each(strings.filter((f) => !TERMINAL_TEXT.has(name(f))).map((f) => [name(f), f] as const))(
    '%s refuses every line break and NUL',
    (_, f) => {
      for (const [label, c] of BREAKS) {
        expect(accepts(f.schema, `${sample(f)}${c}x`), label).toBe(false);
        expect(accepts(f.schema, c), label).toBe(false);
      }
    },
  );

  it.each(strings.filter((f) => TERMINAL_TEXT.has(name(f))).map((f) => [name(f), f] as const))(
    '%s takes line breaks: it goes to the program, not to a debugger',
    (_, f) => {
      expect(accepts(f.schema, 'one\ntwo\r\n')).toBe(true);
    },
  );

  it.each(strings.map((f) => [name(f), f] as const))('%s is capped', (_, f) => {
    const cap = (f.schema as unknown as { maxLength?: number | null }).maxLength;
    if (typeof cap === 'number') {
      expect(cap).toBeLessThanOrEqual(1_000_000);
      expect(accepts(f.schema, 'a'.repeat(cap + 1))).toBe(false);
    }
    // Caps written as a pattern or a byte count show only by trying.
    expect(accepts(f.schema, 'a'.repeat(1_000_001))).toBe(false);
  });

  it('argv: at most 64 arguments of at most 4,096 characters, like the winedbg server', () => {
    const args = fields.find((f) => name(f) === 'dbg_start.args[]') as Field;
    const list = fields.find((f) => name(f) === 'dbg_start.args') as Field;
    expect(accepts(args.schema, 'a'.repeat(4096))).toBe(true);
    expect(accepts(args.schema, 'a'.repeat(4097))).toBe(false);
    expect(accepts(list.schema, Array(64).fill('a'))).toBe(true);
    expect(accepts(list.schema, Array(65).fill('a'))).toBe(false);
  });
});

describe('arrays, records and numbers', () => {
  it.each(fields.filter((f) => f.kind === 'array').map((f) => [name(f), f] as const))(
    '%s has at most a fixed number of entries',
    (_, f) => {
      const max = checkValue(f.schema, 'max_length', 'maximum');
      expect(max).toBeDefined();
      expect(max).toBeLessThanOrEqual(64);
    },
  );

  it.each(fields.filter((f) => f.kind === 'record').map((f) => [name(f), f] as const))(
    '%s refuses more than 64 entries',
    (_, f) => {
      const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, 'x']));
      expect(accepts(f.schema, entries(64))).toBe(true);
      expect(accepts(f.schema, entries(65))).toBe(false);
    },
  );

  it.each(fields.filter((f) => f.kind === 'number').map((f) => [name(f), f] as const))(
    '%s is a whole number in a range',
    (_, f) => {
      const n = f.schema as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean };
      expect(n.isInt).toBe(true);
      expect(n.minValue).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(n.maxValue)).toBe(true);
      expect(accepts(f.schema, (n.minValue as number) - 1)).toBe(false);
      expect(accepts(f.schema, (n.maxValue as number) + 1)).toBe(false);
      expect(accepts(f.schema, (n.minValue as number) + 0.5)).toBe(false);
      expect(accepts(f.schema, Number.NaN)).toBe(false);
      expect(accepts(f.schema, '1')).toBe(false);
    },
  );
});

describe('objects', () => {
  const objects: [string, z.ZodType][] = [
    ...everyTool().map((t) => [t.name, t.input as unknown as z.ZodType] as [string, z.ZodType]),
    ...fields.filter((f) => f.kind === 'object').map((f) => [name(f), f.schema] as [string, z.ZodType]),
  ];

  it.each(objects)('%s refuses fields it does not know', (_, schema) => {
    const catchall = defOf(schema).catchall;
    expect(catchall && defOf(catchall).type).toBe('never');
  });
});
