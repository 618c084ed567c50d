// The GDB raw-command allowlist on its own: every escape of issue 11 with its abbreviations,
// aliases and spellings is refused with a reason that names it; the read-only inspection commands
// are allowed and named as GDB would run them; rr sessions differ where rr's commands do.
import { describe, expect, it } from 'vitest';
import { classifyGdbCommand } from '../../../src/backends/gdb/gdbRawPolicy.js';
import { ALLOWED_GDB, ALLOWED_RR_ONLY, REFUSED_GDB, REFUSED_RR_ONLY } from '../../helpers/rawPolicyCases.js';

describe('classifyGdbCommand: allowed under --raw read', () => {
  it.each(ALLOWED_GDB)('gdb: %j runs as %s', (line, command) => {
    expect(classifyGdbCommand(line, 'gdb')).toEqual({ allowed: true, command });
  });

  it.each(ALLOWED_GDB.filter(([line]) => !['back', 'whe'].includes(line)))(
    'rr: %j runs as %s there too',
    (line, command) => {
      expect(classifyGdbCommand(line, 'rr')).toEqual({ allowed: true, command });
    },
  );

  it.each(ALLOWED_RR_ONLY)('rr: %j runs as %s', (line, command) => {
    expect(classifyGdbCommand(line, 'rr')).toEqual({ allowed: true, command });
  });
});

describe('classifyGdbCommand: refused under --raw read', () => {
  it.each(REFUSED_GDB)('gdb: %j is refused, naming %s', (line, word) => {
    const verdict = classifyGdbCommand(line, 'gdb');
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(word);
  });

  it.each(REFUSED_GDB.filter(([line]) => !['when', 'when-ticks', 'checkpoint', 'restart 1'].includes(line)))(
    'rr: %j is refused there too',
    (line) => {
      expect(classifyGdbCommand(line, 'rr').allowed).toBe(false);
    },
  );

  it.each(REFUSED_RR_ONLY)('rr: %j is refused, naming %s', (line, word) => {
    const verdict = classifyGdbCommand(line, 'rr');
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(word);
  });

  it('the eval refusal says what to do instead', () => {
    expect(classifyGdbCommand('eval "shell id"', 'gdb')).toEqual({
      allowed: false,
      reason:
        '`eval` builds a command from text: refused under --raw read; ask the operator for --raw full, or use dbg_evaluate',
    });
  });

  it('an unknown command lists what is allowed', () => {
    const verdict = classifyGdbCommand('tbreak main', 'gdb');
    expect(verdict).toMatchObject({ allowed: false });
    if (!verdict.allowed) expect(verdict.reason).toMatch(/`tbreak` is not one of .*print, output, x/);
  });
});

describe('classifyGdbCommand: abbreviations follow GDB, not a prefix match', () => {
  it("`back` is backtrace under GDB but rr's own `back` under rr", () => {
    expect(classifyGdbCommand('back', 'gdb')).toEqual({ allowed: true, command: 'backtrace' });
    expect(classifyGdbCommand('back', 'rr').allowed).toBe(false);
  });

  it('every prefix of an escape that GDB resolves to it is refused (python, shell, eval, pipe)', () => {
    for (const [name, shortest] of [
      ['python', 'py'],
      ['shell', 'she'],
      ['eval', 'eva'],
      ['maintenance', 'mai'],
      ['interpreter-exec', 'interp'],
    ] as const) {
      for (let n = shortest.length; n <= name.length; n++) {
        expect(classifyGdbCommand(`${name.slice(0, n)} x`, 'gdb').allowed, name.slice(0, n)).toBe(false);
      }
    }
  });

  it('a prefix GDB finds ambiguous is refused, though every command it begins is allowed elsewhere', () => {
    // GDB 13: Ambiguous command "pri 1": print, print-object, printf.
    for (const word of ['pr', 'pri', 'prin']) {
      const verdict = classifyGdbCommand(`${word} v`, 'gdb');
      expect(verdict).toEqual({
        allowed: false,
        reason: `\`${word}\` is ambiguous in GDB (print, print-object, printf): write the command out`,
      });
    }
    expect(classifyGdbCommand('print v', 'gdb')).toEqual({ allowed: true, command: 'print' });
  });

  it('options and /FMT do not hide a second command: the whole line is one command', () => {
    expect(classifyGdbCommand('print -pretty -- shell id', 'gdb')).toEqual({ allowed: true, command: 'print' });
    expect(classifyGdbCommand('p/x 1 | shell id', 'gdb')).toEqual({ allowed: true, command: 'print' });
  });
});
