// The LLDB backend's thread numbers: lldb-dap names threads by OS id (12623), the answers by the
// session's small numbers, as GDB's are.
import { describe, expect, it } from 'vitest';
import { LldbThreadNumbers } from '../../../src/backends/lldb/lldbThreadNumbers.js';

describe('LldbThreadNumbers', () => {
  it('numbers threads 1, 2, 3 in the order they are first seen', () => {
    const n = new LldbThreadNumbers();
    expect([12623, 12625, 12624].map((id) => n.number(id))).toEqual([1, 2, 3]);
  });

  it('keeps a thread its number when it is seen again (another stop)', () => {
    const n = new LldbThreadNumbers();
    n.number(500);
    n.number(501);
    expect(n.number(501)).toBe(2);
    expect(n.number(500)).toBe(1);
    expect(n.number(777)).toBe(3);
  });

  it('turns a number back into the id lldb-dap knows', () => {
    const n = new LldbThreadNumbers();
    n.number(4242);
    n.number(4243);
    expect(n.dapId(2)).toBe(4243);
    expect(n.dapIdOf(undefined)).toBeUndefined();
    expect(n.dapIdOf(1)).toBe(4242);
  });

  it('refuses a number no thread had, naming the argument and the numbers there are', () => {
    const n = new LldbThreadNumbers();
    expect(() => n.dapId(1)).toThrow(/there is no thread 1 \(threads are numbered none yet/);
    n.number(9000);
    expect(() => n.dapId(9000)).toThrowError(
      expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(/numbered 1 to 1/) }),
    );
  });
});
