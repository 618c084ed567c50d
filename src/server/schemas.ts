// Input pieces shared by several tools. Every string that can reach a debugger is one line
// (no line break of any kind, no NUL) and bounded; every number has a range.

import * as z from 'zod/v4';
import { VIEW_NAMES } from '../session/evidence.js';
import { didYouMean } from '../util/didYouMean.js';

/** Line breaks as any reader may see them, and NUL (which cuts a C string short). */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029\0]/;

export function isOneLine(s: string): boolean {
  return !LINE_BREAK.test(s);
}

/** A one-line string of at most `max` characters. */
export function line(max: number) {
  return z.string().max(max).refine(isOneLine, { message: 'must be one line: no line breaks or NUL' });
}

export const sessionId = z
  .string()
  .regex(/^[0-9a-f]{8}$/, 'a session id is 8 hex digits, as dbg_start returned it')
  .describe('From dbg_start.');

export const threadId = z.number().int().min(1).max(10_000_000).describe('Default: current.');
export const frameLevel = z.number().int().min(0).max(1_000_000).describe('0 = innermost.');
export const stopId = z.number().int().min(0).describe('Else stale_context.');
export const timeoutMs = z.number().int().min(1).max(3_600_000).describe('ms (default 30000).');
export const onTimeout = z
  .enum(['return', 'interrupt'])
  .describe('At the deadline: return (state running) or interrupt and inspect.');

export const INSPECT_CHOICES = ['auto', 'none', ...VIEW_NAMES] as const;
export const inspectPlan = z
  .array(z.enum(INSPECT_CHOICES))
  .max(6)
  .describe('auto: crash, stop+threads or stop, as fits.');
export const stackDepth = z.number().int().min(1).max(200).describe('Default 16 (4 per thread).');
export const includeLocals = z.boolean().describe('threads: add locals.');

/** Human-readable list of what was wrong with the arguments, one issue per field. With the
 * tool's schema, an unknown name gets the nearest known one ("did you mean") and an object given
 * as something else gets the object's shape. */
export function describeIssues(error: z.ZodError, schema?: z.ZodType): { message: string; fields: string[] } {
  const fields: string[] = [];
  const parts = error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = (issue as { keys?: string[] }).keys ?? [];
      fields.push(...keys.map((k) => (path ? `${path}.${k}` : k)));
      const known = schema === undefined ? undefined : objectKeysAt(schema, issue.path);
      const named = keys.map((k) => {
        const near = known === undefined ? undefined : didYouMean(k, known);
        return near === undefined ? JSON.stringify(k) : `${JSON.stringify(k)} (did you mean ${JSON.stringify(near)}?)`;
      });
      const where = path ? ` in ${path}` : '';
      const choices =
        known !== undefined && known.length <= 24 ? `; the arguments${where} are ${known.join(', ')}` : '';
      return `unknown argument${keys.length > 1 ? 's' : ''} ${named.join(', ')}${where}${choices}`;
    }
    fields.push(path || '(arguments)');
    const expectedObject = issue.code === 'invalid_type' && (issue as { expected?: string }).expected === 'object';
    const shape = expectedObject && schema !== undefined ? objectKeysAt(schema, issue.path) : undefined;
    const hint = shape !== undefined ? ` (an object: {${shape.join(', ')}})` : '';
    return `${path || 'arguments'}: ${issue.message}${hint}`;
  });
  return { message: parts.join('; '), fields };
}

type SchemaDef = Record<string, unknown>;
function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** The inner schema of a wrapper (optional, default, nullable, readonly, a pipe's input). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let i = 0; i < 16; i++) {
    const def: SchemaDef = defOf(current);
    const inner = (def['innerType'] ?? (def['type'] === 'pipe' ? def['in'] : undefined)) as z.ZodType | undefined;
    if (inner === undefined) return current;
    current = inner;
  }
  return current;
}

/** The field names of the object schema found at `path` in `schema` (through arrays, wrappers and unions). */
export function objectKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const step of path) {
    if (current === undefined) return undefined;
    const def: SchemaDef = defOf(current);
    if (def['type'] === 'array' && typeof step === 'number') current = unwrap(def['element'] as z.ZodType);
    else if (def['type'] === 'object' && typeof step === 'string') {
      const field: z.ZodType | undefined = (def['shape'] as Record<string, z.ZodType>)[step];
      current = field === undefined ? undefined : unwrap(field);
    } else return undefined;
  }
  if (current === undefined) return undefined;
  const def: SchemaDef = defOf(current);
  if (def['type'] === 'object') return Object.keys(def['shape'] as Record<string, unknown>);
  if (def['type'] === 'union') {
    const keys = new Set<string>();
    for (const option of def['options'] as z.ZodType[]) for (const k of objectKeysAt(option, []) ?? []) keys.add(k);
    return keys.size > 0 ? [...keys] : undefined;
  }
  return undefined;
}

/** Variables added to a program's environment: names as a shell accepts them, one-line values. */
export const programEnv = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'not a variable name'), line(4096))
  .refine((e) => Object.keys(e).length <= 64, 'at most 64 variables')
  .describe('Extra variables.');
