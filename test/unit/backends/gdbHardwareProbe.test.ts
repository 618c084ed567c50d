// The hardware probe's reading of the loader's entry, on instructions recorded from real GDBs:
// x86-64 glibc 2.36 (GDB 13, this VM), AArch64 glibc 2.36 (gdb-multiarch under qemu-aarch64),
// and musl's x86-64 entry (its source: sp is realigned before the call).
import { describe, expect, it } from 'vitest';
import {
  aarch64LinkSlot,
  cpuHasAmx,
  judgeInferiorCall,
  judgeReverseRun,
  planProbe,
} from '../../../src/backends/gdb/gdbHardwareProbe.js';
import type { Instruction } from '../../../src/model/model.js';

const insns = (...rows: [string, string][]): Instruction[] =>
  rows.map(([address, instruction]) => ({ address, instruction }));

const glibcX86 = insns(
  ['0x00007ffff7fe4b70', 'mov    %rsp,%rdi'],
  ['0x00007ffff7fe4b73', 'call   0x7ffff7fe5770 <_dl_start>'],
  ['0x00007ffff7fe4b78', 'mov    %rax,%r12'],
  ['0x00007ffff7fe4b7b', 'mov    (%rsp),%rdx'],
);

const glibcAarch64 = insns(
  ['0x000000550283cc40', 'nop'],
  ['0x000000550283cc44', 'mov\tx29, #0x0                   \t// #0'],
  ['0x000000550283cc48', 'mov\tx30, #0x0                   \t// #0'],
  ['0x000000550283cc4c', 'mov\tx0, sp'],
  ['0x000000550283cc50', 'bl\t0x5502838700'],
  ['0x000000550283cc54', 'mov\tx21, x0'],
  ['0x000000550283cc58', 'ldr\tx1, [sp]'],
);

describe('planProbe', () => {
  it('finds the call into _dl_start on x86-64 and the two instructions after it', () => {
    expect(planProbe(glibcX86)).toEqual({
      arch: 'x86',
      call: 0x7ffff7fe4b73n,
      target: 0x7ffff7fe5770n,
      returnAddress: 0x7ffff7fe4b78n,
      sentinel: 0x7ffff7fe4b7bn,
    });
  });

  it('finds the bl on AArch64', () => {
    expect(planProbe(glibcAarch64)).toEqual({
      arch: 'aarch64',
      call: 0x550283cc50n,
      target: 0x5502838700n,
      returnAddress: 0x550283cc54n,
      sentinel: 0x550283cc58n,
    });
  });

  it("reads musl's entry, where the call comes after sp is realigned", () => {
    const musl = insns(
      ['0x7ffff7f4a0b5', 'xor    %rbp,%rbp'],
      ['0x7ffff7f4a0b8', 'mov    %rsp,%rdi'],
      ['0x7ffff7f4a0bb', 'lea    -0x3c5a2(%rip),%rsi        # 0x7ffff7f0db20'],
      ['0x7ffff7f4a0c2', 'and    $0xfffffffffffffff0,%rsp'],
      ['0x7ffff7f4a0c6', 'call   0x7ffff7f4a0d0 <_dlstart_c>'],
      ['0x7ffff7f4a0cb', 'nop'],
      ['0x7ffff7f4a0cc', 'nop'],
    );
    expect(planProbe(musl)).toMatchObject({ arch: 'x86', call: 0x7ffff7f4a0c6n, returnAddress: 0x7ffff7f4a0cbn });
  });

  it('gives a reason, not a plan, when no call is there or the return lands on a branch', () => {
    expect(planProbe(glibcX86.slice(2))).toMatch(/no call among the first 2 instructions/);
    expect(planProbe(glibcX86.slice(0, 3))).toMatch(/not followed by two readable instructions/);
    const jumpAfter = insns(['0x1000', 'call   0x2000 <f>'], ['0x1005', 'jmp    *%r12'], ['0x1008', 'hlt']);
    expect(planProbe(jumpAfter)).toMatch(/is a branch \(jmp/);
  });
});

describe('aarch64LinkSlot', () => {
  const sp = 0x5502821770n;

  it("reads glibc 2.36's _dl_start prologue: x30 lands 8 bytes above the new sp", () => {
    const prologue = insns(['0x5502838700', 'stp\tx29, x30, [sp, #-224]!'], ['0x5502838704', 'adrp\tx4, 0x5502861000']);
    // Checked under QEMU: a software watchpoint on this address fires at 0x5502838704.
    expect(aarch64LinkSlot(prologue, sp)).toBe(0x5502821698n);
  });

  it('skips pointer-authentication and BTI landing pads', () => {
    const prologue = insns(['0x0', 'paciasp'], ['0x4', 'bti\tc'], ['0x8', 'stp\tx29, x30, [sp, #-32]!']);
    expect(aarch64LinkSlot(prologue, sp)).toBe(sp - 32n + 8n);
  });

  it('reads a frame made by sub then stp at an offset, and a lone str of x30', () => {
    const sub = insns(['0x0', 'sub\tsp, sp, #0x40'], ['0x4', 'stp\tx29, x30, [sp, #48]']);
    expect(aarch64LinkSlot(sub, sp)).toBe(sp - 0x40n + 48n + 8n);
    const str = insns(['0x0', 'str\tx30, [sp, #-16]!']);
    expect(aarch64LinkSlot(str, sp)).toBe(sp - 16n);
  });

  it('says nothing for a prologue it does not know (a leaf, or other code)', () => {
    expect(aarch64LinkSlot(insns(['0x0', 'mov\tx1, x0'], ['0x4', 'ret']), sp)).toBeUndefined();
  });
});

describe('inferior calls', () => {
  it('recognises AMX in /proc/cpuinfo flags only', () => {
    expect(cpuHasAmx('processor\t: 0\nflags\t\t: fpu avx512f amx_bf16 amx_tile amx_int8\n')).toBe(true);
    // This VM: AVX-512 but no AMX.
    expect(cpuHasAmx('flags\t\t: fpu xsave avx512f avx512_bf16\nbugs\t\t: amx_tile\n')).toBe(false);
  });

  it('calls the extended-state failure broken, a number work, anything else unknown', () => {
    expect(judgeInferiorCall({ value: '4242' }, false).inferiorCalls).toBe('work');
    const broken = judgeInferiorCall({ error: "Couldn't write extended state status: Bad address." }, true);
    expect(broken.inferiorCalls).toBe('broken');
    expect(broken.detail).toMatch(/AMX/);
    expect(judgeInferiorCall({ error: 'No symbol "getpid" in current context.' }, false).inferiorCalls).toBe('unknown');
    expect(judgeInferiorCall({ value: '<error>' }, false).inferiorCalls).toBe('unknown');
  });
});

describe('reverse execution', () => {
  it('calls a run back to the start of the history work, the extended-state error broken, a silence unknown', () => {
    expect(judgeReverseRun({ stop: { reason: 'no-history' } }, false).reverse).toBe('work');
    const amx = judgeReverseRun({ error: "Couldn't write extended state status: Bad address." }, true);
    expect(amx.reverse).toBe('broken');
    expect(amx.detail).toMatch(
      /cannot run backwards: .*vector register.*\(AMX: amx_tile in \/proc\/cpuinfo\) \("Couldn't write extended state status: Bad address\."\)/,
    );
    // Any other error of the reverse run is as broken, in GDB's words.
    expect(judgeReverseRun({ error: 'Target does not support this operation.' }, false)).toMatchObject({
      reverse: 'broken',
      detail: /failed: "Target does not support this operation\."/,
    });
    expect(judgeReverseRun({ stop: { reason: 'signal-received' } }, false).reverse).toBe('unknown');
    expect(judgeReverseRun({ none: 'no stop within 10000 ms' }, false)).toMatchObject({
      reverse: 'unknown',
      detail: /no stop within 10000 ms/,
    });
  });
});
