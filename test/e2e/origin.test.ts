// The origin of a bad value (issue 21): from a failure, one call names the last write to the value
// it is about, by re-executing the program with a watchpoint. Each kind of bad value is a program
// of fixtures/c (origin_*.c) whose write is marked /* @origin */ and whose failure /* @crash */.
// Each kind is asserted through dbg_run action=origin and through dbg_start origin=true.
import { describe, expect, it } from 'vitest';
import { libcDebugInfo } from '../helpers/libcDebugInfo.js';
import { lineOf } from '../helpers/markers.js';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

interface Kind {
  name: string;
  program: string;
  /** What dbg_start takes besides the program (breakpoints for a wrong value with no crash). */
  start?: Record<string, unknown>;
  expression?: string;
  crash: Record<string, unknown>;
  origin: Record<string, unknown>;
}

const KINDS: Kind[] = [
  {
    name: 'a pointer cleared on a reload path, used forty calls later',
    program: 'origin_cleared',
    crash: { signal: 'SIGSEGV', frame: { function: 'lookup', line: lineOf('origin_cleared.c', '@crash') } },
    origin: {
      expression: 's->cache',
      kind: 'write',
      write: {
        function: 'reload',
        file: 'origin_cleared.c',
        line: lineOf('origin_cleared.c', '@origin'),
        before: expect.stringMatching(/^0x5[0-9a-f]+$/),
        after: '0x0',
      },
      cost: { runs: 2, hits: 2 },
    },
  },
  {
    name: 'a slot index one too high over the guard an assert checks later',
    program: 'origin_overrun',
    crash: { signal: 'SIGABRT' },
    origin: {
      expression: 't->guard',
      kind: 'write',
      write: {
        function: 'fill',
        file: 'origin_overrun.c',
        line: lineOf('origin_overrun.c', '@origin'),
        before: '24589',
        after: '50',
      },
      cost: { runs: 2, hits: 2 },
    },
  },
  {
    name: 'a wrong value with no crash, from a breakpoint and an expression',
    program: 'origin_wrong',
    start: { breakpoints: [{ location: `origin_wrong.c:${lineOf('origin_wrong.c', '@report')}` }] },
    expression: 'a->balance',
    crash: { reason: 'breakpoint-hit', frame: { line: lineOf('origin_wrong.c', '@report') } },
    origin: {
      expression: 'a->balance',
      kind: 'write',
      write: { function: 'apply_fee', line: lineOf('origin_wrong.c', '@origin'), before: '250', after: '150' },
    },
  },
  {
    name: 'a pointer cleared by another thread',
    program: 'origin_thread',
    crash: { signal: 'SIGSEGV', frame: { function: 'main', line: lineOf('origin_thread.c', '@crash') } },
    origin: {
      expression: 'shared->limits',
      kind: 'write',
      write: { function: 'worker', line: lineOf('origin_thread.c', '@origin'), after: '0x0' },
    },
  },
  {
    name: 'an overflow inside strcpy, named with the program’s calling line',
    program: 'origin_libc',
    crash: { signal: 'SIGABRT' },
    origin: {
      expression: 'r->checked',
      kind: 'write',
      write: {
        before: '1',
        after: '0',
        called_from: { function: 'set_name', file: 'origin_libc.c', line: lineOf('origin_libc.c', '@origin') },
      },
    },
  },
  {
    name: 'a freed node still linked, its block reused',
    program: 'origin_reused',
    crash: { signal: 'SIGSEGV', frame: { function: 'main', line: lineOf('origin_reused.c', '@crash') } },
    origin: {
      expression: 'n->next',
      kind: 'write',
      write: { function: 'main', line: lineOf('origin_reused.c', '@origin'), after: '0x10' },
      // free's own write into the block makes the search follow the allocator (with libc's debug info).
      ...(libcDebugInfo().ok
        ? {
            block: {
              freed: [{ at: { function: 'main', line: lineOf('origin_reused.c', '@free') } }],
              reused: { at: { function: 'main', line: lineOf('origin_reused.c', '@reuse') } },
            },
          }
        : {}),
    },
  },
];

async function failure(h: McpHarness, kind: Kind, extra: Record<string, unknown> = {}) {
  const start = await h.call('dbg_start', { program: fixture(kind.program), ...kind.start, ...extra });
  expect(start.isError, JSON.stringify(start.data)).toBe(false);
  expect(start.data.outcome).toMatchObject({ kind: 'stopped', ...kind.crash });
  return start;
}

describe('the origin of a bad value (gdb)', () => {
  for (const kind of KINDS) {
    it(`dbg_run action=origin: ${kind.name}`, async () => {
      const h = await startServer();
      const start = await failure(h, kind);
      const id = start.data.session_id;
      const found = await h.call('dbg_run', {
        session_id: id,
        action: 'origin',
        ...(kind.expression ? { expression: kind.expression } : {}),
      });
      expect(found.isError, JSON.stringify(found.data)).toBe(false);
      expect(found.data.origin).toMatchObject(kind.origin);
      expect(found.data.outcome).toMatchObject({ kind: 'stopped', stop_id: found.data.origin.stop_id });
      expect(JSON.stringify(found.data.origin).length).toBeLessThan(1536);
      // Going on from the write reaches the same failure again (the watchpoint is gone).
      const back = await h.call('dbg_run', { session_id: id, action: 'continue' });
      expect(back.data.outcome).toMatchObject(kind.crash);
    });

    it(`dbg_start origin=true: ${kind.name}`, async () => {
      const h = await startServer();
      const start = await failure(h, kind, {
        origin: true,
        ...(kind.expression ? { origin_expression: kind.expression } : {}),
      });
      expect(start.data.origin).toMatchObject(kind.origin);
      expect(start.data.session.stop_id).toBe(start.data.origin.stop_id);
      expect(start.text).toMatch(/origin of .*: written in /);
    });
  }

  it('cleared pointer: the answer reads as the README shows it', async () => {
    const h = await startServer();
    const start = await failure(h, KINDS[0] as Kind);
    const found = await h.call('dbg_run', { session_id: start.data.session_id, action: 'origin' });
    const line = lineOf('origin_cleared.c', '@origin');
    expect(found.text).toMatch(
      new RegExp(
        `origin of s->cache \\(0x[0-9a-f]+\\): written in reload \\(origin_cleared\\.c:${line}\\), thread 1: 0x[0-9a-f]+ → 0x0\n`,
      ),
    );
    expect(found.text).toMatch(
      /found by re-execution with a (hardware|software) watchpoint: 2 runs, 2 writes followed/,
    );
  });

  it('a field one constructor path never sets: never written after its allocation, named', async () => {
    const h = await startServer();
    const kind: Kind = {
      name: 'never set',
      program: 'origin_never_set',
      crash: { signal: 'SIGSEGV', frame: { function: 'main', line: lineOf('origin_never_set.c', '@crash') } },
      origin: {},
    };
    for (const how of ['run', 'start'] as const) {
      const start = await failure(h, kind, how === 'start' ? { origin: true } : {});
      const origin =
        how === 'start'
          ? start.data.origin
          : (await h.call('dbg_run', { session_id: start.data.session_id, action: 'origin' })).data.origin;
      expect(origin).toMatchObject({ expression: 'guest->display', kind: 'never_written', cost: { hits: 0 } });
      if (libcDebugInfo().ok) {
        const alloc = lineOf('origin_never_set.c', '@alloc');
        expect(origin.block.allocated).toMatchObject({ at: { function: 'user_new', line: alloc }, size: 16 });
        expect(origin.why).toBe(
          `guest->display was never written after the allocation in user_new at origin_never_set.c:${alloc}`,
        );
      } else {
        expect(origin.why).toMatch(/allocation not named: .*no debug info/);
      }
    }
  });

  it('a double free: names the first free', async (ctx) => {
    if (!libcDebugInfo().ok)
      ctx.skip(`free's argument is read from the C library's debug info: ${libcDebugInfo().why}`);
    const h = await startServer();
    const kind: Kind = { name: 'double free', program: 'origin_double_free', crash: { signal: 'SIGABRT' }, origin: {} };
    for (const how of ['run', 'start'] as const) {
      const start = await failure(h, kind, how === 'start' ? { origin: true } : {});
      const origin =
        how === 'start'
          ? start.data.origin
          : (await h.call('dbg_run', { session_id: start.data.session_id, action: 'origin' })).data.origin;
      expect(origin).toMatchObject({ expression: 'b->data', kind: 'double_free' });
      expect(origin.block.freed.map((f: { at: { line: number } }) => f.at.line)).toEqual([
        lineOf('origin_double_free.c', '@origin'),
        lineOf('origin_double_free.c', '@crash'),
      ]);
      expect(origin.block.freed[0].at.function).toBe('release');
      expect(origin.why).toMatch(
        new RegExp(`freed first at origin_double_free\\.c:${lineOf('origin_double_free.c', '@origin')} in release`),
      );
    }
  });

  it('asked again at the write, goes one write further back, down to the first', async () => {
    const h = await startServer();
    const start = await failure(h, KINDS[0] as Kind);
    const id = start.data.session_id;
    const last = await h.call('dbg_run', { session_id: id, action: 'origin' });
    expect(last.data.origin.write).toMatchObject({ line: lineOf('origin_cleared.c', '@origin'), after: '0x0' });
    const earlier = await h.call('dbg_run', { session_id: id, action: 'origin' });
    expect(earlier.isError, JSON.stringify(earlier.data)).toBe(false);
    expect(earlier.data.origin).toMatchObject({
      expression: 's->cache',
      kind: 'write',
      write: { function: 'main', line: lineOf('origin_cleared.c', '@first'), after: last.data.origin.write.before },
      cost: { runs: 1 },
    });
    const none = await h.call('dbg_run', { session_id: id, action: 'origin' });
    expect(none).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(none.data.error.message).toMatch(/no earlier write: this is the first write to s->cache after main/);
    expect(none.data.session.stop_id).toBe(earlier.data.origin.stop_id);
  });

  it('refuses a run given stdin up front (its re-execution cannot replay it yet), leaving the stop', async () => {
    const h = await startServer();
    const kind: Kind = {
      name: 'stdin',
      program: 'origin_stdin',
      start: { stdin: '12\n' },
      crash: { signal: 'SIGABRT' },
      origin: {},
    };
    const start = await failure(h, kind);
    const found = await h.call('dbg_run', { session_id: start.data.session_id, action: 'origin' });
    expect(found).toMatchObject({ isError: true, code: 'backend_unavailable' });
    expect(found.data.error.message).toMatch(/run that was given stdin/);
    expect(found.data.session.stop_id).toBe(start.data.session.stop_id);
    const withStart = await failure(h, kind, { origin: true });
    expect(withStart.data.origin).toBeUndefined();
    expect(withStart.text).toMatch(/origin: not found: cannot find the origin of a run that was given stdin/);
  });

  it('says a program that does not re-execute the same way is not deterministic, and names no write', async () => {
    const h = await startServer();
    for (const how of ['run', 'start'] as const) {
      const start = await h.call('dbg_start', {
        program: fixture('origin_random'),
        ...(how === 'start' ? { origin: true } : {}),
      });
      expect(start.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGABRT' });
      const origin =
        how === 'start'
          ? start.data.origin
          : (await h.call('dbg_run', { session_id: start.data.session_id, action: 'origin' })).data.origin;
      expect(origin).toMatchObject({ expression: 's->token', kind: 'not_reproduced' });
      expect(origin.why).toMatch(/does not re-execute deterministically/);
      expect(origin.write).toBeUndefined();
      expect(origin.stop_id).toBeUndefined();
    }
  });

  it('refuses a breakpoint stop without an expression, saying what to give', async () => {
    const h = await startServer();
    const kind = KINDS[2] as Kind;
    const start = await failure(h, kind);
    const found = await h.call('dbg_run', { session_id: start.data.session_id, action: 'origin' });
    expect(found).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(found.data.error.message).toMatch(/expression: required at this stop/);
    expect(found.data.session.stop_id).toBe(start.data.session.stop_id);
  });
});

describe('the origin of a bad value (lldb)', () => {
  it('is refused up front with the reason, and the failure stays where it is', async (ctx) => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('origin_cleared'), backend: 'lldb' });
    if (start.isError && start.code === 'backend_unavailable') ctx.skip(`no lldb here: ${start.data.error.message}`);
    expect(start.data.outcome).toMatchObject({ signal: 'SIGSEGV' });
    const found = await h.call('dbg_run', { session_id: start.data.session_id, action: 'origin' });
    expect(found).toMatchObject({ isError: true, code: 'backend_unavailable' });
    expect(found.data.error.message).toMatch(/refuses a watchpoint on memory not mapped yet.*backend=gdb/);
    expect(found.data.session.stop_id).toBe(start.data.session.stop_id);
    const still = await h.call('dbg_inspect', { session_id: start.data.session_id, view: 'stack' });
    expect(still.isError).toBe(false);
  });
});
