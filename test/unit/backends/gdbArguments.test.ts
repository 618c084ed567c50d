import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { planArguments, shellQuote } from '../../../src/backends/gdb/gdbArguments.js';

/** What /bin/sh makes of `text` as the argument list of a command: the argv it would pass. */
function shWords(text: string): string[] {
  const out = execFileSync('/bin/sh', ['-c', `for a in ${text}; do printf '%s\\0' "$a"; done`], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' },
  });
  return out === '' ? [] : out.slice(0, -1).split('\0');
}

describe('shellQuote', () => {
  it.each([
    ['plain', "'plain'"],
    ['', "''"],
    ["it's", "'it'\\''s'"],
    ["''", "''\\'''\\'''"],
    ['a b', "'a b'"],
  ])('%j → %s', (arg, quoted) => {
    expect(shellQuote(arg)).toBe(quoted);
  });
});

describe('planArguments', () => {
  it('passes arguments with no white space and none empty without a shell, joined by spaces', () => {
    // With startup-with-shell off GDB splits on white space only, so these reach the program as is.
    const args = ['$HOME', ';', '*', '"q"', "it's", '`id`', '\\', '|&<>'];
    expect(planArguments(args)).toEqual({ shell: false, text: args.join(' ') });
  });

  it('no arguments need no shell', () => {
    expect(planArguments([])).toEqual({ shell: false, text: '' });
  });

  it.each([[['a b']], [['']], [['x', '']], [['tab\there']], [['line\rfeed']], [['\u000b']]])(
    'uses a shell when an argument is empty or has white space: %j',
    (args) => {
      const plan = planArguments(args);
      expect(plan.shell).toBe(true);
      expect(plan.text).toBe(args.map(shellQuote).join(' '));
    },
  );

  it('the shell text gives back every argument byte for byte', () => {
    const args = ['a b', '', "it's", '$HOME', ';', '*', '"q"', 'tab\there', '$(id)', '`id`', '\\n', '!', '~', "'", 'é'];
    const plan = planArguments(args);
    expect(plan.shell).toBe(true);
    expect(shWords(plan.text)).toEqual(args);
  });
});
