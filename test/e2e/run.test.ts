// dbg_run and dbg_inspect end to end: moving the program, waiting with deadlines, interrupts,
// cancellation, progress, and the errors an agent can act on.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

async function atMain(name: string, extra: Record<string, unknown> = {}) {
  const h = await startServer();
  const r = await h.call('dbg_start', { program: fixture(name), stop: 'main', ...extra });
  expect(r.data.outcome?.kind).toBe('stopped');
  return { h, id: r.data.session_id as string };
}

describe('dbg_run: stepping', () => {
  it('next, step into a call, finish with its value, until and advance', async () => {
    const { h, id } = await atMain('loop');
    const next = await h.call('dbg_run', { session_id: id, action: 'next' });
    expect(next.data.outcome).toMatchObject({ reason: 'end-stepping-range', frame: { function: 'main', line: 13 } });
    const step = await h.call('dbg_run', { session_id: id, action: 'step' });
    expect(step.data.outcome).toMatchObject({ frame: { function: 'square', line: 7 } });
    const finish = await h.call('dbg_run', { session_id: id, action: 'finish' });
    expect(finish.data.outcome).toMatchObject({
      reason: 'function-finished',
      return_value: '0',
      frame: { function: 'main' },
    });
    const adv = await h.call('dbg_run', { session_id: id, action: 'advance', location: 'loop.c:15' });
    expect(adv.data.outcome.frame.line).toBe(15);
    const stopIds = [next, step, finish, adv].map((r) => r.data.session.stop_id);
    expect(stopIds).toEqual([...stopIds].sort((a, b) => a - b));
    expect(new Set(stopIds).size).toBe(4);
  });

  it('continues to the exit and lists the breakpoints never hit', async () => {
    const { h, id } = await atMain('hello');
    const bp = await h.call('dbg_inspect', { session_id: id, view: 'stop' });
    expect(bp.isError).toBe(false);
    const r = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(r.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(r.data.output.text).toBe('hello 5\n');
    const again = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(again).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(again.data.error.message).toMatch(/restart/);
    const restarted = await h.call('dbg_run', { session_id: id, action: 'restart' });
    expect(restarted.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'main' } });
    // run on a program that has started already names the next step, as every wrong_state does.
    const run = await h.call('dbg_run', { session_id: id, action: 'run' });
    expect(run).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(run.data.error.message).toMatch(
      /^cannot start the program: the program is stopped, started already: .*action=restart/,
    );
  });

  it('reports breakpoints that were never hit when the program exits', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', {
      program: fixture('loop'),
      breakpoints: [{ location: 'square', condition: 'v == 99' }],
    });
    expect(r.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(r.data.never_hit).toEqual(['1']);
  });

  it('kills the program on request', async () => {
    const { h, id } = await atMain('hello');
    const r = await h.call('dbg_run', { session_id: id, action: 'kill' });
    expect(r.data.outcome).toMatchObject({ kind: 'exited', killed: true });
  });
});

describe('dbg_run: deadlines and interrupts', () => {
  it('returns running at the deadline, then an interrupt stops it where it is', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), timeout_ms: 300, on_timeout: 'return' });
    expect(start.data.outcome).toEqual({ kind: 'running' });
    expect(start.data.session.state).toBe('running');
    const id = start.data.session_id;
    const busy = await h.call('dbg_inspect', { session_id: id, view: 'stack' });
    expect(busy).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(busy.data.error.message).toMatch(/action=interrupt/);
    // Under load 300 ms may still be inside the dynamic loader: wait until the loop has begun.
    const printed = await h.call('dbg_io', { session_id: id, action: 'read', cursor: 0, wait_ms: 10_000 });
    expect(printed.data.text).toContain('spinning');
    const stopped = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect(stopped.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    expect(stopped.data.views.threads.threads[0].stack[0].function).toMatch(/spin|main/);
    const counter = await h.call('dbg_inspect', { session_id: id, view: 'locals' });
    expect(counter.isError).toBe(false);
  });

  it('an interrupt never waits behind a run that is waiting', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), stop: 'main' });
    const id = start.data.session_id;
    const waiting = h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    // Had the interrupt queued behind the run, the run would have answered `running` at its 20 s
    // deadline: both answering with the interrupt's stop is the proof, whatever the machine's speed.
    const interrupted = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    const continued = await waiting;
    expect(interrupted.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    expect(continued.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    expect(continued.data.outcome.stop_id).toBe(interrupted.data.outcome.stop_id);
  });

  it('an interrupt sent right behind a continue stops the program the continue set running', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), stop: 'main' });
    const id = start.data.session_id;
    const stopId = start.data.session.stop_id;
    // Both requests leave together: the interrupt reaches the session while the continue is still
    // on its way to gdb, so the program is not running yet. It must not answer the old stop and
    // let the continue run on to its 20 s deadline.
    const waiting = h.call('dbg_run', { session_id: id, action: 'continue', timeout_ms: 20_000 });
    const interrupted = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    const continued = await waiting;
    expect(interrupted.data.outcome, interrupted.text).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    expect(interrupted.data.outcome.stop_id).toBeGreaterThan(stopId);
    expect(continued.data.outcome, continued.text).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    expect(continued.data.outcome.stop_id).toBe(interrupted.data.outcome.stop_id);
  });

  it('a cancelled run interrupts the program', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), stop: 'main' });
    const id = start.data.session_id;
    const controller = new AbortController();
    const pending = h.call(
      'dbg_run',
      { session_id: id, action: 'continue', timeout_ms: 20_000 },
      { signal: controller.signal },
    );
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The server interrupted the program: the next call sees it stopped.
    let state = '';
    for (let i = 0; i < 50 && state !== 'stopped'; i++) {
      const r = await h.call('dbg_inspect', { session_id: id, view: 'stop' });
      state = r.data.session?.state;
      if (state !== 'stopped') await new Promise((res) => setTimeout(res, 100));
    }
    expect(state).toBe('stopped');
  });

  it('sends progress notifications while a run waits', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), stop: 'main' });
    const progress: number[] = [];
    const r = await h.client.callTool(
      {
        name: 'dbg_run',
        arguments: { session_id: start.data.session_id, action: 'continue', timeout_ms: 2500, on_timeout: 'interrupt' },
      },
      { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
    );
    expect((r.structuredContent as any).outcome.kind).toBe('stopped');
    expect(progress.length).toBeGreaterThanOrEqual(1);
  });

  it("progress rises with every notification of a call, as the spec requires (dbg_start's phases too)", async () => {
    const h = await startServer();
    const progress: number[] = [];
    const r = await h.client.callTool(
      {
        name: 'dbg_start',
        arguments: { program: fixture('spin'), timeout_ms: 2500, on_timeout: 'interrupt' },
      },
      { onprogress: (p) => progress.push(p.progress), timeout: 60_000 },
    );
    expect((r.structuredContent as any).outcome.kind).toBe('stopped');
    // Its phases ("running the program", then milliseconds run) each send one.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1] as number);
  });
});

describe('dbg_inspect and the evidence model', () => {
  it('pages a stack and refuses evidence from a stop that is gone', async () => {
    const { h, id } = await atMain('loop', { breakpoints: [{ location: 'square' }] });
    const hit = await h.call('dbg_run', { session_id: id, action: 'continue' });
    const stopId = hit.data.outcome.stop_id;
    const page = await h.call('dbg_inspect', { session_id: id, view: 'stack', stack_depth: 1, stop_id: stopId });
    expect(page.data.data.frames).toHaveLength(1);
    expect(page.data.data.more).toBe(true);
    const rest = await h.call('dbg_inspect', { session_id: id, view: 'stack', from: 1 });
    expect(rest.data.data.frames[0]).toMatchObject({ level: 1, function: 'main' });
    await h.call('dbg_run', { session_id: id, action: 'next' });
    const stale = await h.call('dbg_inspect', { session_id: id, view: 'locals', stop_id: stopId });
    expect(stale).toMatchObject({ isError: true, code: 'stale_context' });
  });

  it('shows frame, locals, args, registers, source and libraries', async () => {
    const { h, id } = await atMain('loop', { breakpoints: [{ location: 'square' }] });
    await h.call('dbg_run', { session_id: id, action: 'continue' });
    const frame = await h.call('dbg_inspect', { session_id: id, view: 'frame', frame: 1 });
    expect(frame.data.data.frame.function).toBe('main');
    expect(frame.data.data.locals).toContainEqual({ name: 'i', value: '0', type: 'int' });
    const args = await h.call('dbg_inspect', { session_id: id, view: 'args' });
    expect(args.data.data.variables).toEqual([{ name: 'v', value: '0', type: 'int' }]);
    const regs = await h.call('dbg_inspect', { session_id: id, view: 'registers', registers: ['rip', 'rsp'] });
    expect(regs.data.data.registers.map((r: { name: string }) => r.name)).toEqual(['rip', 'rsp']);
    const src = await h.call('dbg_inspect', { session_id: id, view: 'source' });
    expect(src.text).toMatch(/> ?7 /);
    const libs = await h.call('dbg_inspect', { session_id: id, view: 'libraries' });
    expect(libs.data.data.libraries.some((l: { path: string }) => l.path.includes('libc'))).toBe(true);
  });

  it('names a missing session and a bad id', async () => {
    const h = await startServer();
    const r = await h.call('dbg_run', { session_id: 'deadbeef', action: 'next' });
    expect(r).toMatchObject({ isError: true, code: 'no_session' });
    expect(r.data.error.message).toMatch(/dbg_sessions/);
    const bad = await h.call('dbg_inspect', { session_id: 'x', view: 'stop' });
    expect(bad.code).toBe('invalid_argument');
  });
});
