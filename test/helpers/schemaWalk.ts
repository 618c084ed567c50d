// Every field of every tool's input, read off the zod schemas themselves, so a field added
// tomorrow is in the bad-input tests without anyone listing it. dbg_batch's operations are
// advertised loosely (tools/list names only `op`) and checked inside the tool by `operation`:
// their fields are walked from that schema.
import type * as z from 'zod/v4';
import { defaultConfig } from '../../src/server/config.js';
import type { ToolDefinition } from '../../src/server/defineTool.js';
import { operation as batchOperation } from '../../src/server/tools/batch.js';
import { allTools } from '../../src/server/tools/index.js';

/**
 * Strings that never reach a debugger's command line, where newlines are legitimate: text typed
 * into the program's own terminal (dbg_start.stdin, dbg_io.data), and what dbg_record hands to
 * `rr record` as the program's argv (execve, no line protocol) and stdin (a pipe).
 */
export const TERMINAL_TEXT = new Set(['dbg_start.stdin', 'dbg_io.data', 'dbg_record.args[]', 'dbg_record.stdin']);

export const BREAKS: [string, string][] = [
  ['LF', '\n'],
  ['CR', '\r'],
  ['VT', '\v'],
  ['FF', '\f'],
  ['NEL U+0085', '\u0085'],
  ['LS U+2028', '\u2028'],
  ['PS U+2029', '\u2029'],
  ['NUL', '\0'],
];

export type LeafKind = 'string' | 'enum' | 'number' | 'boolean' | 'array' | 'object' | 'record';

export interface Field {
  tool: string;
  /**
   * Where the value sits: `a.b` for object fields, `a[]` for an array's elements, `a{key}` and
   * `a{value}` for a record's names and values, `operations[](evaluate).expressions[]` for a
   * batch operation's field.
   */
  path: string;
  kind: LeafKind;
  schema: z.ZodType;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  catchall?: z.ZodType;
  checks?: { _zod: { def: Record<string, unknown> } }[];
}

export const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional/default/nullable/pipe wrappers. */
export function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    if ((d.type === 'optional' || d.type === 'default' || d.type === 'nullable') && d.innerType) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else return cur;
  }
}

function walk(tool: string, schema: z.ZodType, path: string, out: Field[]): void {
  const s = unwrap(schema);
  const d = defOf(s);
  const at = (kind: LeafKind) => out.push({ tool, path, kind, schema: s });
  switch (d.type) {
    case 'string':
      at('string');
      return;
    case 'enum':
    case 'literal':
      at('enum');
      return;
    case 'number':
      at('number');
      return;
    case 'boolean':
      at('boolean');
      return;
    case 'array':
      at('array');
      if (tool === 'dbg_batch' && path === 'operations') {
        for (const option of defOf(batchOperation as unknown as z.ZodType).options ?? []) {
          const op = String(
            (defOf(unwrap(defOf(option).shape?.['op'] as z.ZodType)) as { values?: unknown[] }).values?.[0],
          );
          walk(tool, option, `operations[](${op})`, out);
        }
        return;
      }
      walk(tool, d.element as z.ZodType, `${path}[]`, out);
      return;
    case 'record':
      at('record');
      walk(tool, d.keyType as z.ZodType, `${path}{key}`, out);
      walk(tool, d.valueType as z.ZodType, `${path}{value}`, out);
      return;
    case 'object':
      if (path !== '') at('object');
      for (const [name, field] of Object.entries(d.shape ?? {})) {
        walk(tool, field, path === '' ? name : `${path}.${name}`, out);
      }
      return;
    case 'union':
      for (const option of d.options ?? []) walk(tool, option, path, out);
      return;
    default:
      throw new Error(`${tool} ${path}: a ${d.type} schema; teach test/helpers/schemaWalk.ts about it`);
  }
}

/** Every tool, dbg_command included (raw commands on). */
export function everyTool(): ToolDefinition<any>[] {
  return allTools({ ...defaultConfig(), raw: 'read' });
}

export function everyField(): Field[] {
  const out: Field[] = [];
  for (const tool of everyTool()) walk(tool.name, tool.input as unknown as z.ZodType, '', out);
  return out;
}

/** The strings a client can send: plain strings, enum values and record names. */
export function stringFields(): Field[] {
  return everyField().filter((f) => f.kind === 'string' || f.kind === 'enum');
}

/** The value of a check on a schema (zod keeps min/max as checks), e.g. max_length → maximum. */
export function checkValue(schema: z.ZodType, check: string, key: string): number | undefined {
  for (const c of defOf(schema).checks ?? []) {
    if (c._zod.def['check'] === check) return c._zod.def[key] as number;
  }
  return undefined;
}
