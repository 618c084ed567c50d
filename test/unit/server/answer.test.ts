// The answer builder: every failure carries a stable code (an unexpected exception is `internal`),
// every answer about a session carries its state and stop id, text stays within the budget.
import { describe, expect, it } from 'vitest';
import { EVIDENCE_VERSION } from '../../../src/server/answers/shapes.js';
import { failure, fitText, success } from '../../../src/server/response.js';
import { DebuggerError, toDebuggerError } from '../../../src/util/errors.js';

describe('answers', () => {
  it('an unexpected exception is an internal error, with its message', () => {
    const r = failure(toDebuggerError(new TypeError('cannot read x of undefined')));
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({
      error: { code: 'internal', message: 'cannot read x of undefined' },
      evidence_version: EVIDENCE_VERSION,
    });
    expect((r.content[0] as { text: string }).text).toBe('error (internal): cannot read x of undefined');
  });

  it('a DebuggerError keeps its code and details', () => {
    const r = failure(new DebuggerError('stale_context', 'moved on', { stopId: 3 }));
    expect(r.structuredContent).toEqual({
      error: { code: 'stale_context', message: 'moved on', details: { stopId: 3 } },
      evidence_version: EVIDENCE_VERSION,
    });
  });

  it('text past the budget is cut on a line and says so', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
    const cut = fitText(text, 2000);
    expect(cut.length).toBeLessThanOrEqual(2000 + 200);
    expect(cut).toMatch(/more characters cut at the 2000-character answer budget/);
    const ok = success({ data: { a: 1 }, text: 'short' }, 2000);
    expect(ok.structuredContent).toEqual({ a: 1, evidence_version: EVIDENCE_VERSION });
    expect(ok.isError).toBeUndefined();
  });
});
