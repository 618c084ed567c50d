// The options a sanitized program runs with under the debugger: ours fill in what the user's
// own ASAN_OPTIONS/UBSAN_OPTIONS lack and never replace what they say.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionKeys, sanitizerEnvironment, sanitizersIn } from '../../../src/backends/runtime/sanitizerBuild.js';
import { fixture, fixturesDir } from '../../helpers/paths.js';

describe('sanitizerEnvironment', () => {
  it('gives an ASan program abort_on_error, halt_on_error, no leak check and no colour', () => {
    const { additions, notes } = sanitizerEnvironment(undefined, undefined, ['address']);
    expect(additions).toEqual({ ASAN_OPTIONS: 'abort_on_error=1:halt_on_error=1:detect_leaks=0:color=never' });
    expect(notes.join('\n')).toMatch(/LeakSanitizer cannot run under ptrace/);
  });

  it('gives a UBSan program halting, aborting, stack-printing options', () => {
    expect(sanitizerEnvironment({}, {}, ['undefined']).additions).toEqual({
      UBSAN_OPTIONS: 'abort_on_error=1:halt_on_error=1:print_stacktrace=1:color=never',
    });
  });

  it("keeps the program's own options and appends only the missing ones", () => {
    const { additions, notes } = sanitizerEnvironment(
      { ASAN_OPTIONS: 'detect_leaks=1,color=always:' },
      { ASAN_OPTIONS: 'abort_on_error=0', UBSAN_OPTIONS: 'halt_on_error=0' },
      ['address', 'undefined'],
    );
    // The program's env wins over the passed-through one for the same variable.
    expect(additions['ASAN_OPTIONS']).toBe('detect_leaks=1,color=always:abort_on_error=1:halt_on_error=1');
    expect(additions['UBSAN_OPTIONS']).toBe('halt_on_error=0:abort_on_error=1:print_stacktrace=1:color=never');
    // The user asked for leak checks: no note that says they are off.
    expect(notes.join('\n')).not.toMatch(/leak checking is off/);
  });

  it('says so when the user turned abort_on_error off, and leaves it off', () => {
    const { additions, notes } = sanitizerEnvironment(undefined, { ASAN_OPTIONS: 'abort_on_error=0' }, ['address']);
    expect(additions['ASAN_OPTIONS']).toMatch(/^abort_on_error=0:/);
    expect(additions['ASAN_OPTIONS']).not.toMatch(/abort_on_error=1/);
    expect(notes.join('\n')).toMatch(/abort_on_error=0: a report ends the program/);
  });

  it('adds nothing when every setting is given, and nothing for an unsanitized program', () => {
    const full = 'abort_on_error=1:halt_on_error=1:detect_leaks=0:color=never';
    expect(sanitizerEnvironment({ ASAN_OPTIONS: full }, undefined, ['address']).additions).toEqual({});
    expect(sanitizerEnvironment(undefined, undefined, [])).toEqual({ additions: {}, notes: [] });
  });

  it('turns off standalone LeakSanitizer through LSAN_OPTIONS, and leaves it to ASAN_OPTIONS inside ASan', () => {
    expect(sanitizerEnvironment(undefined, undefined, ['leak']).additions).toEqual({ LSAN_OPTIONS: 'detect_leaks=0' });
    expect(Object.keys(sanitizerEnvironment(undefined, undefined, ['address', 'leak']).additions)).toEqual([
      'ASAN_OPTIONS',
    ]);
  });

  it('reads keys separated by colons, commas and spaces', () => {
    expect([...optionKeys('a=1:b=2,c=3 d=4\te=x')]).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect([...optionKeys('suppressions=/x/a=b.txt')]).toEqual(['suppressions']);
  });
});

describe('sanitizersIn', () => {
  it('finds none in a program built without sanitizers, or in a file that is not ELF', async () => {
    expect(await sanitizersIn(fixture('hello'))).toEqual([]);
    const script = join(fixturesDir, 'build', 'not-elf.sh');
    writeFileSync(script, '#!/bin/sh\necho __asan_init\n');
    expect(await sanitizersIn(script)).toEqual([]);
  });
});
