// Which raw commands dbg_command refuses, and which it sends to the background: GDB's own
// abbreviation rules (a unique prefix, or an alias) apply, so the checks must too.
import { describe, expect, it } from 'vitest';
import { backgrounded, refusal } from '../../../src/backends/gdb/gdbCommand.js';

describe('dbg_command policy', () => {
  it('refuses every abbreviation GDB accepts for a refused command', () => {
    for (const c of [
      'q',
      'qu',
      'quit',
      'exit',
      'det',
      'detach inferiors 1',
      'k',
      'kill',
      'at 1234',
      'she ls',
      'shell',
      '!ls',
      '! ls',
      '|cat',
      'pipe',
      'mak',
      'ed',
      'interp mi "-gdb-exit"',
      'new-ui mi /dev/pts/9',
      'tt /dev/null',
    ]) {
      expect(refusal(c), c).toBeDefined();
    }
  });

  it('refuses the bare forms of python and guile, which read more lines, but not one-liners', () => {
    expect(refusal('python')).toMatch(/reads more lines/);
    expect(refusal('py  ')).toMatch(/reads more lines/);
    expect(refusal('pi')).toMatch(/reads more lines/);
    expect(refusal('python print(1)')).toBeUndefined();
    expect(refusal('pi 1 + 1')).toBeUndefined();
    expect(refusal('guile (display 1)')).toBeUndefined();
    expect(refusal('gr')).toBeDefined();
    for (const c of ['define f', 'document f', 'while 1', 'if 1', 'commands', 'comm 2'])
      expect(refusal(c), c).toBeDefined();
  });

  it('refuses the settings the server depends on, however abbreviated', () => {
    for (const c of [
      'set pa on',
      'set pagination off',
      'set he 10',
      'set wi 80',
      'set con on',
      'set mi-async off',
      'set target-async off',
      'set non-stop on',
      'set lo enabled on',
      'set inf /dev/null',
      'set may-call-functions on',
      'set startup-with-shell on',
    ]) {
      expect(refusal(c), c).toMatch(/^set /);
    }
    expect(refusal('set var x = 3')).toBeUndefined();
    expect(refusal('set print pretty on')).toBeUndefined();
    expect(refusal('set scheduler-locking on')).toBeUndefined();
  });

  it('lets everything else through', () => {
    for (const c of [
      'info frame',
      'bt full',
      'x/8xg $sp',
      'p *node',
      'record full',
      'reverse-next',
      'continue',
      'disassemble',
      'source cmds.gdb',
      'info inferiors',
      'show confirm',
      'define-prefix x',
    ]) {
      expect(refusal(c), c).toBeUndefined();
    }
  });

  it('sends commands that resume the program to the background, once', () => {
    expect(backgrounded('continue')).toBe('continue &');
    expect(backgrounded('c 3')).toBe('c 3 &');
    expect(backgrounded('next')).toBe('next &');
    expect(backgrounded('si')).toBe('si &');
    expect(backgrounded('until 15  ')).toBe('until 15 &');
    expect(backgrounded('rc')).toBe('rc &');
    expect(backgrounded('reverse-finish')).toBe('reverse-finish &');
    expect(backgrounded('run a b')).toBe('run a b &');
    expect(backgrounded('continue &')).toBe('continue &');
    expect(backgrounded('info frame')).toBe('info frame');
    expect(backgrounded('record full')).toBe('record full');
    expect(backgrounded('p f()')).toBe('p f()');
  });
});
