// A Windows program under Wine through the whole tool surface, with backend "winedbg":
// breakpoints (a line, a condition, a function past its prologue), locals and finish, a hang
// interrupted at the deadline, a deadlock of critical sections, the program's output and input,
// winedbg's prompt through dbg_command, attaching by Windows pid, restart, and what a closed
// session leaves in the prefix (nothing of its own; another session untouched).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseInfoProcess } from '../../../src/backends/winedbg/winedbgText.js';
import type { McpCaller } from '../../helpers/mcp.js';
import { alive, killQuietly } from '../../helpers/procfs.js';
import { windowsLineOf, windowsToolsMissing } from '../../integration/winedbg/windowsFixtures.js';
import {
  commandLine,
  leftovers,
  PREFIX_TIMEOUT_MS,
  readyPrefix,
  runUnderWine,
  START_MS,
  sessionProcesses,
  start,
  winedbgServer,
} from './winedbgServer.js';

const missing = windowsToolsMissing();
let prefixDir = '';
let h: McpCaller;

describe.skipIf(missing !== undefined)(`Windows programs through every tool${missing ? ` (${missing})` : ''}`, () => {
  beforeAll(async () => {
    prefixDir = await readyPrefix();
  }, PREFIX_TIMEOUT_MS);
  afterEach(async () => {
    await h?.close();
  });

  it('breakpoints: a line with a condition, a function past its prologue, locals, finish with the value', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const loop = windowsLineOf('locals.c', 'loop');
    const r = await start(h, 'locals', { breakpoints: [{ location: `locals.c:${loop}`, condition: 'i == 3' }] });
    expect(r.data.outcome).toMatchObject({ reason: 'breakpoint-hit', frame: { function: 'main', line: loop } });
    const id = r.data.session_id;
    const locals = await h.call('dbg_inspect', { session_id: id, view: 'locals' });
    expect(locals.data.data.variables).toEqual(
      expect.arrayContaining([
        { name: 'i', type: 'int', value: '3' },
        { name: 'total', type: 'int', value: '5' },
        { name: 'label', type: 'const char *', value: expect.stringMatching(/^0x[0-9a-f]+ "sum"$/) },
        { name: 'p', type: 'struct pair', value: '{left = 3, right = 0.5}' },
      ]),
    );
    // square(3): into it, then finish with its value.
    const square = await h.call('dbg_breakpoints', { session_id: id, action: 'set', location: 'square' });
    const inSquare = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(inSquare.data.outcome.frame).toMatchObject({ function: 'square', args: [{ name: 'v', value: '3' }] });
    const finished = await h.call('dbg_run', { session_id: id, action: 'finish' });
    expect(finished.data.outcome).toMatchObject({ reason: 'function-finished', return_value: '9' });
    // scale() takes a struct by value: GDB alone would stop before its arguments are stored.
    const numbers = [r.data.breakpoints[0].number, square.data.breakpoint.number];
    await h.call('dbg_breakpoints', { session_id: id, action: 'delete', numbers });
    const set = await h.call('dbg_breakpoints', { session_id: id, action: 'set', location: 'scale' });
    expect(set.data.breakpoint).toMatchObject({
      function: 'scale',
      line: windowsLineOf('locals.c', 'scale-opening') + 1,
    });
    const inScale = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(inScale.data.outcome.frame.args).toEqual([
      { name: 'p', value: '...' },
      { name: 'by', value: '2' },
    ]);
    const end = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(end.data.outcome).toMatchObject({ kind: 'exited', exit_code: 0 });
    expect(end.data.output.text).toBe('sum 30 7.0\r\n');
  });

  it('a hang: interrupted at the deadline on the program’s own thread, the spin in the threads view', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'hang', { timeout_ms: 3000 });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    const threads = r.data.views.threads.threads;
    // winedbg's break-in thread is not the program's: not listed.
    expect(threads).toHaveLength(1);
    expect(threads[0].id).toBe(r.data.outcome.thread);
    expect(threads[0].stack[0]).toMatchObject({ function: 'spin', line: windowsLineOf('hang.c', 'spin') });
    expect(r.data.views.threads.hint).toMatch(/spinning/);
    // And again, with dbg_run: continue, then interrupt.
    const id = r.data.session_id;
    const running = await h.call('dbg_run', {
      session_id: id,
      action: 'continue',
      timeout_ms: 500,
      on_timeout: 'return',
    });
    expect(running.data.outcome.kind).toBe('running');
    const stopped = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect(stopped.data.outcome, stopped.text).toMatchObject({
      kind: 'stopped',
      signal: 'SIGINT',
      thread: threads[0].id,
    });
    // One instruction on (`next` would never leave the one-line endless loop).
    const step = await h.call('dbg_run', { session_id: id, action: 'stepi' });
    expect(step.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'spin' } });
  });

  it('a deadlock of two critical sections: each thread waits for the other, by name', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'deadlock', { timeout_ms: 3000 });
    const view = r.data.views.threads;
    expect(view.hint).toMatch(
      // Each thread named by its start function (the fixture's audit and transfer).
      /^deadlock: thread \d+ \((audit|transfer)\) waits for thread \d+ \(mutex (accounts|ledger) \(0x[0-9a-f]+\)\), thread \d+ \((audit|transfer)\) waits for thread \d+ \(mutex (accounts|ledger)/,
    );
    const waits = view.threads.map((t: { waiting?: string }) => t.waiting ?? '');
    expect(
      waits.filter((w: string) => /^mutex (accounts|ledger) \(0x[0-9a-f]+\), held by thread \d+$/.test(w)),
    ).toHaveLength(2);
    expect(waits).toContain('object (WaitForMultipleObjects)');
  });

  it("the program's output reaches dbg_io and the answers; stdin comes from dbg_start and dbg_io, EOF too", {
    timeout: 2 * START_MS,
  }, async () => {
    h = await winedbgServer();
    const fed = await start(h, 'echo', { stdin: 'hello\n' });
    expect(fed.data.outcome).toMatchObject({ kind: 'exited', exit_code: 0 });
    expect(fed.data.output.text).toBe('ready\r\ngot:hello\r\nerr:5\r\n');
    // The text answer quotes each line: a Windows line end ends a line, no \r is left escaped in it.
    expect(fed.text).toMatch(/^\| ready\n\| got:hello\n\| err:5$/m);
    expect(fed.text).not.toContain('\\x0d');
    const eof = await start(h, 'echo', { stdin: '' });
    expect(eof.data.outcome).toMatchObject({ kind: 'exited', exit_code: 3 });
    expect(eof.data.output.text).toBe('ready\r\neof\r\n');

    const r = await start(h, 'echo', { stop: 'main' });
    expect(r.data.outcome.frame).toMatchObject({ function: 'main', line: 8 });
    const id = r.data.session_id;
    const waiting = await h.call('dbg_run', {
      session_id: id,
      action: 'continue',
      timeout_ms: 1000,
      on_timeout: 'return',
    });
    expect(waiting.data.outcome.kind).toBe('running');
    const wrote = await h.call('dbg_io', { session_id: id, action: 'write', data: 'typed\n' });
    expect(wrote.isError, wrote.text).toBe(false);
    const end = await h.call('dbg_run', { session_id: id, action: 'wait', timeout_ms: 60_000 });
    expect(end.data.outcome).toMatchObject({ kind: 'exited', exit_code: 0 });
    const read = await h.call('dbg_io', { session_id: id, action: 'read' });
    expect(read.data.text).toBe('ready\r\ngot:typed\r\nerr:5\r\n');
  });

  it('64 KiB of input to a program that does not read: answered at once, the rest queued up to the cap, other calls answered', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'hang', { timeout_ms: 1000, on_timeout: 'return' });
    expect(r.data.outcome.kind).toBe('running');
    const id = r.data.session_id;
    const chunk = `${'a'.repeat(99)}\n`.repeat(656).slice(0, 65536);
    // Sent together: the write answers by its deadline, and the other call is answered too.
    const [first, sessions] = await Promise.all([
      h.call('dbg_io', { session_id: id, action: 'write', data: chunk }),
      h.call('dbg_sessions', {}),
    ]);
    expect(sessions.isError).toBe(false);
    expect(first.isError, first.text).toBe(false);
    expect(first.data.taken + first.data.waiting).toBe(65536);
    // The pipe holds a few hundred KB; then bytes wait in the server, up to its cap, then refused.
    let waited: { data: { taken: number; waiting: number }; text: string } | undefined;
    let refused: { isError: boolean; code?: string; text: string } | undefined;
    for (let i = 0; i < 40 && refused === undefined; i++) {
      const w = await h.call('dbg_io', { session_id: id, action: 'write', data: chunk });
      if (w.isError) refused = w;
      else if (w.data.waiting > 0) waited ??= w;
    }
    expect(waited?.text).toMatch(/the terminal took \d+ bytes, \d+ wait here and go in as the program reads/);
    expect(refused).toMatchObject({ isError: true, code: 'limit_exceeded' });
    expect(refused?.text).toMatch(/bytes of earlier input are still waiting for the program to read them/);
    const stopped = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect(stopped.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    const eof = await h.call('dbg_io', { session_id: id, action: 'eof' });
    expect(eof.data).toMatchObject({ taken: 0, waiting: 1 });
  });

  it("dbg_command: GDB's dialect through the proxy, winedbg's prompt for info process and the exceptions", {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'access', { args: ['write'] });
    const id = r.data.session_id;
    const processes = await h.call('dbg_command', { session_id: id, command: 'info process' });
    const listed = parseInfoProcess(processes.data.output);
    const program = listed.find((p) => p.name === 'access.exe');
    expect(program, processes.data.output).toBeDefined();
    expect(listed.find((p) => p.pid === program?.parentPid)?.name).toMatch(/^dbgmcp-launch-/);
    expect(listed.some((p) => p.name === 'services.exe')).toBe(true);
    const exceptions = await h.call('dbg_command', { session_id: id, command: 'winedbg info exception' });
    expect(exceptions.data.output).toMatch(
      new RegExp(`0xc0000005 EXCEPTION_ACCESS_VIOLATION in process 0x${program?.pid.toString(16)}, thread 0x`),
    );
    const libraries = await h.call('dbg_command', { session_id: id, command: 'info sharedlibrary' });
    expect(libraries.data.output).toMatch(/system32\/ntdll\.dll/);
    const refused = await h.call('dbg_command', { session_id: id, command: 'winedbg attach 0x20' });
    expect(refused).toMatchObject({ isError: true, code: 'invalid_argument' });
    const twoLines = await h.call('dbg_command', { session_id: id, command: 'winedbg info process\ninfo thread' });
    expect(twoLines).toMatchObject({ isError: true, code: 'invalid_argument' });
  });

  it('attach by Windows pid: stopped where it spins; closing detaches and the program runs on', {
    timeout: 2 * START_MS,
  }, async () => {
    h = await winedbgServer();
    // The prompt lists the prefix's processes; a program started by hand in it is attachable.
    const first = await start(h, 'locals', { stop: 'no-run' });
    runUnderWine(prefixDir, 'hang');
    let hang: { pid: number } | undefined;
    let listed: ReturnType<typeof parseInfoProcess> = [];
    // Wine starts it in a second or two (more on a loaded machine): asked at most 60 times.
    for (let i = 0; i < 60 && hang === undefined; i++) {
      const l = await h.call('dbg_command', { session_id: first.data.session_id, command: 'winedbg info process' });
      listed = parseInfoProcess(l.data.output);
      hang = listed.find((p) => p.name === 'hang.exe');
      if (hang === undefined) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(hang, 'hang.exe listed by winedbg info process').toBeDefined();
    await h.call('dbg_close', { session_id: first.data.session_id });
    const a = await h.call('dbg_start', { backend: 'winedbg', attach: hang?.pid }, { timeoutMs: START_MS });
    expect(a.isError, a.text).toBe(false);
    expect(a.data.target).toMatchObject({ kind: 'attach', pid: hang?.pid });
    expect(a.data.program).toMatch(/hang\.exe$/);
    expect(a.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'spin' } });
    expect(a.data.outcome.signal).toBeUndefined();
    const unixPid = (await h.call('dbg_sessions', {})).data.sessions[0].pids[0];
    expect(commandLine(unixPid)).toMatch(/hang\.exe/);
    await h.call('dbg_close', { session_id: a.data.session_id });
    expect(alive(unixPid)).toBe(true);
    killQuietly(unixPid);
    // Wine's own processes cannot be attached to: they serve every program of the prefix.
    const services = listed.find((p) => p.name === 'services.exe');
    const refused = await h.call('dbg_start', { backend: 'winedbg', attach: services?.pid }, { timeoutMs: START_MS });
    expect(refused).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(refused.text).toMatch(/services\.exe .* is one of Wine's own processes/);
  });

  it('closing a session ends what its program started, in its console and in a console of its own', {
    timeout: 2 * START_MS,
  }, async () => {
    h = await winedbgServer();
    for (const mode of ['same-console', 'new-console']) {
      const r = await start(h, 'spawn', { args: [mode], timeout_ms: 1000, on_timeout: 'return' });
      const id = r.data.session_id;
      let said = r.data.output?.text ?? '';
      // Wine starts the child in a second or two (more on a loaded machine): read at most 60 times.
      // In one console the child's "child N" line can land inside the parent's "started child N"
      // (seen: "started chilchild 640\nd 640"): either line names the child.
      const CHILD = /child (\d+)/;
      for (let i = 0; i < 60 && !CHILD.test(said); i++) {
        said += (await h.call('dbg_io', { session_id: id, action: 'read', wait_ms: 1000 })).data.text;
      }
      const child = CHILD.exec(said)?.[1];
      expect(child, `${mode}: ${said}`).toBeDefined();
      // The launcher, spawn.exe and its child (a Unix session of its own with new-console).
      const before = [...sessionProcesses(prefixDir).values()].filter((l) => /spawn\.exe/.test(l));
      expect(
        before.filter((l) => /spawn\.exe"? child/.test(l)),
        `${mode}: ${before.join(' | ')}`,
      ).toHaveLength(1);
      await h.call('dbg_close', { session_id: id });
      expect(leftovers(prefixDir, 'spawn.exe'), mode).toEqual([]);
    }
  });

  it('closing a session ends its program, winedbg and launcher; another session keeps running', {
    timeout: 2 * START_MS,
  }, async () => {
    h = await winedbgServer();
    const a = await start(h, 'hang', { timeout_ms: 1000, on_timeout: 'return' });
    const ofA = sessionProcesses(prefixDir);
    const b = await start(h, 'threads', { timeout_ms: 1000, on_timeout: 'return' });
    const ofB = [...sessionProcesses(prefixDir)].filter(([pid]) => !ofA.has(pid));
    // Each: the launcher, the program, start.exe and winedbg.
    expect([...ofA.values()].filter((l) => /hang\.exe|--gdb/.test(l)).length).toBeGreaterThanOrEqual(3);
    expect(ofB.filter(([, l]) => /threads\.exe|--gdb/.test(l)).length).toBeGreaterThanOrEqual(3);
    await h.call('dbg_close', { session_id: a.data.session_id });
    expect([...ofA].filter(([pid]) => alive(pid)).map(([pid, l]) => `${pid} ${l}`)).toEqual([]);
    expect(ofB.filter(([pid]) => !alive(pid)).map(([pid, l]) => `${pid} ${l}`)).toEqual([]);
    const stopped = await h.call('dbg_run', { session_id: b.data.session_id, action: 'interrupt' });
    expect(stopped.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    const restarted = await h.call(
      'dbg_run',
      { session_id: b.data.session_id, action: 'restart', timeout_ms: 2000 },
      { timeoutMs: START_MS },
    );
    expect(restarted.isError, restarted.text).toBe(false);
    await h.call('dbg_close', { session_id: b.data.session_id });
    expect(leftovers(prefixDir, 'threads.exe')).toEqual([]);
  });
});
