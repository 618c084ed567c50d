// Reading what GDB 13's process record prints around a stop (texts captured from gdb 13.1 here).
import { describe, expect, it } from 'vitest';
import { isReplaying, readRecordNotes, recordEnvironment } from '../../../src/backends/gdb/gdbRecord.js';

describe('record notes', () => {
  it('an unsupported instruction says which, where and what to do', () => {
    const n = readRecordNotes(
      'Process record does not support instruction 0x62 at address 0x7ffff7f3bf00.\nProcess record: failed to record execution log.\n\nProgram stopped.\n',
    );
    expect(n.recordStop).toBe(true);
    expect(n.note).toMatch(/cannot step instruction 0x62 at 0x7ffff7f3bf00/);
    expect(n.note).toMatch(/record=true/);
  });

  it('the end of history, the exit syscall and a full buffer', () => {
    expect(readRecordNotes('\nNo more reverse-execution history.\nmain () at corrupt.c:11\n').history).toBeDefined();
    expect(
      readRecordNotes(
        'The next instruction is syscall exit_group.  It will make the program exit.  Do you want to stop the program?([y] or n) [answered Y; input not from terminal]\nProcess record: inferior program stopped.\n',
      ).note,
    ).toMatch(/just before it exits/);
    expect(
      readRecordNotes(
        'Do you want to auto delete previous execution log entries when record/replay buffer becomes full (record full stop-at-limit)?([y] or n) [answered Y; input not from terminal]\n',
      ).note,
    ).toMatch(/oldest instructions were dropped/);
    expect(readRecordNotes('Breakpoint 1, main () at x.c:3\n')).toEqual({});
  });

  it('replay mode is read from info record', () => {
    expect(
      isReplaying('Active record target: record-full\nReplay mode:\nLowest recorded instruction number is 1.\n'),
    ).toBe(true);
    expect(isReplaying('Active record target: record-full\nRecord mode:\n')).toBe(false);
  });

  it('the record environment keeps tunables the user set', () => {
    const env = recordEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.check=3', X: '1' });
    expect(env['X']).toBe('1');
    expect(env['LD_BIND_NOW']).toBe('1');
    expect(env['GLIBC_TUNABLES']).toMatch(/^glibc\.malloc\.check=3:glibc\.cpu\.hwcaps=-AVX512F/);
  });
});
