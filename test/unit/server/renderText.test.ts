// The short texts beside the answers: a heading that announces N lines shows N lines, a paged
// stack says where the next page starts, a recursion and a sanitizer's report read at a glance.
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../../src/model/model.js';
import { renderStackEntry, renderView } from '../../../src/server/render.js';
import { OUTPUT_LINES_SHOWN, programOutputLines } from '../../../src/server/tools/runAnswer.js';
import type { CrashViewData } from '../../../src/session/evidence.js';

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

/** The quoted lines after a heading, and the count the heading announces. */
function quoted(lines: string[]): { announced: number | undefined; shown: number } {
  const at = lines.findIndex((l) => /^program output/.test(l));
  const announced = /\(last (\d+) lines?\)/.exec(lines[at] ?? '')?.[1];
  return {
    announced: announced === undefined ? undefined : Number(announced),
    shown: lines.slice(at + 1).filter((l) => l.startsWith('| ')).length,
  };
}

describe('programOutputLines', () => {
  it('announces exactly the number of lines it shows when it leaves lines out', () => {
    const lines = programOutputLines(`${numbered(24)}\n`, 'program output');
    expect(quoted(lines)).toEqual({ announced: OUTPUT_LINES_SHOWN, shown: OUTPUT_LINES_SHOWN });
    expect(lines.at(-1)).toBe('| line 24');
  });

  it('announces no count when it shows everything, unless the text is itself a tail', () => {
    expect(programOutputLines('a\nb\n', 'program output')).toEqual(['program output:', '| a', '| b']);
    expect(programOutputLines('a\nb\n', 'program output', true)[0]).toBe('program output (last 2 lines):');
    // A caller's heading with its own colon reads the same.
    expect(programOutputLines('a', 'program output:')[0]).toBe('program output:');
  });
});

const crash = (outputTail: string): CrashViewData => ({
  view: 'crash',
  signal: { name: 'SIGSEGV', meaning: 'Segmentation fault' },
  hint: 'NULL pointer dereference in store at crash.c:13',
  stack: [{ level: 0, function: 'store', file: 'crash.c', line: 13 }],
  locals: [],
  outputTail,
});

describe('the crash view text', () => {
  it('shows as many output lines as its heading says', () => {
    for (const n of [1, 3, 9]) {
      const { announced, shown } = quoted(renderView(crash(`${numbered(n)}\n`)));
      expect(announced).toBe(shown);
      expect(shown).toBe(Math.min(n, 4));
    }
  });

  it('quotes a sanitizer’s ERROR and SUMMARY lines instead of the legend that ends its output', () => {
    const text = renderView({
      ...crash('  Right alloca redzone:    cb\n==1==ABORTING\n'),
      signal: { name: 'SIGABRT', meaning: 'Aborted' },
      hint: 'AddressSanitizer reported heap-use-after-free',
      report: {
        tool: 'AddressSanitizer',
        kind: 'heap-use-after-free',
        errorLine: '==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000014',
        summaryLine: 'SUMMARY: AddressSanitizer: heap-use-after-free asan_errors.c:11 in read_after_free',
        hint: 'AddressSanitizer reported heap-use-after-free',
      },
    });
    expect(text).toContain('report: ==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000014');
    expect(text).toContain(
      'report: SUMMARY: AddressSanitizer: heap-use-after-free asan_errors.c:11 in read_after_free',
    );
    expect(text.join('\n')).not.toMatch(/redzone|program output/);
  });
});

describe('stack entries and pages', () => {
  it('a recursion reads as one line with its count', () => {
    const frame: Frame = { level: 11, function: 'descend', file: 'recurse.c', line: 21 };
    expect(renderStackEntry({ repeated: 10, fromLevel: 2, toLevel: 11, frame })).toBe(
      '#2-#11 descend at recurse.c:21 ×10 (the same call, recursing)',
    );
  });

  it('a stack page with more frames says where the next page starts', () => {
    const frames: Frame[] = Array.from({ length: 16 }, (_, level) => ({ level, function: 'descend' }));
    const lines = renderView({
      view: 'stack',
      from: 16,
      frames: frames.map((f) => ({ ...f, level: f.level + 16 })),
      more: true,
    });
    expect(lines.at(-1)).toBe('… more frames: ask again with from=32');
  });
});
