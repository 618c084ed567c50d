// Evidence on real programs that fooled the answers before: a fault the kernel reports without
// its address, deep recursion, an ABBA deadlock one call below each thread's own function, a
// hang inside printf, C++ standard types; and the session's edges (a relative source file, a
// close during a run, a cancelled start, a debugger that dies).
import { describe, expect, it } from 'vitest';
import { builtFixture, missingCompiler } from '../helpers/builtFixtures.js';
import { lineOf } from '../helpers/markers.js';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('faults and stacks', () => {
  it.skipIf(process.arch !== 'x64')(
    'a read through a non-canonical pointer names the pointer and its fill pattern, not NULL',
    async () => {
      const h = await startServer();
      const r = await h.call('dbg_start', { program: fixture('kernel_fault') });
      expect(r.data.outcome).toMatchObject({
        kind: 'stopped',
        signal: 'SIGSEGV',
        signal_code: 128,
        fault_address: '0xfefefefefefeff06',
      });
      const crash = r.data.views.crash;
      expect(crash).toMatchObject({ signal_code: 128, fault_address: '0xfefefefefefeff06' });
      expect(crash.fault_note).toMatch(/through rax = 0xfefefefefefefefe .*non-canonical/);
      expect(crash.hint).toMatch(
        new RegExp(
          `^invalid memory access in value_of at kernel_fault\\.c:${lineOf('kernel_fault.c', '@fault')}: bad pointer`,
        ),
      );
      expect(crash.hint).toMatch(/0xfefefefefefefefe is uninitialised memory/);
      expect(r.text).not.toMatch(/NULL/);
    },
  );

  it('a NULL write at the bottom of a recursion shows the recursion as one line with its count', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('recurse'), args: ['30', 'crash'] });
    const crash = r.data.views.crash;
    expect(crash.hint).toMatch(/^NULL pointer dereference in bottom/);
    expect(crash.stack.slice(0, 3)).toEqual([
      expect.objectContaining({ level: 0, function: 'bottom' }),
      expect.objectContaining({ level: 1, function: 'descend' }),
      expect.objectContaining({ repeated: 10, levels: '2-11', function: 'descend', file: 'recurse.c' }),
    ]);
    expect(crash.depth).toBe(33);
    expect(r.text).toMatch(/^#2-#11 descend at recurse\.c:\d+ ×10 \(the same call, recursing\)$/m);
  });

  it('an ABBA deadlock names the thread function each thread started in', async (ctx) => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('abba'), timeout_ms: 1500 });
    const threads = r.data.views.threads;
    const workers = threads.threads.filter((t: { stack?: { function?: string }[] }) =>
      t.stack?.some((e) => e.function === 'move_funds'),
    );
    expect(workers).toHaveLength(2);
    // Each worker's stack goes on past move_funds to the function it was started with.
    const starters = workers.map((t: { stack: { function?: string }[] }) => t.stack.at(-1)?.function).sort();
    expect(starters).toEqual(['pay_rent', 'refund']);
    for (const t of workers) expect(t.waiting).toMatch(/^mutex/);
    if (threads.hint?.startsWith('deadlock:')) {
      // The circle was closed from the lock owners (read from glibc's mutex): its links name them.
      expect(threads.hint).toMatch(/thread \d+ \(pay_rent → move_funds\) waits for thread \d+/);
      expect(threads.hint).toMatch(/thread \d+ \(refund → move_funds\) waits for thread \d+/);
    } else {
      await ctx.annotate(`lock owners not readable here; hint: ${threads.hint}`);
      expect(threads.hint).toMatch(/all wait on locks/);
    }
  });

  it('a hang inside printf is a wait on I/O, shown down to the program’s own frames', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('stuck_writer'), timeout_ms: 1500 });
    const [main] = r.data.views.threads.threads;
    expect(main.waiting).toBe('io (write)');
    const own = main.stack.filter((e: { function?: string; folded?: number }) => e.folded === undefined);
    expect(own.map((e: { function: string }) => e.function)).toEqual(['log_line', 'produce_report', 'main']);
    expect(own[0]).toMatchObject({ line: lineOf('stuck_writer.c', '@blocked-write') });
    expect(r.data.views.threads.hint).toMatch(/^thread 1 \(main → produce_report → log_line\) is blocked writing/);
    expect(r.text).not.toMatch(/no thread is waiting/);
  });
});

describe('C++ values', () => {
  it.skipIf(missingCompiler('cpp/containers') !== undefined)(
    'standard library types show their values, within the usual bounds',
    async () => {
      const h = await startServer();
      const program = await builtFixture('cpp/containers');
      const r = await h.call('dbg_start', {
        program,
        breakpoints: [{ location: `containers.cpp:${lineOf('../cpp/containers.cpp', '@ready')}` }],
        inspect: ['locals'],
      });
      expect(r.isError, r.text).toBe(false);
      const values = Object.fromEntries(
        r.data.views.locals.variables.map((v: { name: string; value: string }) => [v.name, v]),
      );
      expect(values.greeting.value).toBe('"hello"');
      expect(values.numbers.value).toMatch(/^std::vector of length 3, capacity 3 = \{1, 2, 3\}$/);
      expect(values.ages.value).toMatch(/^std::map with 2 elements = \{\["ada"\] = 36, \["alan"\] = 41\}$/);
      expect(values.answer.value).toMatch(/^std::unique_ptr<int> = \{get\(\) = 0x[0-9a-f]+\}$/);
      // A thousand elements: cut at the value limit, as any long value is.
      expect(values.many).toMatchObject({ truncated: true });
      expect(values.many.value.length).toBeLessThanOrEqual(301);
      expect(r.data.warnings).toBeUndefined();
    },
  );
});

describe('session edges', () => {
  it('view=source reads a file named relative to a root', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('loop'), stop: 'main', inspect: ['none'] });
    const id = start.data.session_id;
    const r = await h.call('dbg_inspect', { session_id: id, view: 'source', file: 'loop.c', line: 7 });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.data).toMatchObject({ file: 'loop.c', line: 7 });
    expect(r.text).toMatch(/^> 7 {2}\s*int r = v \* v;/m);
    // A relative name that leaves the roots is still refused.
    const out = await h.call('dbg_inspect', { session_id: id, view: 'source', file: '../../package.json', line: 1 });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/not a file under the workspace roots/);
  });

  it('closing a session while dbg_run waits answers the run with “closed”, not a dead debugger', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), stop: 'main', inspect: ['none'] });
    const id = start.data.session_id;
    const pending = h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: 30_000, on_timeout: 'return' });
    await sleep(300);
    const closed = await h.call('dbg_close', { session_id: id });
    expect(closed.data.closed).toBe(true);
    const run = await pending;
    expect(run).toMatchObject({ isError: true, code: 'no_session' });
    expect(run.data.error.message).toMatch(new RegExp(`^session ${id} is closed: dbg_close ended it`));
    expect(run.text).not.toMatch(/died|exited with code/);
  });

  it('a cancelled dbg_start closes the session it opened', async () => {
    const h = await startServer();
    const controller = new AbortController();
    const pending = h.call(
      'dbg_start',
      { program: fixture('spin'), timeout_ms: 30_000 },
      { signal: controller.signal },
    );
    await sleep(1500);
    controller.abort();
    await expect(pending).rejects.toThrow();
    let open = -1;
    for (let i = 0; i < 100 && open !== 0; i++) {
      open = (await h.call('dbg_sessions', {})).data.sessions.length;
      if (open !== 0) await sleep(100);
    }
    expect(open).toBe(0);
  });

  it('a debugger that dies is logged at error', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), stop: 'main', inspect: ['none'] });
    const [entry] = (await h.call('dbg_sessions', {})).data.sessions;
    process.kill(entry.debugger_pid, 'SIGKILL');
    let logged: { level?: string } | undefined;
    for (let i = 0; i < 100 && !logged; i++) {
      logged = h.stderr
        .map((l) => {
          try {
            return JSON.parse(l) as { level?: string; msg?: string; message?: string };
          } catch {
            return {};
          }
        })
        .find((l) => /session debugger gone/.test(l.msg ?? l.message ?? ''));
      if (!logged) await sleep(100);
    }
    expect(logged?.level).toBe('error');
    await h.call('dbg_close', { session_id: start.data.session_id });
  });
});
