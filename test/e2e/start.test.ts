// dbg_start end to end: one call from a program to its evidence, for every kind of failure.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/inProcess.js';
import { fixture, fixturesDir } from '../helpers/paths.js';

describe('dbg_start: one call to the crash evidence', () => {
  it('reports the canonical NULL dereference completely, in under 4 KiB', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('crash'), args: ['segv'] });
    expect(r.isError).toBe(false);
    expect(r.size).toBeLessThan(4096);
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', reason: 'signal-received', signal: 'SIGSEGV' });
    const crash = r.data.views.crash;
    expect(crash.fault_address).toBe('0x0');
    expect(crash.hint).toMatch(/NULL pointer dereference in store/);
    expect(crash.stack.map((f: { function?: string }) => f.function)).toEqual(['store', 'update', 'process', 'main']);
    expect(crash.stack[0].args).toEqual([
      { name: 'p', value: '0x0' },
      { name: 'value', value: '12' },
    ]);
    expect(crash.locals.find((l: { function?: string }) => l.function === 'update').variables).toEqual([
      { name: 'doubled', value: '12' },
    ]);
    expect(crash.source.line).toBe(13);
    expect(crash.source.lines.some((l: { text: string }) => l.text.includes('p->x = value'))).toBe(true);
    expect(crash.instruction.instruction).toMatch(/mov/);
    expect(crash.output_tail).toContain('mode segv');
    expect(r.data.session).toMatchObject({ state: 'stopped', stop_id: 1 });
    expect(r.text).toContain('hint: NULL pointer dereference');
    expect(r.text).toMatch(/> ?13 +p->x = value/);
  });

  it('explains an abort with the assertion text the program printed', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('crash'), args: ['assert'] });
    const crash = r.data.views.crash;
    expect(crash.signal).toBe('SIGABRT');
    expect(crash.hint).toMatch(/abort: .*Assertion `count == 0 && "count must be zero"' failed/);
    // libc's frames fold into one entry; the user's main stays visible.
    expect(crash.stack.some((e: { folded?: number }) => (e.folded ?? 0) >= 2)).toBe(true);
    expect(crash.stack.some((e: { function?: string }) => e.function === 'main')).toBe(true);
  });

  it('reports abort() without a message as such', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('crash'), args: ['abort'] });
    expect(r.data.views.crash.signal).toBe('SIGABRT');
    expect(r.data.views.crash.hint).toMatch(/abort\(\) called/);
  });

  it('reports SIGFPE in divide with its arguments', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('crash'), args: ['fpe'] });
    const crash = r.data.views.crash;
    expect(crash.signal).toBe('SIGFPE');
    expect(crash.hint).toMatch(/division by zero/);
    expect(crash.stack[0]).toMatchObject({
      function: 'divide',
      args: [
        { name: 'a', value: '10' },
        { name: 'b', value: '0' },
      ],
    });
  });

  it('reports a crash triggered by stdin, with the input delivered through the terminal', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('stdin_echo'), stdin: 'one\ncrash\n' });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    expect(r.data.views.crash.output_tail).toContain('got:one');
    expect(r.data.views.crash.locals[0].variables).toContainEqual({ name: 'lines', value: '2' });
  });

  it('reports the fake MI program as a SIGSEGV, not as an exit', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('fake_mi') });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    expect(r.data.views.crash.output_tail).toContain('*stopped,reason=\\"exited-normally\\"'.replaceAll('\\', ''));
  });

  it('diagnoses a hang in one call: interrupt at the deadline, stop and threads views', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('spin'), timeout_ms: 1500 });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    expect(r.data.views.stop.frame.function).toMatch(/spin|main/);
    expect(r.data.views.threads.threads).toHaveLength(1);
    expect(r.data.views.threads.hint).toMatch(/spinning/);
  });

  it("shows every thread's stack for a multi-threaded hang", async () => {
    const h = await startInProcess();
    // The deadline is when the hang is read: every thread must have parked by then, which takes
    // ~100 ms unloaded and took seconds on a loaded 2-core VM; 3 s leaves room for that.
    const r = await h.call('dbg_start', { program: fixture('threads'), timeout_ms: 3000, include_locals: true });
    const threads = r.data.views.threads.threads;
    expect(threads).toHaveLength(4);
    for (const t of threads) expect(t.stack.length).toBeGreaterThan(0);
    expect(threads.filter((t: { waiting?: string }) => t.waiting === 'sleep')).toHaveLength(3);
    expect(threads.filter((t: { waiting?: string }) => t.waiting === 'join')).toHaveLength(1);
  });

  it('returns the exit code and what the program printed', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('exitcode'), args: ['42'] });
    expect(r.data.outcome).toEqual({ kind: 'exited', exit_code: 42 });
    expect(r.data.session.state).toBe('exited');
    const hello = await h.call('dbg_start', { program: fixture('hello') });
    expect(hello.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(hello.data.output.text).toBe('hello 5\n');
  });

  it('stops at main, at a breakpoint, or only loads', async () => {
    const h = await startInProcess();
    const main = await h.call('dbg_start', { program: fixture('hello'), stop: 'main' });
    expect(main.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'main' } });
    const bp = await h.call('dbg_start', {
      program: fixture('loop'),
      breakpoints: [{ location: 'square', condition: 'v == 3' }],
    });
    expect(bp.data.outcome).toMatchObject({
      reason: 'breakpoint-hit',
      breakpoint: '1',
      frame: { function: 'square', args: [{ name: 'v', value: '3' }] },
    });
    const loaded = await h.call('dbg_start', { program: fixture('hello'), stop: 'no-run' });
    expect(loaded.data.session.state).toBe('loaded');
    expect(loaded.data.outcome).toBeUndefined();
    const entry = await h.call('dbg_start', { program: fixture('hello'), stop: 'entry' });
    expect(entry.data.outcome.kind).toBe('stopped');
    expect(entry.data.outcome.frame.function).not.toBe('main');
  });

  it('passes arguments literally and environment variables through', async () => {
    const h = await startInProcess();
    const args = ['a b', '', "it's", '$HOME', ';', '*', '"q"', 'back\\slash'];
    const r = await h.call('dbg_start', { program: fixture('echo_args'), args, env: { DBG_MCP_PROBE: 'x y' } });
    expect(r.data.output.text).toBe(`${args.map((a) => `[${a}]\n`).join('')}probe=x y\n`);
  });
});

describe('dbg_start: a stop inside library code', () => {
  it("shows the frames down to the program's own first one, and that line's source", async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('hello'), breakpoints: [{ location: 'printf' }] });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', reason: 'breakpoint-hit' });
    const stop = r.data.views.stop;
    expect(stop.frame.function).toMatch(/printf/);
    expect(stop.callers.map((f: { function?: string }) => f.function)).toEqual(['main']);
    expect(stop.callers[0]).toMatchObject({ file: 'hello.c', line: 12 });
    expect(stop.source).toMatchObject({ file: 'hello.c', line: 12 });
    expect(r.text).toMatch(/#1 main \(\) at hello\.c:12\n/);
    expect(r.text).toMatch(/>12 +printf\("hello %d\\n", y\);/);
    // A stop in the program's own code has no callers line: its own source is the view's.
    const own = await h.call('dbg_start', { program: fixture('hello'), breakpoints: [{ location: 'add' }] });
    expect(own.data.views.stop.callers).toBeUndefined();
    expect(own.data.views.stop.source.line).toBe(5);
  });
});

describe('dbg_start: problems are said plainly', () => {
  it('warns about a program without debug info and a breakpoint that never resolves', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', {
      program: fixture('hello_nodebug'),
      stop: 'no-run',
      breakpoints: [{ location: 'no_such_function' }],
    });
    expect(r.isError).toBe(false);
    expect(r.data.warnings.join('\n')).toMatch(/no debug info/);
    expect(r.data.warnings.join('\n')).toMatch(/no_such_function is pending/);
  });

  it('refuses a missing program, a non-executable file and a path outside the roots', async () => {
    const h = await startInProcess();
    const missing = await h.call('dbg_start', { program: join(fixturesDir, 'build', 'nope') });
    expect(missing).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(missing.data.error.message).toMatch(/does not exist/);
    const notExec = join(fixturesDir, 'build', 'not_executable');
    writeFileSync(notExec, 'data');
    chmodSync(notExec, 0o644);
    const nx = await h.call('dbg_start', { program: notExec });
    expect(nx.data.error.message).toMatch(/not executable/);
    const outside = await h.call('dbg_start', { program: '/bin/true' });
    expect(outside.code).toBe('invalid_argument');
    expect(outside.data.error.message).toMatch(/outside the workspace roots/);
  });

  it('refuses unknown arguments, naming them, and starts nothing', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('hello'), progam: 'typo' });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toMatch(/unknown argument "progam" \(did you mean "program"\?\)/);
    expect(r.data.error.details.fields).toEqual(['progam']);
    // Inside a breakpoint too, with that object's own fields listed.
    const inner = await h.call('dbg_start', { program: fixture('hello'), breakpoints: [{ locaton: 'main' }] });
    expect(inner.data.error.message).toMatch(
      /unknown argument "locaton" \(did you mean "location"\?\) in breakpoints\.0; the arguments in breakpoints\.0 are location, /,
    );
    // A string where an object belongs: the answer shows the object's shape.
    const shape = await h.call('dbg_start', { program: fixture('hello'), breakpoints: ['main'] });
    expect(shape.data.error.message).toMatch(/^breakpoints\.0: .*expected object.*\(an object: \{location, /);
    // Nothing close: no guess.
    const far = await h.call('dbg_start', { program: fixture('hello'), zzzzzz: 1 });
    expect(far.data.error.message).not.toMatch(/did you mean/);
    const sessions = await h.client.callTool({
      name: 'dbg_start',
      arguments: { program: fixture('hello'), args: 'notarray' },
    });
    expect(sessions.isError).toBe(true);
  });

  it('refuses a script, naming its interpreter and how to debug it', async () => {
    const h = await startInProcess();
    const script = join(fixturesDir, 'build', 'a_script.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o755);
    const r = await h.call('dbg_start', { program: script });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toMatch(
      /a_script\.sh is a script for \/bin\/sh \(#!\/bin\/sh\), not a compiled program/,
    );
    // The interpreter with the script as its argument, and the root that needs (/bin is not one here).
    expect(r.data.error.message).toMatch(
      /program: "\/(usr\/)?bin\/(da|ba)?sh", args: \[".*a_script\.sh"\] \(.* is outside the workspace roots: start the server with --root /,
    );
    const viaEnv = join(fixturesDir, 'build', 'a_script.py');
    writeFileSync(viaEnv, '#!/usr/bin/env python3\nprint(1)\n');
    chmodSync(viaEnv, 0o755);
    const py = await h.call('dbg_start', { program: viaEnv });
    expect(py.data.error.message).toMatch(/is a script for python3 \(#!\/usr\/bin\/env python3\)/);
    expect(py.data.error.message).toMatch(/give the interpreter's full path as program/);
    expect((await h.call('dbg_sessions', {})).data.sessions).toEqual([]);
  });

  it('refuses line breaks in anything that would reach the debugger', async () => {
    const h = await startInProcess();
    for (const bad of ['a\nb', 'a\rb', 'a\u2028b', 'a\u0000b']) {
      const r = await h.call('dbg_start', { program: fixture('hello'), breakpoints: [{ location: bad }] });
      expect(r.code).toBe('invalid_argument');
      expect(r.data.error.details.fields).toEqual(['breakpoints.0.location']);
    }
  });

  it('refuses an rr replay without a trace, naming the field', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { backend: 'rr' });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toMatch(/^trace:/);
  });
});

describe('source confinement', () => {
  it('quotes source only from files under the workspace roots', async () => {
    // The crash fixture's source lies under fixtures/c; with the root narrowed to the build
    // directory, the program runs but its source is not quoted, and the answer says why.
    const h = await startInProcess(['--root', join(fixturesDir, 'build')]);
    const r = await h.call('dbg_start', { program: fixture('crash'), args: ['segv'] });
    expect(r.data.views.crash.hint).toMatch(/NULL pointer dereference/);
    expect(r.data.views.crash.source).toBeUndefined();
    expect(r.data.failures.join('\n')).toMatch(/not a file under the workspace roots/);
    const id = r.data.session_id;
    const asked = await h.call('dbg_inspect', { session_id: id, view: 'source', file: '/etc/passwd', line: 1 });
    expect(asked.isError).toBe(true);
    expect(asked.text).not.toContain('root:');
  });
});
