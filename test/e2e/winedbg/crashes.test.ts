// Windows crashes under Wine, each diagnosed in the one dbg_start call, with backend "winedbg": the
// exception by its Windows name and code (from winedbg's trace), what the faulting access did and
// where (inferred, and said to be), the user's frames with source, and what the program printed.
// Also what the backend refuses: calls into the program, a 32-bit .exe without wine32, a Linux
// program. Skipped, with the packages to install, where Wine or mingw is missing.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { prefixRuns32Bit } from '../../../src/backends/winedbg/programCheck.js';
import type { McpCaller } from '../../helpers/mcp.js';
import { fixture } from '../../helpers/paths.js';
import {
  thirtyTwoBitFixture,
  windowsFixture,
  windowsLineOf,
  windowsToolsMissing,
} from '../../integration/winedbg/windowsFixtures.js';
import { leftovers, PREFIX_TIMEOUT_MS, readyPrefix, START_MS, start, winedbgServer } from './winedbgServer.js';

const missing = windowsToolsMissing();
let prefixDir = '';
let h: McpCaller;

describe.skipIf(missing !== undefined)(`Windows crashes, one call each${missing ? ` (${missing})` : ''}`, () => {
  beforeAll(async () => {
    prefixDir = await readyPrefix();
  }, PREFIX_TIMEOUT_MS);
  afterEach(async () => {
    await h?.close();
  });

  it('an access violation: the crash view names the exception, the inferred write of 0x0 and store() with its source', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const line = windowsLineOf('access.c', 'store');
    const r = await start(h, 'access', { args: ['write'] });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.outcome.exception).toEqual({
      code: '0xc0000005',
      name: 'EXCEPTION_ACCESS_VIOLATION',
      meaning: expect.stringMatching(/NULL, dangling or wild pointer/),
      access: 'write',
      address: '0x0',
      inferred_from: 'the faulting instruction `mov %edx,(%rax)`',
    });
    const crash = r.data.views.crash;
    expect(crash).toMatchObject({
      signal: 'SIGSEGV',
      signal_meaning: 'EXCEPTION_ACCESS_VIOLATION 0xc0000005: write (inferred)',
      fault_address: '0x0',
      hint: `NULL pointer dereference in store at access.c:${line}`,
      source: { file: 'access.c', line },
      output_tail: 'mode write\r\n',
    });
    expect(crash.stack[0]).toMatchObject({ function: 'store', file: 'access.c', line });
    expect(crash.stack[0].args).toContainEqual({ name: 'p', value: '0x0' });
    expect(crash.stack.slice(1, 3).map((f: { function: string }) => f.function)).toEqual(['update', 'main']);
    expect(r.text).toContain('EXCEPTION_ACCESS_VIOLATION');
    await h.call('dbg_close', { session_id: r.data.session_id });
    expect(leftovers(prefixDir, 'access.exe')).toEqual([]);
  });

  it('a read through a wild pointer is a read of 0x10; a call through one an execute fault at the pc', {
    timeout: 2 * START_MS,
  }, async () => {
    h = await winedbgServer();
    const read = await start(h, 'access', { args: ['read'] });
    expect(read.data.outcome.exception).toMatchObject({ access: 'read', address: '0x10' });
    expect(read.data.views.crash.stack[0]).toMatchObject({ function: 'load', line: windowsLineOf('access.c', 'load') });
    await h.call('dbg_close', { session_id: read.data.session_id });
    const exec = await start(h, 'access', { args: ['exec'] });
    expect(exec.data.outcome.exception).toMatchObject({ access: 'execute', address: '0x20' });
    expect(exec.data.outcome.exception.inferred_from).toMatch(/program counter/);
    expect(exec.data.views.crash.stack.some((f: { function?: string }) => f.function === 'main')).toBe(true);
  });

  it('an integer division by zero: the exception, divide() with b=0, and its second chance when continued', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'divzero');
    expect(r.data.outcome.exception).toMatchObject({ code: '0xc0000094', name: 'EXCEPTION_INT_DIVIDE_BY_ZERO' });
    expect(r.data.outcome.exception.access).toBeUndefined();
    const crash = r.data.views.crash;
    expect(crash.hint).toMatch(/integer division by zero/);
    expect(crash.stack[0]).toMatchObject({ function: 'divide', line: windowsLineOf('divzero.c', 'divide') });
    expect(crash.stack[0].args).toContainEqual({ name: 'b', value: '0' });
    const again = await h.call('dbg_run', { session_id: r.data.session_id, action: 'continue' });
    expect(again.data.outcome.exception).toMatchObject({ name: 'EXCEPTION_INT_DIVIDE_BY_ZERO', second_chance: true });
    expect(again.text).toMatch(/second chance/);
    const end = await h.call('dbg_run', { session_id: r.data.session_id, action: 'continue' });
    expect(end.data.outcome).toMatchObject({ kind: 'exited', exit_code: 0xc0000094 });
  });

  it('a custom exception (RaiseException 0xE0000001): named as the exception with its code, not as abort()', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'raise');
    expect(r.data.outcome.exception).toMatchObject({ code: '0xe0000001', name: '0xe0000001' });
    const crash = r.data.views.crash;
    expect(crash.hint).toMatch(
      /^exception 0xe0000001 raised in fail_custom at raise\.c:\d+: an exception code the program defined itself, raised with RaiseException/,
    );
    expect(crash.hint).not.toMatch(/abort\(\) called/);
    expect(crash.stack.some((f: { function?: string }) => f.function === 'fail_custom')).toBe(true);
  });

  it('a stack overflow: EXCEPTION_STACK_OVERFLOW, the fault inferred from the stack pointer, the recursion', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'overflow');
    expect(r.data.outcome.exception).toMatchObject({
      name: 'EXCEPTION_STACK_OVERFLOW',
      access: 'write',
      inferred_from: 'the stack pointer',
    });
    const crash = r.data.views.crash;
    expect(crash.hint).toMatch(/^stack overflow: the fault at 0x[0-9a-f]+ is next to the stack pointer/);
    expect(crash.stack[0]).toMatchObject({ function: 'descend', file: 'overflow.c' });
    expect(crash.depth_at_least).toBe(true);
  });

  it("a failed assert(): SIGABRT after mingw's runtime printed the message, the hint quotes it", {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'assert');
    const crash = r.data.views.crash;
    expect(crash.signal).toBe('SIGABRT');
    expect(crash.hint).toBe('abort: Assertion failed: balance >= 0 && "balance went negative", file assert.c, line 6');
    const user = crash.stack.find((f: { function?: string }) => f.function === 'checked');
    expect(user).toMatchObject({ file: 'assert.c', line: windowsLineOf('assert.c', 'assert') });
    // The backend's own breakpoint on raise() is not the user's.
    const listed = await h.call('dbg_breakpoints', { session_id: r.data.session_id, action: 'list' });
    expect(listed.data.breakpoints ?? []).toEqual([]);
    const end = await h.call('dbg_run', { session_id: r.data.session_id, action: 'continue' });
    expect(end.data.outcome).toMatchObject({ kind: 'exited', exit_code: 3 });
  });

  it('DebugBreak(): SIGTRAP with EXCEPTION_BREAKPOINT in main; continuing goes on to the end', {
    timeout: START_MS,
  }, async () => {
    h = await winedbgServer();
    const r = await start(h, 'debugbreak');
    expect(r.data.outcome).toMatchObject({ signal: 'SIGTRAP', exception: { name: 'EXCEPTION_BREAKPOINT' } });
    expect(r.data.views.crash.hint).toMatch(/^trap in main at debugbreak\.c:\d+/);
    const end = await h.call('dbg_run', { session_id: r.data.session_id, action: 'continue' });
    expect(end.data.outcome).toMatchObject({ kind: 'exited', exit_code: 0 });
    expect(end.data.output.text).toBe('after break\r\n');
  });

  it('refused with the reason: a call into the program, a Linux program, a 32-bit .exe without wine32', {
    timeout: START_MS,
  }, async (ctx) => {
    h = await winedbgServer();
    const r = await start(h, 'locals', {
      breakpoints: [{ location: `locals.c:${windowsLineOf('locals.c', 'loop')}` }],
    });
    const calls = await h.call('dbg_evaluate', { session_id: r.data.session_id, expressions: ['square(7)', 'total'] });
    expect(calls.data.results[0].error).toMatch(
      /refused on the winedbg backend: GDB would pass the arguments the Linux/,
    );
    expect(calls.data.results[1].value).toBe('0');
    await h.call('dbg_close', { session_id: r.data.session_id });

    const linux = await h.call('dbg_start', { backend: 'winedbg', program: fixture('crash') }, { timeoutMs: START_MS });
    expect(linux).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(linux.text).toMatch(/is not a Windows executable: no MZ header/);

    const tiny = thirtyTwoBitFixture();
    if (tiny === undefined) return ctx.skip('no i386pe linker script here to build the 32-bit fixture');
    const r32 = await h.call('dbg_start', { backend: 'winedbg', program: tiny }, { timeoutMs: START_MS });
    if (prefixRuns32Bit(prefixDir)) {
      // This Wine runs 32-bit programs: the refusal cannot be seen here.
      expect(r32.isError).toBe(false);
      return ctx.skip('wine32 is installed: the 32-bit program ran');
    }
    expect(r32).toMatchObject({ isError: true, code: 'backend_unavailable' });
    expect(r32.text).toMatch(/32-bit \(i386\) program and this Wine cannot run it: install 32-bit Wine .*wine32:i386/);
    expect(windowsFixture('tiny32')).toBe(tiny);
  });
});
