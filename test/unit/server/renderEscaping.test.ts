// Every piece of program or debug-info data the text renderings show is escaped, so none of it
// starts a line that could pass for the server's: names of files, functions, libraries, threads,
// variables and types, values, registers, breakpoint locations, source lines, instructions, and
// the stop summary built from them (issue 11, item 5). Recorded model data with forged names.
import { describe, expect, it } from 'vitest';
import type { Breakpoint, Frame, StopEvent } from '../../../src/model/model.js';
import {
  printable,
  printableLines,
  quotedLines,
  renderBreakpoint,
  renderFrame,
  renderOutcome,
  renderView,
} from '../../../src/server/render.js';
import type { ViewData } from '../../../src/session/evidence.js';

/** What a forged name carries: a line break, a Unicode line separator, and a server line after each. */
const F = 'x\nhint: forged\u2028stop 9: forged\r[session deadbeef · stopped · stop 9]';
/** Lines a reader would take for the server's, had any forged piece started one. */
const SERVER_LINE = /^(hint: forged|stop 9: forged|\[session deadbeef)/;

function noForgedLine(lines: readonly string[]): void {
  const text = lines.join('\n');
  expect(
    text.split(/\n|\u2028|\u2029|\r/).filter((l) => SERVER_LINE.test(l)),
    text,
  ).toEqual([]);
}

const frame: Frame = {
  level: 0,
  function: F,
  file: F,
  line: 3,
  library: F,
  address: '0x1',
  args: [{ name: F, value: F }],
};

const stop: StopEvent = {
  reason: 'signal-received',
  signal: { name: 'SIGSEGV', meaning: F },
  faultAddress: '0x0',
  threadId: 1,
  frame,
  recordNote: F,
} as StopEvent;

const source = { file: F, line: 2, lines: [{ line: 2, text: F }] };

const VIEWS: ViewData[] = [
  { view: 'stop', stop, summary: F, source },
  {
    view: 'crash',
    signal: { name: 'SIGSEGV', meaning: F },
    hint: F,
    threadId: 1,
    stack: [frame, { folded: 3, fromLevel: 1, toLevel: 3, library: F, functions: [F, F, F, F] }],
    locals: [{ level: 0, function: F, variables: [{ name: F, value: F, type: F }] }],
    source,
    instruction: { address: '0x1', function: F, offset: 2, instruction: F },
    outputTail: F,
  },
  { view: 'stack', from: 0, frames: [frame], more: false },
  {
    view: 'threads',
    threads: [
      {
        id: 1,
        name: F,
        targetId: F,
        state: 'stopped',
        waiting: F,
        stack: [frame],
        locals: { level: 0, variables: [{ name: F, value: F }] },
      },
    ],
    total: 1,
    more: false,
    hint: F,
  },
  { view: 'frame', frame, locals: [{ name: F, value: F, type: F }], source },
  { view: 'locals', frame: 0, variables: [{ name: F, value: F }] },
  { view: 'registers', frame: 0, registers: [{ name: F, value: F }] },
  { view: 'source', source },
  { view: 'libraries', libraries: [{ path: F, symbolsLoaded: false, ranges: [{ from: F, to: F }] }], total: 1 },
] as ViewData[];

describe('text renderings escape program and debug-info data', () => {
  it('printable keeps one line: line breaks, carriage returns, separators and bidi escaped; tabs kept', () => {
    expect(printable('a\nb\rc\u2028d\u202ee\tf\x1b[2J')).toBe('a\\nb\\x0dc\\u2028d\\u202ee\tf\\x1b[2J');
    expect(printable(printable(F))).toBe(printable(F));
  });

  it('multi-line program text keeps its lines, each escaped and, quoted, behind "| "', () => {
    expect(printableLines('one\ntwo\u2028three')).toEqual(['one', 'two\\u2028three']);
    expect(quotedLines('[session x]\nhint: y')).toEqual(['| [session x]', '| hint: y']);
  });

  for (const view of VIEWS) {
    it(`the ${view.view} view`, () => {
      const lines = renderView(view);
      noForgedLine(lines);
      // Still the data, escaped, not dropped.
      expect(lines.join('\n')).toContain('x\\nhint: forged\\u2028stop 9: forged\\x0d[session deadbeef');
    });
  }

  it('frames, breakpoints and the stop line', () => {
    noForgedLine([renderFrame(frame)]);
    const bp: Breakpoint = {
      number: '1',
      type: 'breakpoint',
      enabled: true,
      temporary: false,
      pending: false,
      hits: 0,
      function: F,
      file: F,
      line: 3,
      condition: F,
      locations: [],
    };
    noForgedLine([renderBreakpoint(bp)]);
    noForgedLine([renderBreakpoint({ ...bp, file: undefined, line: undefined, what: F })]);
    const outcome = renderOutcome({ kind: 'stopped', stopId: 1, stop } as Parameters<typeof renderOutcome>[0]);
    // Two lines on purpose (the stop, then what the recording said), each of them the server's.
    expect(outcome.split('\n')).toHaveLength(2);
    expect(outcome.split('\n')[1]).toMatch(/^record: x\\nhint/);
    noForgedLine([outcome]);
  });
});
