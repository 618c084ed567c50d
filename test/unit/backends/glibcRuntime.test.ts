// glibc's abort message and mutex owner, read as memory through any backend's reader: recorded
// bytes in, the message or the owner out.
import { describe, expect, it } from 'vitest';
import type { FrameSelector, TargetReader } from '../../../src/backends/debuggerBackend.js';
import {
  glibcAbortMessage,
  glibcLockOwner,
  glibcRuntime,
  littleEndian,
} from '../../../src/backends/runtime/glibcRuntime.js';
import type { Frame, MemoryBlock, Register } from '../../../src/model/model.js';

/** A reader over a little memory map: address → bytes, plus symbols and registers. */
function reader(memory: Record<string, string>, extra: Partial<TargetReader> = {}): TargetReader {
  return {
    async evaluate(expression: string): Promise<string> {
      if (expression === '&__abort_msg') return '(struct abort_msg_s **) 0x7ffff7e1a6f8 <__abort_msg>';
      throw new Error(`no symbol in "${expression}"`);
    },
    async readMemory(address: string, count: number): Promise<MemoryBlock[]> {
      const at = BigInt(address);
      for (const [start, hex] of Object.entries(memory)) {
        const base = BigInt(start);
        const offset = Number(at - base);
        if (offset >= 0 && offset + count <= hex.length / 2) {
          return [{ address, hex: hex.slice(offset * 2, (offset + count) * 2) }];
        }
      }
      throw new Error(`Cannot access memory at address ${address}`);
    },
    ...extra,
  };
}

const le64 = (n: bigint): string => n.toString(16).padStart(16, '0').match(/../g)?.reverse().join('') ?? '';
const le32 = (n: number): string => n.toString(16).padStart(8, '0').match(/../g)?.reverse().join('') ?? '';
const text = (s: string): string => Buffer.from(`${s}\0`).toString('hex');

describe('glibc abort message', () => {
  it('reads struct abort_msg_s through __abort_msg', async () => {
    const message = "crash: crash.c:40: main: Assertion `n > 0' failed.\n";
    const r = reader({
      '0x7ffff7e1a6f8': le64(0x555555559000n),
      '0x555555559000': le32(message.length + 5) + text(message),
    });
    expect(await glibcAbortMessage(r, 1)).toBe(message.trim());
  });

  it('says nothing when no message was kept or glibc has no such symbol', async () => {
    expect(await glibcAbortMessage(reader({ '0x7ffff7e1a6f8': le64(0n) }), 1)).toBeUndefined();
    const noSymbol: TargetReader = { ...reader({}), evaluate: async () => Promise.reject(new Error('No symbol')) };
    expect(await glibcAbortMessage(noSymbol, 1)).toBeUndefined();
  });
});

describe('glibc mutex owner', () => {
  const mutex = 0x555555558040n;
  // struct __pthread_mutex_s: __lock = 2 (contended), __count = 0, __owner = 4003.
  const bytes = le32(2) + le32(0) + le32(4003) + le32(1);
  const lockFrames = (args?: Frame['args']): Frame[] => [
    { level: 0, function: '__futex_abstimed_wait_common' },
    { level: 1, function: '__lll_lock_wait' },
    { level: 2, function: '___pthread_mutex_lock', ...(args ? { args } : {}) },
    { level: 3, function: 'move_funds', file: 'abba.c', line: 20 },
  ];

  it('reads __owner at offset 8 of the mutex named by glibc’s frame, with the mutex’s symbol', async () => {
    const r = reader({ [`0x${mutex.toString(16)}`]: bytes }, { symbolAt: async () => 'ledger_a' });
    expect(await glibcLockOwner(r, 2, lockFrames([{ name: 'mutex', value: `0x${mutex.toString(16)}` }]))).toEqual({
      mutex: `ledger_a (0x${mutex.toString(16)})`,
      ownerOsThread: 4003,
    });
  });

  it('without libc debug info, takes the futex address from the first argument register', async () => {
    if (process.arch !== 'x64' && process.arch !== 'arm64') return;
    const register = process.arch === 'x64' ? 'rdi' : 'x0';
    const seen: FrameSelector[] = [];
    const r = reader(
      { [`0x${mutex.toString(16)}`]: bytes },
      {
        registers: async (sel): Promise<Register[]> => {
          seen.push(sel);
          return [{ number: 5, name: register, value: `0x${mutex.toString(16)}` }];
        },
      },
    );
    expect(await glibcLockOwner(r, 2, lockFrames())).toEqual({ mutex: `0x${mutex.toString(16)}`, ownerOsThread: 4003 });
    expect(seen[0]).toMatchObject({ threadId: 2, frame: 0 });
  });

  it('asks for the arguments of the lock call alone: the frame whose mutex it reads', () => {
    expect([...(glibcRuntime.argsRead?.(lockFrames()) ?? [])]).toEqual([2]);
    expect([...(glibcRuntime.argsRead?.(lockFrames().slice(3)) ?? [])]).toEqual([]);
  });

  it('a thread not blocked in pthread_mutex_lock has no owner to name', async () => {
    expect(await glibcLockOwner(reader({}), 2, [{ level: 0, function: 'spin' }])).toBeUndefined();
  });

  it('reads little-endian integers', () => {
    expect(littleEndian('a30f0000')).toBe(4003n);
  });
});
