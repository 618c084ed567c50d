// How stacks are folded for the answers, on frames recorded from GDB 13: runs of runtime frames
// (libc, a sanitizer's runtime) become one line, and runs of one recursive call one line with a
// count, so the program's own frames stand out.
import { describe, expect, it } from 'vitest';
import { levelRuns } from '../../../src/backends/gdb/gdbInspection.js';
import { isUserFrame } from '../../../src/backends/runtime/glibcRuntime.js';
import type { Frame } from '../../../src/model/model.js';
import { foldFrames, foldRecursion, RECURSION_RUN, shownLevels } from '../../../src/session/evidence/stackEntries.js';

// fixtures/c/recurse.c run as `recurse 30 crash`: the NULL write in bottom, 31 frames of descend.
const recursion: Frame[] = [
  { level: 0, function: 'bottom', file: 'recurse.c', line: 12, args: [{ name: 'depth', value: '30' }] },
  { level: 1, function: 'descend', file: 'recurse.c', line: 18, args: [{ name: 'left', value: '0' }] },
  ...Array.from({ length: 10 }, (_, i) => ({
    level: i + 2,
    function: 'descend',
    file: 'recurse.c',
    line: 21,
    args: [{ name: 'left', value: String(i + 1) }],
  })),
];

// asan_errors use-after-free with abort_on_error=1, libc6-dbg installed (levels 0-8 are the runtime's).
const asanAbort: Frame[] = [
  { level: 0, function: '__pthread_kill_implementation', file: './nptl/pthread_kill.c', line: 44 },
  { level: 1, function: '__pthread_kill_internal', file: './nptl/pthread_kill.c', line: 78 },
  { level: 2, function: '__GI_raise', file: '../sysdeps/posix/raise.c', line: 26 },
  { level: 3, function: '__GI_abort', file: './stdlib/abort.c', line: 79 },
  {
    level: 4,
    function: '__sanitizer::Abort',
    file: '../../../../src/libsanitizer/sanitizer_common/sanitizer_posix_libcdep.cpp',
    line: 143,
  },
  {
    level: 5,
    function: '__sanitizer::Die',
    file: '../../../../src/libsanitizer/sanitizer_common/sanitizer_termination.cpp',
    line: 58,
  },
  {
    level: 6,
    function: '__asan::ScopedInErrorReport::~ScopedInErrorReport',
    file: '../../../../src/libsanitizer/asan/asan_report.cpp',
    line: 190,
  },
  {
    level: 7,
    function: '__asan::ReportGenericError',
    file: '../../../../src/libsanitizer/asan/asan_report.cpp',
    line: 479,
  },
  {
    level: 8,
    function: '__asan::__asan_report_load4',
    file: '../../../../src/libsanitizer/asan/asan_rtl.cpp',
    line: 122,
  },
  { level: 9, function: 'read_after_free', file: 'asan_errors.c', line: 11 },
  { level: 10, function: 'main', file: 'asan_errors.c', line: 54 },
];

describe('foldRecursion', () => {
  it('folds a run of one call at one line into one entry with its count and the outermost frame', () => {
    const folded = foldRecursion(recursion);
    expect(folded).toHaveLength(3);
    expect(folded[0]).toBe(recursion[0]);
    expect(folded[1]).toBe(recursion[1]);
    expect(folded[2]).toEqual({ repeated: 10, fromLevel: 2, toLevel: 11, frame: recursion[11] });
  });

  it(`leaves runs shorter than ${RECURSION_RUN} and calls at other lines alone`, () => {
    const two = recursion.slice(1, 4);
    expect(foldRecursion(two)).toEqual(two);
    const sameFunctionOtherLines = recursion.map((f, i) => ({ ...f, function: 'descend', line: 100 + i }));
    expect(foldRecursion(sameFunctionOtherLines)).toEqual(sameFunctionOtherLines);
  });

  it('never folds frames it cannot name', () => {
    const unnamed = [0, 1, 2, 3].map((level) => ({ level, address: '0x401000' }));
    expect(foldRecursion(unnamed)).toEqual(unnamed);
  });
});

describe('foldFrames', () => {
  it('shows a sanitizer abort as one folded runtime line, then the program’s own frames', () => {
    const entries = foldFrames(asanAbort, isUserFrame);
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({ folded: 9, fromLevel: 0, toLevel: 8 });
    expect(entries[1]).toMatchObject({ level: 9, function: 'read_after_free' });
    expect(entries[2]).toMatchObject({ level: 10, function: 'main' });
  });

  it('folds recursion among the program’s frames, between runtime ones', () => {
    const libc = (level: number): Frame => ({ level, function: '__libc_start_call_main', library: '/lib/libc.so.6' });
    const frames = [...recursion, { level: 12, function: 'main', file: 'recurse.c', line: 30 }, libc(13), libc(14)];
    const entries = foldFrames(frames, isUserFrame);
    expect(
      entries.map((e) => ('repeated' in e ? `×${e.repeated}` : 'folded' in e ? `[${e.folded}]` : e.function)),
    ).toEqual(['bottom', 'descend', '×10', 'main', '[2]']);
  });
});

// What a stack read fetches arguments for: only what the answer shows (issue 15: the folded libc
// frames under pthread_join cost ~280 ms of --simple-values type lookups for nothing).
describe('shownLevels', () => {
  it('names the frames left in view: none of a folded runtime run, all of the program’s', () => {
    expect(shownLevels(asanAbort, isUserFrame)).toEqual([9, 10]);
  });

  it('names a recursion run by the frame its entry shows, and a lone runtime frame as itself', () => {
    const libc = (level: number): Frame => ({ level, function: '__libc_start_call_main', library: '/lib/libc.so.6' });
    const frames = [...recursion, { level: 12, function: 'main', file: 'recurse.c', line: 30 }, libc(13)];
    expect(shownLevels(frames, isUserFrame)).toEqual([0, 1, 11, 12, 13]);
  });

  it('groups levels into runs of consecutive ones, one argument read each', () => {
    expect(levelRuns([4, 3, 9, 10, 11, 3, 0])).toEqual([
      [0, 0],
      [3, 4],
      [9, 11],
    ]);
    expect(levelRuns([])).toEqual([]);
  });
});
