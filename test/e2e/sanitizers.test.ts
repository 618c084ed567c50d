// Sanitized programs end to end (GCC's ASan, UBSan and LSan under GDB): the report stops the
// program alive, the crash view reads it (kind, ERROR and SUMMARY lines, the bad access, the
// program's own frame with its source and locals), the user's sanitizer options are kept, and
// what LeakSanitizer cannot do under a debugger is said plainly.
import { describe, expect, it } from 'vitest';
import { builtFixture, missingCompiler } from '../helpers/builtFixtures.js';
import { lineOf } from '../helpers/markers.js';
import { startServer } from '../helpers/mcp.js';

const noGcc = missingCompiler('sanitized/asan_errors');

/** The first frame the crash view shows unfolded: the program's own, below the runtime's. */
function firstShownFrame(stack: { level?: number; folded?: number; function?: string }[]) {
  return stack.find((e) => e.folded === undefined);
}

describe.skipIf(noGcc !== undefined)('sanitized programs under the debugger', () => {
  it('an AddressSanitizer report stops the program alive, and the crash view reads it', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', {
      program: await builtFixture('sanitized/asan_errors'),
      args: ['use-after-free'],
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGABRT' });
    const crash = r.data.views.crash;
    const line = lineOf('asan_errors.c', '@use-after-free');
    expect(crash.hint).toMatch(
      new RegExp(
        `^AddressSanitizer reported heap-use-after-free \\(READ of 4 bytes at 0x[0-9a-f]+\\) in read_after_free \\(asan_errors\\.c:${line}\\)$`,
      ),
    );
    expect(crash.report).toMatchObject({
      tool: 'AddressSanitizer',
      kind: 'heap-use-after-free',
      error_line: expect.stringMatching(/^==\d+==ERROR: AddressSanitizer: heap-use-after-free on address 0x/),
      summary_line: expect.stringMatching(/^SUMMARY: AddressSanitizer: heap-use-after-free .*in read_after_free$/),
      access: { op: 'READ', size: 4 },
      location: { function: 'read_after_free', line },
    });
    // libc's abort and the sanitizer's runtime fold into one line; the program's frame follows.
    expect(crash.stack[0]).toMatchObject({
      folded: expect.any(Number),
      functions: expect.arrayContaining(['__sanitizer::Die']),
    });
    expect(firstShownFrame(crash.stack)).toMatchObject({ function: 'read_after_free', file: 'asan_errors.c', line });
    expect(crash.source).toMatchObject({ file: 'asan_errors.c', line });
    expect(crash.locals[0]).toMatchObject({ function: 'read_after_free' });
    expect(crash.locals[1]).toMatchObject({
      function: 'main',
      variables: expect.arrayContaining([expect.objectContaining({ name: 'mode' })]),
    });
    // No noise about the runtime's own sources, which lie under no root.
    expect(r.data.failures).toBeUndefined();
    expect(r.text).not.toMatch(/not under the workspace roots|libsanitizer/);
    expect(r.text).toMatch(/^report: ==\d+==ERROR: AddressSanitizer: heap-use-after-free/m);
    expect(r.data.warnings).toEqual([expect.stringMatching(/^leak checking is off under the debugger/)]);
  });

  it('a write past a heap block reads as a WRITE in the function that made it', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', {
      program: await builtFixture('sanitized/asan_errors'),
      args: ['heap-overflow'],
    });
    const crash = r.data.views.crash;
    expect(crash.report).toMatchObject({ kind: 'heap-buffer-overflow', access: { op: 'WRITE', size: 1 } });
    expect(crash.hint).toMatch(
      /^AddressSanitizer reported heap-buffer-overflow \(WRITE of 1 byte at 0x[0-9a-f]+\) in write_past_heap/,
    );
    expect(firstShownFrame(crash.stack)).toMatchObject({
      function: 'write_past_heap',
      line: lineOf('asan_errors.c', '@heap-overflow'),
    });
  });

  it('UndefinedBehaviorSanitizer stops at its first report, named in the hint', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', {
      program: await builtFixture('sanitized/ubsan_errors'),
      args: ['signed-overflow'],
    });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGABRT' });
    const crash = r.data.views.crash;
    const line = lineOf('ubsan_errors.c', '@signed-overflow');
    expect(crash.report).toMatchObject({
      tool: 'UndefinedBehaviorSanitizer',
      kind: 'signed-integer-overflow',
      error_line: expect.stringMatching(
        new RegExp(`^ubsan_errors\\.c:${line}:\\d+: runtime error: signed integer overflow`),
      ),
      location: { function: 'add_interest', line },
    });
    expect(crash.hint).toMatch(/^UndefinedBehaviorSanitizer reported signed integer overflow: .* in add_interest/);
    expect(firstShownFrame(crash.stack)).toMatchObject({ function: 'add_interest', line });
  });

  it('keeps the user’s own sanitizer options, adding only what they lack', async () => {
    const h = await startServer();
    const program = await builtFixture('sanitized/asan_errors');
    // abort_on_error=0 given: the report ends the program with exit(1), as the user asked; the
    // exit's answer still says what the report was.
    const exited = await h.call('dbg_start', {
      program,
      args: ['double-free'],
      env: { ASAN_OPTIONS: 'abort_on_error=0' },
    });
    expect(exited.data.outcome).toEqual({ kind: 'exited', exit_code: 1 });
    expect(exited.data.hint).toMatch(/^AddressSanitizer reported double-free in release \(asan_errors\.c:\d+\)$/);
    expect(exited.data.report).toMatchObject({ tool: 'AddressSanitizer', kind: 'double-free' });
    expect(exited.text).toMatch(/^the program exited with code 1\nhint: AddressSanitizer reported double-free/m);
    expect(exited.data.warnings).toContainEqual(expect.stringMatching(/^ASAN_OPTIONS sets abort_on_error=0/));

    // detect_leaks=1 given: kept, so LeakSanitizer runs at exit and cannot (ptrace); our
    // abort_on_error=1, added beside it, stops the program there, and the hint says what to do.
    const leaks = await h.call('dbg_start', { program, args: ['none'], env: { ASAN_OPTIONS: 'detect_leaks=1' } });
    expect(leaks.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGABRT' });
    expect(leaks.data.views.crash.report).toMatchObject({ tool: 'LeakSanitizer', kind: 'unavailable-under-ptrace' });
    expect(leaks.data.views.crash.hint).toMatch(/^LeakSanitizer cannot run under a debugger: .*without the debugger/);
    expect(leaks.data.warnings ?? []).not.toContainEqual(expect.stringMatching(/leak checking is off/));
  });

  it('LeakSanitizer alone under the debugger: the exit says plainly why there is no leak report', async () => {
    const h = await startServer();
    const program = await builtFixture('sanitized/lsan_leak');
    const quiet = await h.call('dbg_start', { program });
    expect(quiet.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(quiet.data.hint).toBeUndefined();
    expect(quiet.data.warnings).toEqual([expect.stringMatching(/^leak checking is off under the debugger/)]);

    const asked = await h.call('dbg_start', { program, env: { LSAN_OPTIONS: 'detect_leaks=1' } });
    expect(asked.data.outcome).toEqual({ kind: 'exited', exit_code: 23 });
    expect(asked.data.report).toMatchObject({ tool: 'LeakSanitizer', kind: 'unavailable-under-ptrace' });
    expect(asked.data.hint).toMatch(/^LeakSanitizer cannot run under a debugger/);
    expect(asked.data.hint).toMatch(/detect_leaks=0/);
  });
});
