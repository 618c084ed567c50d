import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../../src/util/didYouMean.js';

describe('didYouMean', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    expect(editDistance('program', 'program')).toBe(0);
    expect(editDistance('programm', 'program')).toBe(1);
    expect(editDistance('progam', 'program')).toBe(1);
    expect(editDistance('prigram', 'program')).toBe(1);
    expect(editDistance('brekpoints', 'breakpoints')).toBe(1);
    expect(editDistance('porgram', 'program')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('names the nearest known name for a typo, and nothing for a word far from all', () => {
    const known = ['program', 'args', 'breakpoints', 'stop', 'stdin'];
    expect(didYouMean('programm', known)).toBe('program');
    expect(didYouMean('brekpoints', known)).toBe('breakpoints');
    expect(didYouMean('Program', known)).toBe('program');
    expect(didYouMean('zzzzzz', known)).toBeUndefined();
    // Short names allow one edit only; a tie between two names guesses neither.
    expect(didYouMean('stp', known)).toBe('stop');
    expect(didYouMean('sto', ['stop', 'stdo'])).toBeUndefined();
  });
});
