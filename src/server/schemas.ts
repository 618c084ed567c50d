// Input pieces shared by several tools. Every string that can reach a debugger is one line
// (no line break of any kind, no NUL) and bounded; every number has a range.

import * as z from 'zod/v4';
import { VIEW_NAMES } from '../session/evidence.js';

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

/** Human-readable list of what was wrong with the arguments, one issue per field. */
export function describeIssues(error: z.ZodError): { message: string; fields: string[] } {
  const fields: string[] = [];
  const parts = error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = (issue as { keys?: string[] }).keys ?? [];
      fields.push(...keys.map((k) => (path ? `${path}.${k}` : k)));
      return `unknown argument${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')}${path ? ` in ${path}` : ''}`;
    }
    fields.push(path || '(arguments)');
    return `${path || 'arguments'}: ${issue.message}`;
  });
  return { message: parts.join('; '), fields };
}

/** Variables added to a program's environment: names as a shell accepts them, one-line values. */
export const programEnv = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'not a variable name'), line(4096))
  .refine((e) => Object.keys(e).length <= 64, 'at most 64 variables')
  .describe('Extra variables.');
