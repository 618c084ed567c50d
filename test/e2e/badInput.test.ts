// Bad input through the real server, table-driven over every string field of every tool (walked
// from the zod schemas by helpers/schemaWalk.ts, so a new field is in the table the day it is
// added). Each line break kind and NUL, in each field that could reach a debugger, is refused with
// invalid_argument naming the field, and nothing reaches gdb: the session's MI transcript never
// carries the marker, its stop and breakpoints are as before. Then caps, ranges, unknown fields
// and paths outside the workspace roots, through the server as an agent sends them.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod/v4';
import { startServer } from '../helpers/mcp.js';
import { fixture, fixturesDir } from '../helpers/paths.js';
import { RawServer } from '../helpers/rawServer.js';
import {
  BREAKS,
  defOf,
  everyField,
  everyTool,
  type Field,
  stringFields,
  TERMINAL_TEXT,
  unwrap,
} from '../helpers/schemaWalk.js';

const MARK = 'Zq7';
const name = (f: Field): string => `${f.tool}.${f.path}`;

/** A value the schema accepts, built from the schema: the rest of each call is valid. */
function example(schema: z.ZodType, path: string, sessionId: string): unknown {
  const s = unwrap(schema);
  const d = defOf(s) as ReturnType<typeof defOf> & { values?: unknown[]; entries?: Record<string, unknown> };
  switch (d.type) {
    case 'string':
      if (path.endsWith('session_id')) return sessionId;
      for (const candidate of ['main', '1', 'A', '00', 'ok', 'a1b2c3', 'o1'])
        if (s.safeParse(candidate).success) return candidate;
      throw new Error(`${path}: no sample string fits its schema; add one here`);
    case 'enum':
      return Object.values(d.entries ?? {})[0];
    case 'literal':
      return d.values?.[0];
    case 'number': {
      const n = s as unknown as { minValue: number | null };
      return Math.max(1, n.minValue ?? 1);
    }
    case 'boolean':
      return false;
    case 'array':
      return [example(d.element as z.ZodType, `${path}[]`, sessionId)];
    case 'record':
      return { A: example(d.valueType as z.ZodType, `${path}{value}`, sessionId) };
    case 'object':
      return Object.fromEntries(
        Object.entries(d.shape ?? {}).map(([k, v]) => [k, example(v, path === '' ? k : `${path}.${k}`, sessionId)]),
      );
    case 'union':
      return example((d as { options?: z.ZodType[] }).options?.[0] as z.ZodType, path, sessionId);
    default:
      throw new Error(`${path}: no example for a ${d.type} schema`);
  }
}

/** Puts `value` where `path` points in a fresh example of `f.tool`'s arguments. */
function argsWith(f: Field, value: unknown, sessionId: string): { args: Record<string, unknown>; field: string } {
  const tool = everyTool().find((t) => t.name === f.tool);
  if (!tool) throw new Error(`no tool ${f.tool}`);
  const args = example(tool.input as unknown as z.ZodType, '', sessionId) as Record<string, unknown>;
  // The zod path of the issue the value must cause, dotted as the answer names it.
  const field: string[] = [];
  let holder: Record<string, unknown> = args;
  const steps = f.path.split('.');
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as string;
    const last = i === steps.length - 1;
    const m = /^(\w+)(\[\])?(?:\((\w+)\))?(\{key\}|\{value\})?$/.exec(step);
    if (!m) throw new Error(`cannot follow ${f.path}`);
    const [, key = '', isArray, op, inRecord] = m;
    field.push(key);
    if (op) {
      // A batch operation: one of the op's own shape, in place of the generic example.
      const shape = everyField().filter((x) => x.tool === f.tool && x.path.startsWith(`${key}[](${op}).`));
      const opArgs: Record<string, unknown> = { op };
      for (const x of shape) {
        const rest = x.path.slice(`${key}[](${op}).`.length);
        if (!rest.includes('.') && !rest.includes('[') && !rest.includes('{'))
          opArgs[rest] = example(x.schema, x.path, sessionId);
      }
      holder[key] = [opArgs];
      holder = opArgs;
      field.push('0');
      continue;
    }
    if (inRecord === '{key}') {
      holder[key] = { [value as string]: 'x' };
      return { args, field: field.join('.') };
    }
    if (inRecord === '{value}') {
      holder[key] = { A: value };
      field.push('A');
      return { args, field: field.join('.') };
    }
    if (isArray) {
      if (last) {
        holder[key] = [value];
        field.push('0');
        return { args, field: field.join('.') };
      }
      const element = (holder[key] as Record<string, unknown>[])[0] as Record<string, unknown>;
      holder[key] = [element];
      holder = element;
      field.push('0');
      continue;
    }
    if (last) {
      holder[key] = value;
      return { args, field: field.join('.') };
    }
    holder = holder[key] as Record<string, unknown>;
  }
  return { args, field: field.join('.') };
}

/** One server for the whole file (the SDK harness closes its servers after each test). */
let server: RawServer;
const h = { call: (tool: string, args: Record<string, unknown>) => server.callTool(tool, args) };
let transcripts: string;
let sessionId: string;
let stopId: number;
let breakpointsBefore: unknown;

beforeAll(async () => {
  transcripts = mkdtempSync(join(tmpdir(), 'dbg-mcp-badinput-'));
  server = await RawServer.start(['--transcript-dir', transcripts]);
  const r = await h.call('dbg_start', {
    program: fixture('loop'),
    breakpoints: [{ location: 'square' }],
    inspect: ['none'],
  });
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped' });
  sessionId = r.data.session_id;
  stopId = r.data.session.stop_id;
  breakpointsBefore = (await h.call('dbg_breakpoints', { session_id: sessionId, action: 'list' })).data.breakpoints;
});

afterAll(async () => {
  await server.close();
  rmSync(transcripts, { recursive: true, force: true });
});

const refusedFields = stringFields().filter((f) => !TERMINAL_TEXT.has(name(f)));

describe('line breaks and NUL', () => {
  it.each(refusedFields.map((f) => [name(f), f] as const))('%s: each kind refused, naming the field', async (_, f) => {
    for (const [label, c] of BREAKS) {
      const { args, field } = argsWith(f, `${MARK}${c}${MARK}`, sessionId);
      const r = await h.call(f.tool, args);
      expect(r.code, `${label} in ${field}: ${r.text}`).toBe('invalid_argument');
      expect(r.data.error.details.fields, `${label}: ${r.text}`).toContainEqual(expect.stringMatching(`^${field}`));
      expect(r.data.error.message).toContain(field.split('.')[0]);
    }
  });

  it('none of them reached gdb, and the session is as it was', async () => {
    const list = await h.call('dbg_breakpoints', { session_id: sessionId, action: 'list' });
    expect(list.data.breakpoints).toEqual(breakpointsBefore);
    expect(list.data.session).toMatchObject({ state: 'stopped', stop_id: stopId });
    expect((await h.call('dbg_sessions', {})).data.sessions.map((s: { id: string }) => s.id)).toEqual([sessionId]);
    await h.call('dbg_close', { session_id: sessionId });
    const files = readdirSync(transcripts);
    expect(files).toEqual([`${sessionId}.mi`]);
    let text = '';
    for (let i = 0; i < 100 && !text.includes('gdb-exit'); i++) {
      text = readFileSync(join(transcripts, files[0] as string), 'utf8');
      await new Promise((r) => setTimeout(r, 20));
    }
    const sent = text.split('\n').filter((l) => l.startsWith('> '));
    expect(sent.length).toBeGreaterThan(10);
    expect(sent.filter((l) => l.includes(MARK))).toEqual([]);
    console.log(
      `${refusedFields.length} string fields × ${BREAKS.length} kinds = ${refusedFields.length * BREAKS.length} refused calls; ${sent.length} commands reached gdb, none of them theirs`,
    );
  });
});

describe('text for the program itself', () => {
  it('dbg_start.stdin and dbg_io.data take newlines: they go to the program’s terminal, never to gdb', async () => {
    const s = await startServer();
    const r = await s.call('dbg_start', {
      program: fixture('stdin_echo'),
      stdin: 'one\ntwo\n',
      stdin_eof: false,
      timeout_ms: 300,
      on_timeout: 'return',
    });
    expect(r.data.outcome).toEqual({ kind: 'running' });
    const id = r.data.session_id;
    await s.call('dbg_io', { session_id: id, action: 'write', data: 'three\n' });
    await s.call('dbg_io', { session_id: id, action: 'eof' });
    const done = await s.call('dbg_run', { session_id: id, action: 'wait', timeout_ms: 10_000 });
    expect(done.data.outcome).toMatchObject({ kind: 'exited', exit_code: 0 });
    const out = await s.call('dbg_io', { session_id: id, action: 'read', cursor: 0 });
    expect(out.data.text).toBe('got:one\ngot:two\ngot:three\neof after 3 lines\n');
  });
});

describe('program arguments', () => {
  it('reach the program byte for byte: no shell reads them, whatever they hold (64 of them, 4,096 chars each at most)', async () => {
    const witness = join(tmpdir(), `dbg-mcp-shell-ran-${process.pid}`);
    const nasty = [
      'a b',
      '',
      ' ',
      "it's",
      "'",
      '"',
      '"q"',
      '\\',
      'back\\slash',
      '$HOME',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell's parameter expansion, on purpose
      '${HOME}',
      `$(touch ${witness})`,
      `\`touch ${witness}\``,
      `; touch ${witness}`,
      `| touch ${witness}`,
      `&& touch ${witness} &`,
      '*',
      '?',
      '[a-z]*',
      '~',
      '~root',
      '>out',
      '<in',
      '2>&1',
      '-x',
      '--',
      '#comment',
      'tab\there',
      '!event',
      '%s%n',
      'é 好 🎉',
      '\x1b[31m',
    ];
    const long = (c: string) => c.repeat(4096).slice(0, 4096);
    const args = [
      ...nasty,
      ...Array.from({ length: 64 - nasty.length }, (_, i) => (i < 4 ? long(`$'" ;*${i}`) : `#${i}`)),
    ];
    expect(args).toHaveLength(64);
    const r = await h.call('dbg_start', { program: fixture('echo_args'), args, timeout_ms: 20_000 });
    expect(r.data.outcome, r.text).toMatchObject({ kind: 'exited', exit_code: 0 });
    const out = await h.call('dbg_io', { session_id: r.data.session_id, action: 'read', cursor: 0, max_bytes: 65_536 });
    expect(out.data.more).toBe(false);
    expect(out.data.text).toBe(`${args.map((a) => `[${a}]\n`).join('')}probe=(unset)\n`);
    expect(existsSync(witness)).toBe(false);
    await h.call('dbg_close', { session_id: r.data.session_id });
  });
});

describe('caps, ranges and unknown fields', () => {
  it.each([
    ['65 arguments', { args: Array(65).fill('a') }, 'args'],
    ['an argument of 4,097 characters', { args: ['a'.repeat(4097)] }, 'args.0'],
    [
      '65 environment variables',
      { env: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, 'x'])) },
      'env',
    ],
    ['a program path of 4,097 characters', { program: 'a'.repeat(4097) }, 'program'],
    ['a negative timeout', { timeout_ms: -1 }, 'timeout_ms'],
    ['a fractional timeout', { timeout_ms: 1.5 }, 'timeout_ms'],
    ['a timeout over an hour', { timeout_ms: 3_600_001 }, 'timeout_ms'],
    ['a stack depth of 201', { stack_depth: 201 }, 'stack_depth'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    [
      'an unknown field in a breakpoint',
      { breakpoints: [{ location: 'main', colour: 'red' }] },
      'breakpoints.0.colour',
    ],
  ])('dbg_start refuses %s and starts nothing', async (_, extra, field) => {
    const r = await h.call('dbg_start', { program: fixture('hello'), ...extra });
    expect(r.code, r.text).toBe('invalid_argument');
    expect(r.data.error.details.fields).toContain(field);
  });

  it('a string field given a number, an array given a string, a number given a string: refused', async () => {
    for (const [args, field] of [
      [{ program: 42 }, 'program'],
      [{ program: fixture('hello'), args: 'a b' }, 'args'],
      [{ program: fixture('hello'), timeout_ms: '100' }, 'timeout_ms'],
    ] as const) {
      const r = await h.call('dbg_start', args);
      expect(r.code).toBe('invalid_argument');
      expect(r.data.error.details.fields).toContain(field);
    }
  });

  it('no session was left by any of them', async () => {
    expect((await h.call('dbg_sessions', {})).data.sessions).toEqual([]);
  });
});

describe('paths outside the workspace roots', () => {
  it('program, cwd, ../ and a symlink that leads out are refused with the roots named', async () => {
    const out = join(fixturesDir, 'build', `escape-${process.pid}`);
    symlinkSync('/bin', out);
    try {
      for (const [args, field] of [
        [{ program: '/bin/true' }, 'program'],
        [{ program: '../../../../../../bin/true' }, 'program'],
        [{ program: join(out, 'true') }, 'program'],
        [{ program: fixture('hello'), cwd: '/tmp' }, 'cwd'],
        [{ program: fixture('hello'), cwd: out }, 'cwd'],
      ] as const) {
        const r = await h.call('dbg_start', args);
        expect(r.code, JSON.stringify(args)).toBe('invalid_argument');
        expect(r.data.error.message).toMatch(new RegExp(`^${field}: .* is outside the workspace roots \\(`));
        expect(r.data.error.message).toContain(fixturesDir);
      }
    } finally {
      rmSync(out);
    }
    expect((await h.call('dbg_sessions', {})).data.sessions).toEqual([]);
  });
});
