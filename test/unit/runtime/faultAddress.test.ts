// Decoding the faulting instruction's memory operand, and naming fill patterns. Instruction texts
// are as GDB 13 disassembles them (x86-64 AT&T; AArch64 GNU syntax from gdb-multiarch).
import { describe, expect, it } from 'vitest';
import {
  decodeMemoryOperand,
  explainKernelFault,
  isCanonicalAddress,
  namePattern,
  operandRegisters,
  SI_KERNEL,
} from '../../../src/backends/runtime/faultAddress.js';

const FILL = 0xfefefefefefefefen;

describe('decodeMemoryOperand on x86-64', () => {
  const regs = {
    rax: FILL,
    rbx: 0x1000n,
    rcx: 3n,
    rbp: 0x7fffffffe3a0n,
    rsp: 0x7fffffffe380n,
    fs_base: 0x7ffff7d8a740n,
  };

  it("reads kernel_fault.c's load: base plus displacement", () => {
    expect(decodeMemoryOperand('mov    0x8(%rax),%eax', regs)).toEqual({
      base: 'rax',
      scale: 1,
      disp: 8n,
      address: 0xfefefefefefeff06n,
    });
  });

  it('finds the memory operand on either side, with negative displacements', () => {
    expect(decodeMemoryOperand('mov    %edx,-0x14(%rbp)', regs)?.address).toBe(0x7fffffffe38cn);
    expect(decodeMemoryOperand('mov    (%rax),%edx', regs)).toMatchObject({ base: 'rax', disp: 0n, address: FILL });
  });

  it('adds index times scale, with or without a base', () => {
    expect(decodeMemoryOperand('mov    0x10(%rbx,%rcx,8),%rdx', regs)?.address).toBe(0x1000n + 0x10n + 24n);
    expect(decodeMemoryOperand('mov    0x601040(,%rcx,4),%eax', regs)).toMatchObject({
      index: 'rcx',
      scale: 4,
      address: 0x601040n + 12n,
    });
  });

  it("takes rip-relative addresses from GDB's own note, and fs: from fs_base", () => {
    expect(decodeMemoryOperand('mov    0x2ed6(%rip),%eax        # 0x555555558010 <counter>', regs)?.address).toBe(
      0x555555558010n,
    );
    expect(decodeMemoryOperand('mov    %fs:0x28,%rax', regs)).toMatchObject({
      segment: 'fs',
      disp: 0x28n,
      address: 0x7ffff7d8a768n,
    });
  });

  it('reads 32-bit registers as the low half, through prefixes and indirect calls', () => {
    expect(decodeMemoryOperand('mov    (%eax),%edx', { rax: 0xffffffff00001000n })?.address).toBe(0x1000n);
    expect(decodeMemoryOperand('lock cmpxchg %ecx,(%rdx)', { rdx: 0x2000n })?.address).toBe(0x2000n);
    expect(decodeMemoryOperand('call   *0x18(%rax)', regs)?.address).toBe(FILL + 0x18n);
    expect(decodeMemoryOperand('rep stos %rax,%es:(%rdi)', { rdi: 0x3000n })?.address).toBe(0x3000n);
  });

  it('has no memory operand for registers, immediates, lea, nop and direct branches', () => {
    expect(decodeMemoryOperand('mov    %rsp,%rdi', regs)).toBeUndefined();
    expect(decodeMemoryOperand('mov    $0x0,%eax', regs)).toBeUndefined();
    expect(decodeMemoryOperand('lea    0x8(%rax),%rdx', regs)).toBeUndefined();
    expect(decodeMemoryOperand('nopw   0x0(%rax,%rax,1)', regs)).toBeUndefined();
    expect(decodeMemoryOperand('call   0x7ffff7fe5770 <_dl_start>', regs)).toBeUndefined();
    expect(decodeMemoryOperand('jmp    *%rax', regs)).toBeUndefined();
  });

  it('gives the operand without an address when a register is missing', () => {
    expect(decodeMemoryOperand('mov    0x8(%r12),%eax', regs)).toEqual({ base: 'r12', scale: 1, disp: 8n });
  });
});

describe('decodeMemoryOperand on AArch64', () => {
  const regs = { x1: 0x4000n, x2: 5n, sp: 0x7ffffff0n, x3: 0xfffffffffffffffen };

  it('reads base, immediate, register and extended-register forms', () => {
    expect(decodeMemoryOperand('ldr\tw0, [x1, #8]', regs)?.address).toBe(0x4008n);
    expect(decodeMemoryOperand('ldr\tx0, [x1]', regs)?.address).toBe(0x4000n);
    expect(decodeMemoryOperand('ldr\tx0, [x1, x2, lsl #3]', regs)?.address).toBe(0x4000n + 40n);
    expect(decodeMemoryOperand('ldr\tw0, [x1, w3, sxtw #2]', regs)?.address).toBe(0x4000n - 8n);
    expect(decodeMemoryOperand('ldrb\tw0, [x1, x2]', regs)?.address).toBe(0x4005n);
  });

  it('reads pre- and post-indexed forms, and pairs', () => {
    expect(decodeMemoryOperand('stp\tx29, x30, [sp, #-224]!', regs)?.address).toBe(0x7ffffff0n - 224n);
    expect(decodeMemoryOperand('ldr\tx0, [x1], #16', regs)?.address).toBe(0x4000n);
    expect(decodeMemoryOperand('ldp\tx19, x20, [sp, #16]', regs)?.address).toBe(0x80000000n);
  });

  it('has no memory operand for register moves', () => {
    expect(decodeMemoryOperand('mov\tx0, sp', regs)).toBeUndefined();
  });
});

describe('isCanonicalAddress', () => {
  it('tells 48-bit canonical addresses from the rest', () => {
    expect(isCanonicalAddress(0x00007fffffffe000n)).toBe(true);
    expect(isCanonicalAddress(0xffff800000000000n)).toBe(true);
    expect(isCanonicalAddress(0n)).toBe(true);
    expect(isCanonicalAddress(FILL)).toBe(false);
    expect(isCanonicalAddress(0x0000800000000000n)).toBe(false);
    expect(isCanonicalAddress(0x00ff800000000000n, 57)).toBe(true);
  });
});

describe('namePattern', () => {
  it.each([
    [0xfefefefefefefefen, /GCC's -ftrivial-auto-var-init=pattern .* MALLOC_PERTURB_=1/],
    [0xaaaaaaaaaaaaaaaan, /clang's -ftrivial-auto-var-init=pattern/],
    [0xbebebebebebebeben, /AddressSanitizer fills fresh malloc blocks/],
    [0xcdcdcdcdcdcdcdcdn, /^0xcdcdcdcdcdcdcdcd is uninitialised heap memory: the MSVC debug heap/],
    [0xddddddddn, /^0xdddddddd is freed heap memory/],
    [0xdeadbeefn, /0xdeadbeef marker/],
    [0xdeadbeefdeadbeefn, /0xdeadbeef marker/],
    [0xa5a5a5a5a5a5a5a5n, /jemalloc/],
    [0xfeeefeeefeeefeeen, /freed heap memory: the Windows heap/],
  ])('names %s', (value, says) => {
    expect(namePattern(value)).toMatch(says);
  });

  it('names a fill reached through a field offset, with the offset', () => {
    expect(namePattern(0xfefefefefefeff06n)).toMatch(/^0xfefefefefefefefe \+ 0x8 is uninitialised memory/);
    expect(namePattern(0xbebebebebebebeb6n)).toMatch(/^0xbebebebebebebebe - 0x8 is/);
  });

  it('names nothing that is only partly a pattern, or an ordinary address', () => {
    expect(namePattern(0x0000555555555555n)).toBeUndefined();
    expect(namePattern(0x00007fffffffe3a0n)).toBeUndefined();
    expect(namePattern(0n)).toBeUndefined();
    expect(namePattern(0xfefefefe00000000n)).toBeUndefined();
  });
});

describe('explainKernelFault', () => {
  it('recovers the pointer of kernel_fault.c and says what it is, not "NULL"', () => {
    expect(SI_KERNEL).toBe(128);
    const e = explainKernelFault('mov    0x8(%rax),%eax', { rax: FILL, rip: 0x555555555155n });
    expect(e).toMatchObject({
      address: 0xfefefefefefeff06n,
      pointer: { register: 'rax', value: FILL },
      canonical: false,
    });
    expect(e?.text).toBe(
      "bad pointer: the access to 0xfefefefefefeff06 through rax = 0xfefefefefefefefe hit a non-canonical address, so the CPU raised a general-protection fault and the kernel reported no address; 0xfefefefefefefefe is uninitialised memory: GCC's -ftrivial-auto-var-init=pattern fills locals with 0xfe, and glibc's MALLOC_PERTURB_=1 fills fresh malloc blocks with it",
    );
    expect(e?.text).not.toMatch(/NULL/);
  });

  it('says nothing it cannot back: no memory operand, or a register missing', () => {
    expect(explainKernelFault('hlt', {})).toBeUndefined();
    expect(explainKernelFault('mov    0x8(%rax),%eax', {})).toBeUndefined();
  });
});

describe('explainKernelFault at a canonical address', () => {
  it('names a misaligned aligned-move, the other general-protection fault user code meets', () => {
    const e = explainKernelFault('movaps %xmm0,0x8(%rax)', { rax: 0x5555555592a0n });
    expect(e?.canonical).toBe(true);
    expect(e?.text).toMatch(/movaps needs a 16-byte aligned address/);
    const aligned = explainKernelFault('movaps %xmm0,0x10(%rax)', { rax: 0x5555555592a0n });
    expect(aligned?.text).toMatch(/the kernel does not report the address/);
  });
});

describe('operandRegisters', () => {
  it('names the registers to fetch by the names the register list has', () => {
    expect(operandRegisters('mov    0x8(%rax),%eax')).toEqual(['rax']);
    expect(operandRegisters('mov    (%rdi,%rcx,4),%edx')).toEqual(['rdi', 'rcx']);
    // 32-bit addressing reads the low half of the 64-bit register.
    expect(operandRegisters('mov    0x10(%esi,%r9d,2),%eax')).toEqual(['rsi', 'r9']);
    expect(operandRegisters('mov    %edx,%fs:0x28')).toEqual(['fs_base']);
    expect(operandRegisters('ldr\tw0, [x1, w2, sxtw #2]')).toEqual(['x1', 'x2']);
  });

  it('needs none for rip-relative or absolute operands, nor for instructions without memory', () => {
    expect(operandRegisters('mov    0x2ed6(%rip),%eax        # 0x4010 <counter>')).toEqual([]);
    expect(operandRegisters('mov    %rax,%rbx')).toEqual([]);
    expect(operandRegisters('ret')).toEqual([]);
  });
});
