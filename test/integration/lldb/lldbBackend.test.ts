// The LLDB backend against the real lldb-dap, through sessions (SessionManager.open('lldb', …)):
// breakpoints of every kind and their options, run control with counts and locations, a second
// run under the same breakpoint numbers, values, expressions without side effects, memory,
// registers, disassembly, source confinement, raw commands, and what the program is started with.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TargetSpec } from '../../../src/backends/debuggerBackend.js';
import { lldbDapCandidates } from '../../../src/backends/lldb/lldbPath.js';
import type { Session } from '../../../src/session/session.js';
import { SessionManager } from '../../../src/session/sessionManager.js';
import { lineOf } from '../../helpers/markers.js';
import { fixture, fixturesDir } from '../../helpers/paths.js';

/** The line of a fixture that holds `text` (loop.c has no markers). */
function lineWith(file: string, text: string): number {
  const i = readFileSync(join(fixturesDir, file), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${file} has no line with ${text}`);
  return i + 1;
}

const lldbDap = lldbDapCandidates()[0];
const TEST_MS = 90_000;
const WAIT_MS = 30_000;
const managers: SessionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.closeAll()));
});

function manager(options: { allowInferiorCalls?: boolean; sourceRoots?: string[] } = {}): SessionManager {
  const m = new SessionManager({
    idleTimeoutMs: 0,
    backends: { paths: {}, sourceRoots: options.sourceRoots ?? [fixturesDir], ...options },
  });
  managers.push(m);
  return m;
}

async function launched(
  name: string,
  args: string[] = [],
  options: Parameters<typeof manager>[0] & { env?: Record<string, string>; cwd?: string } = {},
): Promise<Session> {
  const target: TargetSpec = {
    kind: 'launch',
    program: {
      program: fixture(name),
      args,
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    },
  };
  const { session } = await manager(options).open('lldb', target, { timeoutMs: WAIT_MS });
  return session;
}

const at = { phases: ['loaded', 'stopped', 'exited'] as const, doing: 'test' };

describe.skipIf(lldbDap === undefined)(`the lldb backend (${lldbDap ?? 'no lldb-dap on PATH'})`, () => {
  it('breakpoints: line, function, address, condition, ignore count, temporary; numbers kept across a second run', {
    timeout: TEST_MS,
  }, async () => {
    const s = await launched('loop');
    const body = lineWith('loop.c', 'total += square(i);');
    const result = lineWith('loop.c', 'return r;');
    // Set before the run: the line's first two hits pass (i = 0, 1).
    const counted = await s.setBreakpoint(
      { kind: 'breakpoint', location: { file: 'loop.c', line: body }, ignoreCount: 2 },
      at,
    );
    expect(counted.breakpoint).toMatchObject({
      requested: `loop.c:${body}`,
      line: body,
      ignoreCount: 2,
      pending: false,
    });
    const square = await s.setBreakpoint(
      { kind: 'breakpoint', location: { function: 'square' }, condition: 'v == 3' },
      at,
    );
    expect(square.breakpoint).toMatchObject({
      type: 'breakpoint',
      requested: 'square',
      pending: false,
      condition: 'v == 3',
    });
    const first = await s.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
    expect(first).toMatchObject({
      kind: 'stopped',
      stop: { reason: 'breakpoint-hit', breakpoint: counted.breakpoint.number },
    });
    expect((await s.evaluate(['i'], {}, 'natural', at))[0]?.value).toBe('2');
    await s.changeBreakpoints({ op: 'delete', numbers: [counted.breakpoint.number] }, at);
    const hit = await s.run({ action: 'continue', timeoutMs: WAIT_MS });
    expect(hit).toMatchObject({
      kind: 'stopped',
      stop: { reason: 'breakpoint-hit', breakpoint: square.breakpoint.number },
    });
    expect((await s.evaluate(['v'], {}, 'natural', at))[0]?.value).toBe('3');
    // An ignore count changed later: the return of this call (v = 3) passes, the next one stops.
    const ret = await s.setBreakpoint({ kind: 'breakpoint', location: { file: 'loop.c', line: result } }, at);
    await s.changeBreakpoints({ op: 'ignore', number: ret.breakpoint.number, count: 1 }, at);
    const passed = await s.run({ action: 'continue', timeoutMs: WAIT_MS });
    expect(passed).toMatchObject({ kind: 'stopped', stop: { breakpoint: ret.breakpoint.number } });
    expect((await s.evaluate(['v'], {}, 'natural', at))[0]?.value).toBe('4');
    const table = await s.changeBreakpoints(undefined, at);
    expect(table.find((b) => b.number === ret.breakpoint.number)?.hits).toBe(2);
    await s.changeBreakpoints({ op: 'delete', numbers: [ret.breakpoint.number, square.breakpoint.number] }, at);

    // Run again: a new lldb-dap under the hood, the same numbers in the table and at the stops.
    // The address of square as a temporary instruction breakpoint stops once, at the first call.
    const address = (await s.evaluate(['&square'], {}, 'natural', at))[0]?.value?.match(/0x[0-9a-f]+/)?.[0];
    expect(address).toBeDefined();
    const kept = await s.setBreakpoint({ kind: 'breakpoint', location: { function: 'square' } }, at);
    const disabled = await s.setBreakpoint({ kind: 'breakpoint', location: { file: 'loop.c', line: body } }, at);
    await s.changeBreakpoints({ op: 'disable', numbers: [disabled.breakpoint.number] }, at);
    const once = await s.setBreakpoint(
      { kind: 'breakpoint', location: { address: address as string }, temporary: true },
      at,
    );
    expect(once.breakpoint.temporary).toBe(true);
    const again = await s.run({ action: 'restart', startMode: 'none', timeoutMs: WAIT_MS });
    expect(again).toMatchObject({
      kind: 'stopped',
      stop: { breakpoint: once.breakpoint.number, temporaryBreakpoint: true, frame: { function: 'square' } },
    });
    const after = await s.changeBreakpoints(undefined, at);
    expect(after.map((b) => [b.number, b.enabled])).toEqual([
      [kept.breakpoint.number, true],
      [disabled.breakpoint.number, false],
    ]);
    const next = await s.run({ action: 'continue', timeoutMs: WAIT_MS });
    expect(next).toMatchObject({
      kind: 'stopped',
      stop: { reason: 'breakpoint-hit', breakpoint: kept.breakpoint.number },
    });
    expect((await s.evaluate(['v'], {}, 'natural', at))[0]?.value).toBe('0');
  });

  it('a logpoint prints on the debugger console and does not stop', { timeout: TEST_MS }, async () => {
    const s = await launched('loop');
    const line = lineWith('loop.c', 'return r;');
    const log = await s.setBreakpoint(
      { kind: 'dprintf', location: { file: 'loop.c', line }, format: 'v=%d r=%d\\n', args: ['v', 'r'] },
      at,
    );
    expect(log.breakpoint).toMatchObject({ type: 'dprintf', script: ['printf "v=%d r=%d\\n",v,r'] });
    const end = await s.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
    expect(end).toEqual({ kind: 'exited', exit: { code: 0 } });
    const printed = s.readStream('debugger', 0, 4096)?.data.toString('utf8') ?? '';
    expect(printed.split('\n').filter((l) => l.startsWith('v='))).toEqual([
      'v=0 r=0',
      'v=1 r=1',
      'v=2 r=4',
      'v=3 r=9',
      'v=4 r=16',
    ]);
    // Only what LLDB said about the program: none of lldb-dap's own greeting or set-up echo.
    expect(printed).not.toMatch(/debug console|preInitCommands|Executable binary set/);
  });

  it('run control: next with a count, step, finish, stepi, until and advance to a line, jump', {
    timeout: TEST_MS,
  }, async () => {
    const s = await launched('loop');
    const main = await s.run({ action: 'run', startMode: 'main', timeoutMs: WAIT_MS });
    expect(main).toMatchObject({ kind: 'stopped', stop: { reason: 'location-reached', frame: { function: 'main' } } });
    const stepped = await s.run({ action: 'step', options: { count: 2 }, timeoutMs: WAIT_MS });
    expect(stepped).toMatchObject({
      kind: 'stopped',
      stop: { reason: 'end-stepping-range', frame: { function: 'square' } },
    });
    const back = await s.run({ action: 'finish', timeoutMs: WAIT_MS });
    expect(back).toMatchObject({ kind: 'stopped', stop: { reason: 'function-finished', frame: { function: 'main' } } });
    const before = back.kind === 'stopped' ? back.stop.frame?.address : undefined;
    const one = await s.run({ action: 'stepi', timeoutMs: WAIT_MS });
    expect(one.kind === 'stopped' && one.stop.frame?.address).not.toBe(before);
    const printLine = lineWith('loop.c', 'printf("total');
    const until = await s.run({
      action: 'until',
      options: { location: { file: 'loop.c', line: printLine } },
      timeoutMs: WAIT_MS,
    });
    expect(until).toMatchObject({ kind: 'stopped', stop: { reason: 'location-reached', frame: { line: printLine } } });
    expect((await s.evaluate(['total'], {}, 'natural', at))[0]?.value).toBe('30');
    // Back into the loop's body (jump): it runs once more with i = 5, and reaches the print again.
    await s.setBreakpoint({ kind: 'breakpoint', location: { file: 'loop.c', line: printLine } }, at);
    const head = lineWith('loop.c', 'total += square(i);');
    const jumped = await s.run({
      action: 'jump',
      options: { location: { file: 'loop.c', line: head } },
      timeoutMs: WAIT_MS,
    });
    expect(jumped).toMatchObject({ kind: 'stopped', stop: { reason: 'breakpoint-hit', frame: { line: printLine } } });
    expect((await s.evaluate(['total'], {}, 'natural', at))[0]?.value).toBe('55');
  });

  it('evaluate reads without side effects; assign writes; calls only when the server allows them', {
    timeout: TEST_MS,
  }, async () => {
    const s = await launched('data');
    await s.setBreakpoint({ kind: 'breakpoint', location: { file: 'data.c', line: lineOf('data.c', '@peek') } }, at);
    await s.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
    const values = await s.evaluate(
      ['rec', 'numbers', 'greeting', 'edge', 'rec.score * 2', 'reads++', '(int)strlen(greeting)'],
      {},
      'natural',
      at,
    );
    expect(values.map((v) => v.value ?? v.error)).toEqual([
      '{id = 7, score = 2.5, name = "seven"}',
      '{10, 20, 30, 40}',
      '"Hi, memory!"',
      '0x7ffff7fbeff8 "EDGE1234"',
      '5',
      expect.stringMatching(/would change the program/),
      expect.stringMatching(/calling functions of the program is disabled on this server/),
    ]);
    expect((await s.evaluate(['reads'], {}, 'natural', at))[0]?.value).toBe('0');
    expect((await s.evaluate(['numbers[1]'], {}, 'hex', at))[0]?.value).toBe('0x14');
    expect((await s.evaluate(['numbers[1]'], {}, 'binary', at))[0]?.value).toBe('10100');
    const { assigned } = await s.assign({ target: 'reads', value: '41' }, [], {}, 'natural', at);
    expect(assigned).toEqual({ target: 'reads', old: '0', new: '41' });
    const regs = await s.inspect({ view: 'registers' }, at);
    expect(regs.data?.view === 'registers' && regs.data.registers.map((r) => r.name).slice(0, 4)).toEqual([
      'rax',
      'rbx',
      'rcx',
      'rdx',
    ]);

    const calls = await launched('data', [], { allowInferiorCalls: true });
    await calls.setBreakpoint(
      { kind: 'breakpoint', location: { file: 'data.c', line: lineOf('data.c', '@peek') } },
      at,
    );
    await calls.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
    expect((await calls.evaluate(['(int)strlen(greeting)'], {}, 'natural', at))[0]?.value).toBe('11');
  });

  it('memory: reads that stop at an unmapped page, writes read back; disassembly around the pc and of a function', {
    timeout: TEST_MS,
  }, async () => {
    const s = await launched('data');
    await s.setBreakpoint({ kind: 'breakpoint', location: { file: 'data.c', line: lineOf('data.c', '@report') } }, at);
    await s.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
    const edge = await s.readMemory('edge', 16, at);
    expect(edge.bytes.toString('latin1')).toBe('EDGE1234');
    expect(edge.unreadable).toBe(8);
    const written = await s.writeMemory('greeting', Buffer.from('Yo').toString('hex'), at);
    expect(written.bytes.toString()).toBe('Yo');
    const around = await s.disassemble({ count: 9 }, at);
    expect(around.instructions.length).toBe(9);
    expect(around.instructions.some((i) => BigInt(i.address) === around.pc)).toBe(true);
    const scale = await s.disassemble({ function: 'scale', count: 400, withSource: true }, at);
    expect(scale.instructions[0]?.instruction).toMatch(/^push/);
    expect(scale.instructions.at(-1)?.instruction).toMatch(/^ret/);
    expect(scale.source.map((l) => l.text)).toContain('  int product = v * factor;');
  });

  it('source is confined to the workspace roots', { timeout: TEST_MS }, async () => {
    const s = await launched('crash', ['segv'], { sourceRoots: ['/nonexistent-root'] });
    const crash = await s.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
    expect(crash.kind).toBe('stopped');
    const view = await s.inspect({ view: 'source' }, at);
    expect(view.data).toBeUndefined();
    expect(view.failures.join('\n')).toMatch(/not a file under the workspace roots/);
  });

  it('raw commands: read allows inspection and refuses the rest; full runs more, never quit', {
    timeout: TEST_MS,
  }, async () => {
    const s = await launched('crash', ['segv']);
    await s.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
    const opts = { policy: 'read' as const, timeoutMs: WAIT_MS };
    const bt = await s.command('bt 2', opts, at);
    expect(bt.output).toMatch(/frame #0: .*crash`store\(p=0x0+, value=12\) at crash\.c:13/);
    const frame = await s.command('frame variable', { ...opts, frame: 1 }, at);
    expect(frame.output).toMatch(/\(int\) doubled = 12/);
    await expect(s.command('expression p = 0', opts, at)).rejects.toMatchObject({
      code: 'invalid_argument',
      reason: 'policy',
    });
    await expect(s.command('quit', { ...opts, policy: 'full' }, at)).rejects.toThrow(/quit: would end the debugger/);
    const full = await s.command('expression value + 1', { ...opts, policy: 'full' }, at);
    expect(full.output).toMatch(/\(int\) \$\d+ = 13/);
  });

  it("glibc's knowledge reads through LLDB: an assert's message from a core's memory, and the libraries", {
    timeout: TEST_MS,
  }, async () => {
    // The core is GDB's gcore of the assert (LLDB cannot write one); the output that held the
    // message is gone with the process, so only glibc's copy (__abort_msg) can tell it.
    const dir = mkdtempSync(join(fixturesDir, 'build', 'lldb-core-'));
    try {
      const gdb = manager();
      const { session: live } = await gdb.open(
        'gdb',
        { kind: 'launch', program: { program: fixture('crash'), args: ['assert'] } },
        { timeoutMs: WAIT_MS },
      );
      const aborted = await live.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
      expect(aborted).toMatchObject({ kind: 'stopped', stop: { signal: { name: 'SIGABRT' } } });
      const core = join(dir, 'assert.core');
      await live.saveCore(core, at);
      await gdb.closeAll();
      const { session, outcome } = await manager().open(
        'lldb',
        { kind: 'core', core, program: { program: fixture('crash'), args: [] } },
        { timeoutMs: WAIT_MS },
      );
      expect(outcome).toMatchObject({
        kind: 'stopped',
        stop: { reason: 'signal-received', signal: { name: 'SIGABRT' } },
      });
      const crash = await session.inspect({ view: 'crash' }, at);
      expect(crash.data?.view === 'crash' && crash.data.hint).toMatch(
        /^abort: .*Assertion `count == 0 && "count must be zero"' failed/,
      );
      const libs = await session.inspect({ view: 'libraries' }, at);
      expect(libs.data?.view === 'libraries' && libs.data.libraries.map((l) => l.path)).toEqual(
        expect.arrayContaining([fixture('crash'), expect.stringMatching(/libc\.so\.6$/)]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the program gets its argv literally, its cwd, and only the allowed environment plus its own', {
    timeout: TEST_MS,
  }, async () => {
    process.env['DBG_MCP_TEST_SECRET'] = 'not for the program';
    try {
      const s = await launched('echo_args', ['a b', '$HOME', '*', '', "it's"], {
        env: { DBG_MCP_PROBE: 'given' },
        cwd: '/tmp',
      });
      const end = await s.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
      expect(end).toEqual({ kind: 'exited', exit: { code: 0 } });
      const out = s.readStream('program', 0, 4096)?.data.toString('utf8');
      expect(out).toBe("[a b]\n[$HOME]\n[*]\n[]\n[it's]\nprobe=given\n");
      const env = await launched('print_env');
      await env.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS });
      const names = (env.readStream('program', 0, 65536)?.data.toString('utf8') ?? '')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => l.slice(0, l.indexOf('=')));
      expect(names).not.toContain('DBG_MCP_TEST_SECRET');
      for (const n of names) expect(n).toMatch(/^(PATH|HOME|USER|LOGNAME|LANG|LC_\w+|TERM|TZ|TMPDIR)$/);
    } finally {
      delete process.env['DBG_MCP_TEST_SECRET'];
    }
  });
});
