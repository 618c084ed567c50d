// Sanitizer reports read from recorded output of the fixtures (GCC 12's libsanitizer, Debian 12):
// fixtures/c/asan_errors.c, ubsan_errors.c and lsan_leak.c, run with the options the debugger
// would give them. Paths were rewritten to /home/user/dbg-mcp; nothing else was edited.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSanitizerRuntimeFrame, parseSanitizerReports } from '../../../src/backends/runtime/sanitizerReport.js';
import { repoRoot } from '../../helpers/paths.js';

const sample = (name: string): string =>
  readFileSync(join(repoRoot, 'test/unit/runtime/samples', `${name}.txt`), 'utf8');
const only = (name: string) => {
  const reports = parseSanitizerReports(sample(name));
  expect(reports).toHaveLength(1);
  return reports[0] as NonNullable<(typeof reports)[0]>;
};
const src = '/home/user/dbg-mcp/fixtures/c/';

describe('AddressSanitizer reports', () => {
  it('heap-use-after-free: kind, lines, READ of 4 bytes and the function that read', () => {
    const r = only('asan-use-after-free');
    expect(r).toMatchObject({
      sanitizer: 'AddressSanitizer',
      kind: 'heap-use-after-free',
      access: { op: 'READ', size: 4, address: '0x602000000014' },
      firstUserFrame: { function: 'read_after_free', file: `${src}asan_errors.c`, line: 11 },
    });
    expect(r.errorLine).toMatch(/^==\d+==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000014/);
    expect(r.summaryLine).toBe(
      `SUMMARY: AddressSanitizer: heap-use-after-free ${src}asan_errors.c:11 in read_after_free`,
    );
    // The stack of the bad access only, not the "freed by" and "allocated by" stacks after it.
    expect(r.frames.map((f) => f.function)).toEqual([
      'read_after_free',
      'main',
      '__libc_start_call_main',
      '__libc_start_main_impl',
      '_start',
    ]);
    expect(r.frames[4]?.module).toBe('/home/user/dbg-mcp/fixtures/c/build/sanitized/asan_errors+0x1150');
    expect(r.hint).toBe(
      'AddressSanitizer reported heap-use-after-free (READ of 4 bytes at 0x602000000014) in read_after_free (asan_errors.c:11)',
    );
  });

  it.each([
    ['asan-heap-overflow', 'heap-buffer-overflow', 'WRITE', 1, 'write_past_heap', 15],
    ['asan-stack-overflow', 'stack-buffer-overflow', 'WRITE', 1, 'fill_name', 19],
    ['asan-global-overflow', 'global-buffer-overflow', 'READ', 4, 'read_past_global', 23],
    ['asan-use-after-return', 'stack-use-after-return', 'READ', 4, 'read_returned', 38],
  ] as const)('%s is %s, a %s of %d in %s', (name, kind, op, size, fn, line) => {
    const r = only(name);
    expect(r).toMatchObject({ kind, access: { op, size }, firstUserFrame: { function: fn, line } });
  });

  it('double-free: the first frame past the free interceptor is the caller that freed twice', () => {
    const r = only('asan-double-free');
    expect(r.kind).toBe('double-free');
    expect(r.access).toBeUndefined();
    expect(r.frames[0]?.function).toBe('__interceptor_free');
    expect(r.firstUserFrame).toMatchObject({ function: 'release', line: 27 });
  });

  it('a SEGV report takes its access from the signal note and its kind from the SUMMARY', () => {
    const r = only('asan-segv');
    expect(r).toMatchObject({
      kind: 'segv',
      access: { op: 'READ', address: '0x000000000000' },
      firstUserFrame: { function: 'read_null', line: 42 },
    });
    expect(r.access?.size).toBeUndefined();
  });

  it('reads a report printed in colour (color=always) as the same report', () => {
    const plain = only('asan-heap-overflow');
    const colour = only('asan-heap-overflow-color');
    expect(colour).toMatchObject({ kind: plain.kind, access: { op: 'WRITE', size: 1 } });
    expect(colour.errorLine).not.toMatch(/\x1b/);
    expect(colour.firstUserFrame).toEqual(plain.firstUserFrame);
  });
});

describe('UndefinedBehaviorSanitizer reports', () => {
  it.each([
    ['ubsan-signed-overflow', 'signed-integer-overflow', 'add_interest', 13],
    ['ubsan-divide-by-zero', 'division-by-zero', 'share', 17],
    ['ubsan-null-pointer', 'null-pointer-use', 'balance_of', 21],
    ['ubsan-shift', 'shift-out-of-bounds', 'scale', 25],
    ['ubsan-out-of-bounds', 'index-out-of-bounds', 'pick', 30],
  ] as const)('%s is %s in %s (from print_stacktrace)', (name, kind, fn, line) => {
    const r = only(name);
    expect(r).toMatchObject({
      sanitizer: 'UndefinedBehaviorSanitizer',
      kind,
      firstUserFrame: { function: fn, file: `${src}ubsan_errors.c`, line },
    });
    expect(r.errorLine).toMatch(new RegExp(`^ubsan_errors\\.c:${line}:\\d+: runtime error: `));
    // GCC's libubsan prints no SUMMARY line.
    expect(r.summaryLine).toBeUndefined();
  });

  it('names the message in the hint, and the kind only where the message does not say it', () => {
    expect(only('ubsan-signed-overflow').hint).toBe(
      "UndefinedBehaviorSanitizer reported signed integer overflow: 2147483645 + 100 cannot be represented in type 'int' in add_interest (ubsan_errors.c:13)",
    );
    expect(only('ubsan-null-pointer').hint).toMatch(
      /^UndefinedBehaviorSanitizer reported null-pointer-use: member access within null pointer/,
    );
  });

  it('a recovering run prints one report per problem, each placed by the compiler only', () => {
    const reports = parseSanitizerReports(sample('ubsan-out-of-bounds-recover'));
    expect(reports.map((r) => r.kind)).toEqual(['index-out-of-bounds', 'object-size']);
    expect(reports[0]?.firstUserFrame).toEqual({ file: 'ubsan_errors.c', line: 30, column: 15 });
    expect(reports[0]?.hint).toMatch(/ at ubsan_errors\.c:30$/);
  });
});

describe('LeakSanitizer', () => {
  it('reads a leak report: the allocation site in the program, not malloc', () => {
    for (const name of ['lsan-leak', 'asan-leak']) {
      const r = only(name);
      expect(r).toMatchObject({
        sanitizer: 'LeakSanitizer',
        kind: 'memory-leak',
        firstUserFrame: { function: 'make_buffer', file: `${src}lsan_leak.c`, line: 9 },
      });
      expect(r.summaryLine).toMatch(/13 byte\(s\) leaked in 2 allocation\(s\)/);
    }
  });

  it('under ptrace, says plainly that it cannot run and how to get the report', () => {
    const r = only('lsan-under-ptrace');
    expect(r).toMatchObject({ sanitizer: 'LeakSanitizer', kind: 'unavailable-under-ptrace', frames: [] });
    expect(r.errorLine).toMatch(/LeakSanitizer has encountered a fatal error/);
    expect(r.hint).toMatch(/cannot run under a debugger/);
    expect(r.hint).toMatch(/without the debugger/);
    expect(r.hint).toMatch(/detect_leaks=0/);
  });
});

describe('parseSanitizerReports on other text', () => {
  it('finds nothing in ordinary output, and a report amid it with pty line ends', () => {
    expect(parseSanitizerReports('mode use-after-free\nresult 3\nERROR: something else\n')).toEqual([]);
    const amid = `hello\r\n${sample('asan-use-after-free').replace(/\n/g, '\r\n')}bye\r\n`;
    const [r] = parseSanitizerReports(amid);
    expect(r?.kind).toBe('heap-use-after-free');
    expect(r?.summaryLine).not.toMatch(/\r/);
  });

  it("reads clang's frames: a column after the line, runtime frames named by compiler-rt paths", () => {
    // Lines in compiler-rt's format (clang 16), where interceptors are plain `free`.
    const text = [
      '==77==ERROR: AddressSanitizer: attempting double-free on 0x602000000010 in thread T0:',
      '    #0 0x4f0b9d in free /llvm-project/compiler-rt/lib/asan/asan_malloc_linux.cpp:52:3',
      '    #1 0x520f1e in Cache::drop(int, char const*) /src/cache.cpp:31:5',
      '    #2 0x5212a0 in main /src/main.cpp:9:3',
      'SUMMARY: AddressSanitizer: double-free /llvm-project/compiler-rt/lib/asan/asan_malloc_linux.cpp:52:3 in free',
    ].join('\n');
    const [r] = parseSanitizerReports(text);
    expect(r?.firstUserFrame).toEqual({
      function: 'Cache::drop(int, char const*)',
      file: '/src/cache.cpp',
      line: 31,
      column: 5,
    });
  });
});

describe('isSanitizerRuntimeFrame', () => {
  it("names the runtime's frames GDB shows above the program's own at an abort_on_error stop", () => {
    // GDB's stack at the SIGABRT of asan_errors use-after-free and ubsan_errors signed-overflow.
    const runtime = [
      {
        function: '__sanitizer::Abort',
        file: '../../../../src/libsanitizer/sanitizer_common/sanitizer_posix_libcdep.cpp',
      },
      { function: '__sanitizer::Die', file: '../../../../src/libsanitizer/sanitizer_common/sanitizer_termination.cpp' },
      {
        function: '__asan::ScopedInErrorReport::~ScopedInErrorReport',
        file: '../../../../src/libsanitizer/asan/asan_report.cpp',
      },
      { function: '__asan::ReportGenericError', file: '../../../../src/libsanitizer/asan/asan_report.cpp' },
      { function: '__asan::__asan_report_load4', file: '../../../../src/libsanitizer/asan/asan_rtl.cpp' },
      {
        function: 'handleIntegerOverflowImpl<__ubsan::Value>',
        file: '../../../../src/libsanitizer/ubsan/ubsan_handlers.cpp',
      },
      { function: '__ubsan::__ubsan_handle_add_overflow' },
      { function: '__asan_report_load4', library: '/usr/lib/x86_64-linux-gnu/libasan.so.8' },
      { function: '___interceptor_free' },
      { library: '/usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.asan-x86_64.so' },
    ];
    for (const f of runtime) expect(isSanitizerRuntimeFrame(f), JSON.stringify(f)).toBe(true);
    const user = [
      { function: 'read_after_free', file: 'asan_errors.c' },
      { function: 'main', file: 'asan_errors.c' },
      { function: 'handler', file: 'handlers.c' },
      { function: 'abort', library: '/lib/x86_64-linux-gnu/libc.so.6' },
    ];
    for (const f of user) expect(isSanitizerRuntimeFrame(f), JSON.stringify(f)).toBe(false);
  });
});
