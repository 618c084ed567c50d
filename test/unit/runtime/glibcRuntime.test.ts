// glibc runtime knowledge on recorded inputs: which frames are the program's own (a sanitizer's
// runtime is not, though its debug info names source files), what a blocked thread waits for
// (frames recorded from GDB 13 with libc6-dbg, and without), and the report a sanitizer printed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyWait, isUserFrame, sanitizerRuntimeReport } from '../../../src/backends/runtime/glibcRuntime.js';
import type { Frame } from '../../../src/model/model.js';
import { repoRoot } from '../../helpers/paths.js';

const sample = (name: string): string =>
  readFileSync(join(repoRoot, 'test', 'unit', 'runtime', 'samples', `${name}.txt`), 'utf8');

const frames = (...names: string[]): Frame[] => names.map((fn, level) => ({ level, function: fn }));

describe('isUserFrame', () => {
  it('takes a sanitizer runtime frame with source for the runtime’s, not the program’s', () => {
    expect(
      isUserFrame({
        level: 4,
        function: '__sanitizer::Abort',
        file: '../../../../src/libsanitizer/sanitizer_common/sanitizer_posix_libcdep.cpp',
        line: 143,
      }),
    ).toBe(false);
    expect(isUserFrame({ level: 7, function: '__interceptor_free', file: 'asan_malloc_linux.cpp', line: 52 })).toBe(
      false,
    );
    expect(isUserFrame({ level: 9, function: 'read_after_free', file: 'asan_errors.c', line: 11 })).toBe(true);
  });

  it('takes libc with its debug info, and frames without source, for the runtime’s', () => {
    expect(
      isUserFrame({ level: 0, function: '__GI___libc_write', file: '../sysdeps/unix/sysv/linux/write.c', line: 26 }),
    ).toBe(false);
    expect(isUserFrame({ level: 2, function: 'new_do_write', file: './libio/fileops.c', line: 448 })).toBe(false);
    expect(isUserFrame({ level: 0, function: 'write', library: '/lib/x86_64-linux-gnu/libc.so.6' })).toBe(false);
  });
});

describe('classifyWait', () => {
  it('reads a thread blocked writing through stdio as waiting on I/O, with libc’s debug info', () => {
    // printf to a pipe nobody reads, libc6-dbg installed (GDB 13).
    expect(
      classifyWait(
        frames(
          '__GI___libc_write',
          '_IO_new_file_write',
          'new_do_write',
          '_IO_new_do_write',
          '_IO_new_file_xsputn',
          '__vfprintf_internal',
          '__fprintf',
          'log_line',
        ),
      ),
    ).toBe('io (write)');
    expect(classifyWait(frames('__libc_write', '_IO_file_write', 'new_do_write', '_IO_do_write'))).toBe('io (write)');
  });

  it('and without it', () => {
    expect(classifyWait(frames('write', '_IO_file_write', '??'))).toBe('io (write)');
    expect(classifyWait(frames('__GI___libc_read', '_IO_file_underflow'))).toBe('io (read)');
  });

  it('a lock wait stays a mutex wait, and a spinning thread waits for nothing', () => {
    expect(
      classifyWait(frames('__futex_abstimed_wait_common', '__lll_lock_wait', '___pthread_mutex_lock', 'move_funds')),
    ).toBe('mutex');
    expect(classifyWait(frames('spin', 'main'))).toBeUndefined();
  });
});

describe('sanitizerRuntimeReport', () => {
  it('gives the last report in the output, in the interface’s words', () => {
    const r = sanitizerRuntimeReport(`some output\n${sample('asan-heap-overflow')}`);
    expect(r).toMatchObject({
      tool: 'AddressSanitizer',
      kind: 'heap-buffer-overflow',
      errorLine: expect.stringMatching(/ERROR: AddressSanitizer: heap-buffer-overflow/),
      summaryLine: expect.stringMatching(/^SUMMARY: AddressSanitizer: heap-buffer-overflow/),
      access: { op: 'WRITE', size: 1 },
      location: { function: 'write_past_heap', line: 15 },
    });
    expect(r?.location?.file).toMatch(/asan_errors\.c$/);
    expect(r?.hint).toMatch(/^AddressSanitizer reported heap-buffer-overflow/);
  });

  it('gives nothing for output without a report', () => {
    expect(sanitizerRuntimeReport('hello\nworld\n')).toBeUndefined();
  });
});
