// The pure parts of targets: refusals in words (attach, connect, run), argument checks, core file
// headers, which registers are general, and which process a stop belongs to. Deterministic
// coverage beside the integration tests, which drive the real tools.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generalRegisterCount } from '../../../src/backends/gdb/gdbInspection.js';
import { coreCheck, coreSizeLimit } from '../../../src/backends/gdb/gdbTargetDoctor.js';
import { explainAttachFailure, explainConnectFailure } from '../../../src/backends/gdb/gdbTargets.js';
import { checkTargetArgs } from '../../../src/server/tools/startTarget.js';
import type { SessionTarget } from '../../../src/session/session.js';
import { initialSnapshot, type SessionEvent, transition } from '../../../src/session/sessionState.js';
import { refusedRun } from '../../../src/session/targetRules.js';
import { checkCoreFile } from '../../../src/util/elfCore.js';
import { tempDir } from '../../helpers/targets.js';

describe('attach refusals in plain words', () => {
  const base = { tracerPid: 0, uid: 1000, ownUid: 1000 };
  const denied = 'ptrace: Operation not permitted.';
  it.each([
    [
      { ...base, ptraceScope: 1 },
      /ptrace_scope is 1: only a parent may trace its children; sysctl kernel.yama.ptrace_scope=0/,
    ],
    [{ ...base, ptraceScope: 2 }, /ptrace_scope is 2: only root \(CAP_SYS_PTRACE\) may attach/],
    [{ ...base, ptraceScope: 3 }, /ptrace_scope is 3: attaching is off until the next reboot/],
    [{ ...base, uid: 0 }, /it belongs to uid 0 and the server runs as uid 1000/],
    [{ ...base }, /Operation not permitted\. \(no CAP_SYS_PTRACE here/],
    [
      { ...base, tracerPid: 77, tracerName: 'strace' },
      /already traced by process 77 \(strace\); a process has one tracer/,
    ],
  ])('%o', (facts, expected) => {
    const e = explainAttachFailure(1234, denied, facts);
    expect(e.code).toBe('debugger_error');
    expect(e.message).toMatch(/^cannot attach to process 1234: /);
    expect(e.message).toMatch(expected);
  });

  it('root is held back by neither scope 1 nor another uid', () => {
    const e = explainAttachFailure(1234, denied, { tracerPid: 0, uid: 5, ownUid: 0, ptraceScope: 1 });
    expect(e.message).not.toMatch(/ptrace_scope|uid 5/);
  });

  it('a process that is gone is an invalid argument', () => {
    const e = explainAttachFailure(1234, 'ptrace: No such process.', { tracerPid: undefined, ownUid: 0 });
    expect({ code: e.code, message: e.message }).toEqual({
      code: 'invalid_argument',
      message: 'attach: no process 1234 is running',
    });
  });
});

describe('connect refusals in plain words', () => {
  it.each([
    ['localhost:1: Connection refused.', /nothing accepted the connection \(refused for 5\.0 s\): start gdbserver/],
    ['h:1: cannot resolve name: Name or service not known', /the host name does not resolve/],
    ['h:1: Connection timed out.', /the connection timed out/],
    ["Remote replied unexpectedly to 'vMustReplyEmpty': HTTP/1.1", /what answered is not a GDB remote stub/],
  ])('%s', (message, expected) => {
    const e = explainConnectFailure('h:1', message, 5000);
    expect(e.message).toMatch(/^cannot connect to h:1: /);
    expect(e.message).toMatch(expected);
  });
});

describe('run actions a target refuses', () => {
  const core: SessionTarget = { kind: 'core', program: '/p', args: [], core: '/c' };
  const attach: SessionTarget = { kind: 'attach', program: '/p', args: [], pid: 42 };
  const remote: SessionTarget = { kind: 'remote', program: '/p', args: [], remote: 'h:1' };
  const multi: SessionTarget = { kind: 'launch', program: '/p', args: [], remote: 'h:1' };
  it('a core runs nothing', () => {
    for (const action of ['continue', 'step', 'run', 'kill'] as const) {
      expect(refusedRun(core, action)?.code).toBe('wrong_state');
    }
  });
  it('an attached or stub-run program cannot be started again; one launched through --multi can', () => {
    expect(refusedRun(attach, 'restart')?.message).toContain('it is attached to pid 42');
    expect(refusedRun(remote, 'run')?.message).toContain('the stub at h:1 runs it');
    expect(refusedRun(attach, 'continue')).toBeUndefined();
    expect(refusedRun(remote, 'kill')).toBeUndefined();
    expect(refusedRun(multi, 'restart')).toBeUndefined();
  });
});

describe('dbg_start target arguments', () => {
  const refusal = (args: Parameters<typeof checkTargetArgs>[0]): string => {
    try {
      checkTargetArgs(args);
    } catch (e) {
      return (e as Error).message;
    }
    return 'accepted';
  };
  it.each([
    [{ core: 'c' }, /^program: a core needs the program/],
    [{ core: 'c', program: 'p', attach: 5 }, /^core: a core is opened alone/],
    [{ core: 'c', program: 'p', breakpoints: [{ location: 'main' }] }, /^breakpoints: a core does not run/],
    [{ extended: true }, /^extended: needs remote/],
    [{ remote: 'h:1', extended: true }, /^extended: give program/],
    [{ attach: 5, stdin: 'x' }, /^stdin: only a program launched here/],
    [{ remote: 'h:1', record: true }, /^record: recording works on a program launched here/],
    [{ program: 'p', sysroot: '/s' }, /^sysroot: is for a core, an attach or a remote target/],
  ])('%o', (args, expected) => {
    expect(refusal(args)).toMatch(expected);
  });
  it.each([[{ core: 'c', program: 'p' }], [{ attach: 5 }], [{ attach: 5, remote: 'h:1' }], [{ remote: 'h:1' }]])(
    'accepts %o',
    (args) => {
      expect(refusal(args)).toBe('accepted');
    },
  );
});

/** An ELF64 little-endian header of `type` with `segments` program headers (offset, size). */
function elf(type: number, segments: [number, number][], machine = 62): Buffer {
  const head = Buffer.alloc(64);
  head.writeUInt32BE(0x7f454c46, 0);
  head[4] = 2; // 64-bit
  head[5] = 1; // little-endian
  head[6] = 1;
  head.writeUInt16LE(type, 16);
  head.writeUInt16LE(machine, 18);
  head.writeBigUInt64LE(64n, 32); // e_phoff
  head.writeUInt16LE(56, 54); // e_phentsize
  head.writeUInt16LE(segments.length, 56); // e_phnum
  const table = Buffer.alloc(56 * segments.length);
  segments.forEach(([offset, size], i) => {
    table.writeUInt32LE(1, i * 56); // PT_LOAD
    table.writeBigUInt64LE(BigInt(offset), i * 56 + 8);
    table.writeBigUInt64LE(BigInt(size), i * 56 + 32);
  });
  return Buffer.concat([head, table]);
}

describe('core file headers', () => {
  const write = (name: string, bytes: Buffer): string => {
    const path = join(tempDir('dbg-elfcore-'), name);
    writeFileSync(path, bytes);
    return path;
  };
  it('a whole core', async () => {
    const body = elf(4, [[120, 100]], 183);
    const path = write('core', Buffer.concat([body, Buffer.alloc(100)]));
    expect(await checkCoreFile(path)).toEqual({ kind: 'core', machine: 183, bits: 64, size: 220 });
  });
  it('a core cut short names both sizes', async () => {
    const path = write('core', Buffer.concat([elf(4, [[120, 4096]]), Buffer.alloc(10)]));
    expect(await checkCoreFile(path)).toEqual({ kind: 'truncated', machine: 62, size: 130, needed: 4216 });
  });
  it('a core whose program headers are cut off', async () => {
    const path = write('core', elf(4, [[176, 1]]).subarray(0, 80));
    expect(await checkCoreFile(path)).toMatchObject({ kind: 'truncated', size: 80, needed: 120 });
  });
  it('an executable, a PIE, and text', async () => {
    expect(await checkCoreFile(write('exe', elf(2, [])))).toEqual({ kind: 'not-core', type: 2 });
    expect(await checkCoreFile(write('pie', elf(3, [])))).toEqual({ kind: 'not-core', type: 3 });
    expect(
      await checkCoreFile(write('text', Buffer.from('hello, this is not ELF at all; long enough to read\n'))),
    ).toEqual({ kind: 'not-elf' });
  });
});

describe('general registers', () => {
  it('x86-64: rax … gs, before the x87 stack', () => {
    const names = ['rax', 'rbx', ...Array.from({ length: 22 }, (_, i) => `r${i}`), 'st0', 'st1', 'fctrl', 'xmm0'];
    expect(generalRegisterCount(names)).toBe(24);
  });
  it('AArch64: x0 … cpsr, before the vector registers', () => {
    const names = [...Array.from({ length: 31 }, (_, i) => `x${i}`), 'sp', 'pc', 'cpsr', 'v0', 'v1', 'fpsr'];
    expect(generalRegisterCount(names)).toBe(34);
  });
});

describe('the process of a stop', () => {
  const play = (...events: SessionEvent[]) => events.reduce(transition, initialSnapshot());
  const crash: SessionEvent = {
    type: 'stopped',
    stop: { reason: 'signal-received', signal: { name: 'SIGSEGV', meaning: 'Segmentation fault' }, threadId: 2 },
  };
  const parent: SessionEvent[] = [
    { type: 'inferior-started', group: 'i1', pid: 100 },
    { type: 'thread-created', id: 1, group: 'i1' },
  ];
  it('a stop in the second of two processes names its pid', () => {
    const s = play(
      ...parent,
      { type: 'inferior-started', group: 'i2', pid: 200 },
      { type: 'thread-created', id: 2, group: 'i2' },
      crash,
    );
    expect(s.state.phase === 'stopped' && s.state.stop.pid).toBe(200);
  });
  it('a stop of the only, first process names none', () => {
    const s = play(...parent, { ...crash, stop: { ...(crash as { stop: object }).stop, threadId: 1 } } as SessionEvent);
    expect(s.state.phase === 'stopped' && s.state.stop.pid).toBeUndefined();
  });
  it('a followed child (the parent let go) is named even when it is alone', () => {
    const s = play(
      ...parent,
      { type: 'inferior-started', group: 'i2', pid: 200 },
      { type: 'thread-created', id: 2, group: 'i2' },
      { type: 'inferior-exited', group: 'i1' },
      crash,
    );
    expect(s.state.phase === 'stopped' && s.state.stop.pid).toBe(200);
  });
});

describe('where crashes dump, in the doctor', () => {
  it.each([
    ['core', /crashes dump to core \(relative to the program's cwd\) when ulimit -c allows/],
    ['|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h', /systemd-coredump: coredumpctl dump PID -o FILE/],
    ['|/usr/share/apport/apport -p%p -s%s -c%c', /apport: apport-unpack the \.crash file/],
  ])('%s', (pattern, expected) => {
    const check = coreCheck(pattern);
    expect(check.ok).toBe(true);
    expect(check.detail).toMatch(expected);
  });

  const limits = (soft: string, hard: string) =>
    `Limit                     Soft Limit           Hard Limit           Units     \nMax cpu time              unlimited            unlimited            seconds   \nMax core file size        ${soft}                    ${hard}            bytes     \n`;

  it('reads the core size limit from /proc/self/limits', () => {
    expect(coreSizeLimit(limits('0', 'unlimited'))).toEqual({ soft: 0, hard: Number.POSITIVE_INFINITY });
    expect(coreSizeLimit(limits('1048576', '1048576'))).toEqual({ soft: 1048576, hard: 1048576 });
    expect(coreSizeLimit('Max cpu time unlimited unlimited seconds\n')).toBeUndefined();
    expect(coreSizeLimit(undefined)).toBeUndefined();
  });

  it('says so when ulimit -c is 0, with the way to raise it', () => {
    const soft = coreCheck('core', { soft: 0, hard: Number.POSITIVE_INFINITY });
    expect(soft.detail).toMatch(/crashes dump no core here: ulimit -c is 0 .*run `ulimit -c unlimited`/);
    expect(soft.detail).not.toMatch(/when ulimit -c allows/);
    const hard = coreCheck('core', { soft: 0, hard: 0 });
    expect(hard.detail).toMatch(/the hard limit is 0 too: raise it as root/);
    const allowed = coreCheck('core', { soft: Number.POSITIVE_INFINITY, hard: Number.POSITIVE_INFINITY });
    expect(allowed.detail).toMatch(/crashes dump to core \(relative to the program's cwd\)$/);
  });
});
