// dbg_breakpoints end to end: every action and kind against real gdb, and what each does to the
// stops dbg_run reaches.
import { describe, expect, it } from 'vitest';
import { hardwareVerdicts } from '../helpers/machine.js';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

async function session(name: string, stop: 'main' | 'no-run', args: string[] = []) {
  const h = await startServer();
  const r = await h.call('dbg_start', { program: fixture(name), stop, args, inspect: ['none'] });
  expect(r.isError, r.text).toBe(false);
  const id = r.data.session_id as string;
  const bp = (args: Record<string, unknown>) => h.call('dbg_breakpoints', { session_id: id, ...args });
  const run = (action: string, extra: Record<string, unknown> = {}) =>
    h.call('dbg_run', { session_id: id, action, inspect: ['none'], ...extra });
  return { h, id, bp, run };
}

describe('dbg_breakpoints: breakpoints', () => {
  it('sets, lists, disables, enables and deletes, answering the whole table each time', async () => {
    const { bp, run } = await session('loop', 'no-run');
    const first = await bp({ action: 'set', location: 'square' });
    expect(first.data.breakpoint).toMatchObject({ number: '1', type: 'breakpoint', function: 'square', line: 7 });
    expect(first.text).toContain('set 1 breakpoint square at loop.c:7');
    const second = await bp({ action: 'set', location: 'loop.c:15' });
    expect(second.data.breakpoint).toMatchObject({ number: '2', type: 'breakpoint', line: 15 });
    expect(second.data.breakpoints.map((b: { number: string }) => b.number)).toEqual(['1', '2']);

    const off = await bp({ action: 'disable', numbers: ['1'] });
    expect(off.data.changed).toEqual(['1']);
    expect(off.data.breakpoints[0]).toMatchObject({ number: '1', enabled: false });
    expect(off.text).toContain('[disabled]');
    const ran = await run('run');
    expect(ran.data.outcome).toMatchObject({ reason: 'breakpoint-hit', breakpoint: '2', frame: { line: 15 } });

    const on = await bp({ action: 'enable', numbers: ['1'] });
    expect(on.data.breakpoints[0]).toMatchObject({ number: '1', enabled: true });
    const gone = await bp({ action: 'delete', numbers: ['2'] });
    expect(gone.data.breakpoints.map((b: { number: string }) => b.number)).toEqual(['1']);
    const list = await bp({ action: 'list' });
    expect(list.data.breakpoints).toEqual([expect.objectContaining({ number: '1', hits: 0 })]);
    expect(list.data.breakpoint).toBeUndefined();
  });

  it('a thread-specific breakpoint stops only that thread', async () => {
    const { bp, run } = await session('loop', 'main');
    const set = await bp({ action: 'set', location: 'square', thread: 1 });
    expect(set.data.breakpoint).toMatchObject({ type: 'breakpoint', thread: 1, function: 'square' });
    const hit = await run('continue');
    expect(hit.data.outcome).toMatchObject({ breakpoint: set.data.breakpoint.number, frame: { function: 'square' } });
    // GDB/MI would take a thread that does not exist, and the breakpoint would never stop.
    const none = await bp({ action: 'set', location: 'square', thread: 7 });
    expect(none).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(none.data.error.message).toMatch(/there is no thread 7 \(the program's threads are 1;/);
    const listed = (await bp({ action: 'list' })).data.breakpoints as { thread?: number }[];
    expect(listed.length, 'the table is not empty').toBeGreaterThan(0);
    expect(
      listed.filter((b) => b.thread === 7),
      'nothing was set',
    ).toEqual([]);
  });

  it('hardware breakpoints, once the program runs; where they never fire, set with a warning', async (ctx) => {
    const early = await session('loop', 'no-run');
    const refused = await early.bp({ action: 'set', location: 'square', hardware: true });
    expect(refused).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(refused.data.error.message).toMatch(/once the program runs/);

    const hardware = await hardwareVerdicts();
    if (hardware.breakpoints === 'unknown') ctx.skip(`the hardware probe could not tell: ${hardware.detail}`);
    const { bp, run } = await session('loop', 'main');
    const hw = await bp({ action: 'set', location: 'square', hardware: true, thread: 1 });
    expect(hw.data.breakpoint).toMatchObject({ type: 'hw breakpoint', thread: 1, function: 'square' });
    const hit = await run('continue');
    if (hardware.breakpoints === 'work') {
      expect(hw.data.warnings).toBeUndefined();
      expect(hit.data.outcome).toMatchObject({ breakpoint: hw.data.breakpoint.number, frame: { function: 'square' } });
    } else {
      // This machine accepts hardware breakpoints and never fires them (the probe saw it): the
      // answer says so when it is set, and the run goes past it.
      expect(hw.data.warnings).toEqual([expect.stringMatching(/^hardware breakpoint \d+ may never stop the program/)]);
      expect(hw.text).toMatch(/warning: hardware breakpoint \d+ may never stop the program/);
      expect(hit.data.outcome).toMatchObject({ kind: 'exited', exit_code: 0 });
      expect(hit.data.never_hit).toEqual([hw.data.breakpoint.number]);
    }
  });

  it('list shows hit counts as the program runs', async () => {
    const { bp, run } = await session('loop', 'main');
    await bp({ action: 'set', location: 'square' });
    for (let i = 0; i < 3; i++) await run('continue');
    const list = await bp({ action: 'list' });
    expect(list.data.breakpoints.find((b: { number: string }) => b.number === '2')).toMatchObject({ hits: 3 });
    expect(list.text).toMatch(/2 breakpoint square at loop\.c:7 hits=3/);
  });

  it('a condition and an ignore count decide which hit stops', async () => {
    const { bp, run } = await session('loop', 'main');
    const set = await bp({ action: 'set', location: 'square', condition: 'v == 3' });
    expect(set.data.breakpoint).toMatchObject({ number: '2', condition: 'v == 3' });
    const third = await run('continue');
    expect(third.data.outcome.frame.args).toEqual([{ name: 'v', value: '3' }]);

    const cleared = await bp({ action: 'condition', number: '2', condition: '' });
    expect(cleared.data.breakpoints).toEqual([expect.objectContaining({ number: '2', hits: 1 })]);
    expect(cleared.data.breakpoints[0].condition).toBeUndefined();
    const next = await run('continue');
    expect(next.data.outcome.frame.args).toEqual([{ name: 'v', value: '4' }]);

    const restarted = await run('restart');
    expect(restarted.data.outcome.frame.function).toBe('main');
    const ignored = await bp({ action: 'ignore', number: '2', count: 2 });
    expect(ignored.data.breakpoints[0]).toMatchObject({ number: '2', ignore_count: 2 });
    const skipped = await run('continue');
    expect(skipped.data.outcome.frame.args).toEqual([{ name: 'v', value: '2' }]);
  });

  it('an ignore count given at set passes the first hits', async () => {
    const { bp, run } = await session('loop', 'no-run');
    await bp({ action: 'set', location: 'square', ignore_count: 3 });
    const r = await run('run');
    expect(r.data.outcome.frame.args).toEqual([{ name: 'v', value: '3' }]);
  });

  it('a temporary breakpoint stops once and leaves the table', async () => {
    const { bp, run } = await session('loop', 'main');
    const t = await bp({ action: 'set', location: 'square', temporary: true });
    expect(t.data.breakpoint).toMatchObject({ number: '2', temporary: true });
    const hit = await run('continue');
    expect(hit.data.outcome).toMatchObject({ breakpoint: '2', frame: { function: 'square' } });
    // The temporary breakpoint dbg_start stop=main used is gone too.
    const list = await bp({ action: 'list' });
    expect(list.data.breakpoints).toEqual([]);
    expect(list.text).toContain('no breakpoints');
    const end = await run('continue');
    expect(end.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
  });

  it('a location that does not resolve is set pending, with a warning; never-hit ones are named at exit', async () => {
    const { bp, run } = await session('loop', 'no-run');
    const pending = await bp({ action: 'set', location: 'no_such_function' });
    expect(pending.isError).toBe(false);
    expect(pending.data.breakpoint).toMatchObject({ number: '1', pending: true });
    expect(pending.data.warnings[0]).toMatch(/breakpoint 1 at no_such_function is pending/);
    expect(pending.text).toMatch(/warning: breakpoint 1 .* pending/);
    await bp({ action: 'set', location: 'square', condition: 'v == 99' });
    await bp({ action: 'set', location: 'main' });
    const first = await run('run');
    expect(first.data.outcome.breakpoint).toBe('3');
    const end = await run('continue');
    expect(end.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(end.data.never_hit).toEqual(['1', '2']);
    expect(end.text).toMatch(/never hit: 1 \(no_such_function\), 2 \(square\)/);
  });
});

describe('dbg_breakpoints: the frame a watchpoint is read in', () => {
  it("stopped inside a library, a variable of the program's frame: the error names the frame used, frame: N sets it", async () => {
    const { bp, run } = await session('hello', 'main');
    expect((await bp({ action: 'set', location: 'printf' })).isError).toBe(false);
    const hit = await run('continue');
    expect(hit.data.outcome).toMatchObject({ reason: 'breakpoint-hit' });
    const refused = await bp({ action: 'set', kind: 'watchpoint', expression: 'y' });
    expect(refused).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(refused.data.error.message).toMatch(
      /^expression: No symbol "y" in current context \(read in frame #0, \S*printf\S* (in|at) \S+\); a variable of another frame\? give frame: N/,
    );
    expect(refused.data.error.details.fields).toEqual(['expression']);
    const set = await bp({ action: 'set', kind: 'watchpoint', expression: 'y', frame: 1 });
    expect(set.isError, set.text).toBe(false);
    expect(set.data.breakpoint).toMatchObject({ what: 'y' });
    // frame goes with a watchpoint only.
    const wrong = await bp({ action: 'set', location: 'main', frame: 1 });
    expect(wrong).toMatchObject({ isError: true, code: 'invalid_argument' });
  });
});

describe('dbg_breakpoints: watchpoints', () => {
  /** The mechanism this machine's probe says a watchpoint gets, or a skip when it could not tell. */
  async function expectedMechanism(ctx: { skip(note: string): never }): Promise<'hardware' | 'software'> {
    const hardware = await hardwareVerdicts();
    if (hardware.watchpoints === 'unknown') ctx.skip(`the hardware probe could not tell: ${hardware.detail}`);
    return hardware.watchpoints === 'dead' ? 'software' : 'hardware';
  }

  it('a write watchpoint stops dbg_run continue with the old and new value, in hardware or said to be in software', async (ctx) => {
    const mechanism = await expectedMechanism(ctx);
    const { bp, run } = await session('loop', 'main');
    const w = await bp({ action: 'set', kind: 'watchpoint', expression: 'total' });
    if (mechanism === 'hardware') {
      expect(w.data.breakpoint).toMatchObject({ number: '2', type: 'hw watchpoint', what: 'total' });
      expect(w.data.warnings).toBeUndefined();
    } else {
      expect(w.data.breakpoint).toMatchObject({ number: '2', type: 'watchpoint', what: 'total' });
      expect(w.data.warnings).toEqual([
        expect.stringMatching(
          /^watchpoint 2 is a software watchpoint because hardware watchpoints never fire on this machine/,
        ),
      ]);
    }
    const first = await run('continue');
    expect(first.data.outcome).toMatchObject({
      reason: 'watchpoint-trigger',
      breakpoint: '2',
      watch: { expression: 'total', old: '0', new: '1' },
    });
    expect(first.text).toContain('watchpoint 2 (total): 0 → 1');
    const second = await run('continue');
    expect(second.data.outcome.watch).toMatchObject({ old: '1', new: '5' });
  });

  it('a read watchpoint stops where the value is read, an access one where it is written; refused where only software ones work', async (ctx) => {
    const mechanism = await expectedMechanism(ctx);
    const { bp, run } = await session('data', 'main');
    const r = await bp({ action: 'set', kind: 'watchpoint', expression: 'reads', access: 'read' });
    if (mechanism === 'software') {
      // GDB watches only writes in software.
      expect(r).toMatchObject({ isError: true, code: 'backend_unavailable' });
      expect(r.data.error.message).toMatch(/^a read watchpoint needs the CPU's debug registers.*access=write/);
      const a = await bp({ action: 'set', kind: 'watchpoint', expression: 'rec.id', access: 'access' });
      expect(a).toMatchObject({ isError: true, code: 'backend_unavailable' });
      expect((await bp({ action: 'list' })).data.breakpoints).toEqual([]);
      return;
    }
    expect(r.data.breakpoint).toMatchObject({ type: 'read watchpoint', what: 'reads' });
    const read = await run('continue');
    expect(read.data.outcome).toMatchObject({
      reason: 'read-watchpoint-trigger',
      watch: { expression: 'reads', value: '0' },
      frame: { function: 'peek' },
    });
    await bp({ action: 'delete', numbers: [r.data.breakpoint.number] });
    const a = await bp({ action: 'set', kind: 'watchpoint', expression: 'rec.id', access: 'access' });
    expect(a.data.breakpoint).toMatchObject({ type: 'acc watchpoint' });
    const written = await run('continue');
    expect(written.data.outcome).toMatchObject({
      reason: 'access-watchpoint-trigger',
      watch: { expression: 'rec.id', old: '7', new: '8' },
      frame: { function: 'main' },
    });
  });

  it('watch_location watches the address of a local, with a condition', async (ctx) => {
    const mechanism = await expectedMechanism(ctx);
    const { bp, run } = await session('data', 'main');
    const w = await bp({
      action: 'set',
      kind: 'watchpoint',
      expression: 'counter',
      watch_location: true,
      condition: 'counter == 5',
    });
    expect(w.isError, w.text).toBe(false);
    expect(w.data.breakpoint.what).toMatch(/counter/);
    expect(w.data.breakpoint.type).toBe(mechanism === 'hardware' ? 'hw watchpoint' : 'watchpoint');
    expect(w.data.breakpoint.condition).toBe('counter == 5');
    const hit = await run('continue');
    expect(hit.data.outcome).toMatchObject({ reason: 'watchpoint-trigger', watch: { new: '5' } });
  });
});

describe('dbg_breakpoints: catchpoints and dprintf', () => {
  it('catches fork, a syscall and exec', async () => {
    const { bp, run } = await session('spawn', 'main', ['exec']);
    expect((await bp({ action: 'set', kind: 'catchpoint', event: 'fork' })).data.breakpoint).toMatchObject({
      type: 'catchpoint',
      what: 'fork',
    });
    const sys = await bp({ action: 'set', kind: 'catchpoint', event: 'syscall', filter: 'write' });
    expect(sys.data.breakpoint).toMatchObject({ type: 'catchpoint', what: 'write' });
    await bp({ action: 'set', kind: 'catchpoint', event: 'exec' });

    const fork = await run('continue');
    expect(fork.data.outcome).toMatchObject({ reason: 'fork', breakpoint: '2' });
    expect(fork.data.outcome.new_pid).toBeGreaterThan(0);
    const write = await run('continue');
    expect(write.data.outcome).toMatchObject({ reason: 'syscall-entry', syscall: 'write', breakpoint: '3' });
    await bp({ action: 'delete', numbers: ['3'] });
    const exec = await run('continue');
    expect(exec.data.outcome).toMatchObject({ reason: 'exec', breakpoint: '4' });
    expect(exec.data.outcome.new_program).toMatch(/echo_args$/);
    const end = await run('continue');
    expect(end.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(end.data.output.text).toContain('[from-exec]');
  });

  it('catches a signal, temporarily', async () => {
    const { bp, run } = await session('crash', 'no-run', ['abort']);
    const c = await bp({ action: 'set', kind: 'catchpoint', event: 'signal', filter: 'SIGABRT', temporary: true });
    expect(c.data.breakpoint).toMatchObject({ type: 'catchpoint', temporary: true });
    const r = await run('run');
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', reason: 'catchpoint', breakpoint: '1', signal: 'SIGABRT' });
    expect(r.text).toMatch(/catchpoint 1 \(SIGABRT\) hit in/);
    expect((await bp({ action: 'list' })).data.breakpoints).toEqual([]);
    // Continuing delivers the signal the catchpoint held.
    const delivered = await run('continue');
    expect(delivered.data.outcome).toMatchObject({ kind: 'exited', signal: 'SIGABRT' });
  });

  it('catches a library load', async () => {
    const { bp, run } = await session('hello', 'no-run');
    const c = await bp({ action: 'set', kind: 'catchpoint', event: 'load', filter: 'libc' });
    expect(c.data.breakpoint).toMatchObject({ type: 'catchpoint' });
    const r = await run('run');
    expect(r.data.outcome).toMatchObject({ reason: 'solib-event', breakpoint: '1' });
  });

  it('dprintf prints to the debugger console without stopping', async () => {
    const { h, id, bp, run } = await session('loop', 'no-run');
    const d = await bp({
      action: 'set',
      kind: 'dprintf',
      location: 'square',
      format: 'v=%d sq=%d\\n',
      format_args: ['v', 'v * v'],
    });
    expect(d.data.breakpoint).toMatchObject({ type: 'dprintf', function: 'square' });
    const end = await run('run');
    expect(end.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(end.data.never_hit).toBeUndefined();
    const out = await h.call('dbg_io', { session_id: id, action: 'read', stream: 'debugger', cursor: 0 });
    expect(out.isError, out.text).toBe(false);
    expect(out.data.text).toContain('v=0 sq=0\nv=1 sq=1\nv=2 sq=4\nv=3 sq=9\nv=4 sq=16\n');
    const list = await bp({ action: 'list' });
    expect(list.data.breakpoints[0]).toMatchObject({ type: 'dprintf', hits: 5 });
  });
});

describe('dbg_breakpoints: refusals', () => {
  it('refuses while the program runs, naming the interrupt', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), timeout_ms: 300, on_timeout: 'return' });
    expect(start.data.outcome).toEqual({ kind: 'running' });
    const id = start.data.session_id;
    const r = await h.call('dbg_breakpoints', { session_id: id, action: 'set', location: 'main' });
    expect(r).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(r.data.error.message).toMatch(/^cannot change breakpoints: the program is running: .*action=interrupt/);
    expect((await h.call('dbg_breakpoints', { session_id: id, action: 'list' })).code).toBe('wrong_state');
    // Every session tool names its own verb (the title "Breakpoints" is not one).
    const inspect = await h.call('dbg_inspect', { session_id: id, view: 'stack' });
    expect(inspect.data.error.message).toMatch(/^cannot inspect the program: the program is running/);
    await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect((await h.call('dbg_breakpoints', { session_id: id, action: 'list' })).isError).toBe(false);
  });

  it('checks that each action gets the fields it needs and no others', async () => {
    const { bp } = await session('loop', 'no-run');
    const missing = await bp({ action: 'set' });
    expect(missing).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(missing.data.error.message).toMatch(/set breakpoint needs location/);
    const stray = await bp({ action: 'set', location: 'main', expression: 'total' });
    expect(stray.data.error.message).toMatch(/expression does not apply to set breakpoint/);
    expect((await bp({ action: 'set', kind: 'watchpoint' })).data.error.message).toMatch(/needs expression/);
    expect((await bp({ action: 'set', kind: 'dprintf', location: 'main' })).data.error.message).toMatch(/format/);
    expect((await bp({ action: 'delete' })).data.error.message).toMatch(/delete needs numbers/);
    expect((await bp({ action: 'ignore', number: '1' })).data.error.message).toMatch(/ignore needs count/);
    expect((await bp({ action: 'list', location: 'main' })).code).toBe('invalid_argument');
    for (const bad of [
      { action: 'delete', numbers: ['one'] },
      { action: 'set', location: 'main\nrun' },
      { action: 'set', location: 'main', bogus: 1 },
      { action: 'set', location: 'main', ignore_count: -1 },
      { action: 'jump' },
    ]) {
      expect(await bp(bad), JSON.stringify(bad)).toMatchObject({ isError: true, code: 'invalid_argument' });
    }
  });

  it('a change to a breakpoint that does not exist says how to find the numbers', async () => {
    const { bp } = await session('loop', 'no-run');
    await bp({ action: 'set', location: 'square' });
    const r = await bp({ action: 'delete', numbers: ['1', '42'] });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toBe('no breakpoint 42 (action=list shows the numbers)');
    expect((await bp({ action: 'condition', number: '7', condition: 'v > 1' })).code).toBe('invalid_argument');
    const kept = await bp({ action: 'disable', numbers: ['1.1'] });
    expect(kept.isError, kept.text).toBe(false);
    expect((await bp({ action: 'list' })).data.breakpoints).toEqual([expect.objectContaining({ number: '1' })]);
  });
});
