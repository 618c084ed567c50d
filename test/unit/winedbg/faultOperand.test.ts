// Read, write or execute, and the address, inferred from the faulting instruction as GDB prints
// it (x/i $pc), for the access violations winedbg's proxy reports as a bare SIGSEGV.
import { describe, expect, it } from 'vitest';
import { inferFault } from '../../../src/backends/winedbg/faultOperand.js';
import { checkProgram, prefixRuns32Bit } from '../../../src/backends/winedbg/programCheck.js';

describe('inferFault', () => {
  it('the fixtures’ faults, as GDB 13 printed them through the proxy', () => {
    expect(inferFault('=> 0x140001596 <store+18>:\tmov    %edx,(%rax)')).toEqual({
      access: 'write',
      address: '$rax',
      operand: '(%rax)',
    });
    expect(inferFault('=> 0x1400015d4 <load+12>:\tmov    (%rax),%eax')).toEqual({
      access: 'read',
      address: '$rax',
      operand: '(%rax)',
    });
    expect(inferFault('=> 0x20:\tCannot access memory at address 0x20')).toEqual({ access: 'execute', address: '$pc' });
  });

  it('displacement, index and scale become a register expression', () => {
    expect(inferFault('=> 0x1 <f+1>:\tmovl   $0x1,0x8(%rax)')).toMatchObject({ access: 'write', address: '$rax+0x8' });
    expect(inferFault('=> 0x1 <f+1>:\tmov    -0x18(%rbp,%rcx,4),%edx')).toMatchObject({
      access: 'read',
      address: '$rbp+$rcx*4-0x18',
    });
    expect(inferFault('=> 0x1 <f+1>:\tmov    %eax,(,%rbx,8)')).toMatchObject({ access: 'write', address: '$rbx*8' });
    expect(inferFault('=> 0x1 <f+1>:\tmov    0x601040,%eax')).toMatchObject({ access: 'read', address: '0x601040' });
  });

  it('read-modify-write and read-only instructions read first; pop to memory writes', () => {
    expect(inferFault('=> 0x1 <f+1>:\taddl   $0x1,(%rax)')?.access).toBe('read');
    expect(inferFault('=> 0x1 <f+1>:\tlock xadd %eax,(%rdx)')?.access).toBe('read');
    expect(inferFault('=> 0x1 <f+1>:\tcmpl   $0x0,0x10(%rbx)')?.access).toBe('read');
    expect(inferFault('=> 0x1 <f+1>:\tincl   (%rax)')?.access).toBe('read');
    expect(inferFault('=> 0x1 <f+1>:\tpop    (%rax)')?.access).toBe('write');
  });

  it('a call or jump through memory reads the pointer', () => {
    expect(inferFault('=> 0x1 <f+1>:\tcall   *0x8(%rax)')).toMatchObject({ access: 'read', address: '$rax+0x8' });
  });

  it('flat segments are ignored, fs/gs-relative (the TEB) and rip-relative give no address', () => {
    expect(inferFault('=> 0x1 <f+1>:\trep stos %rax,%es:(%rdi)')).toMatchObject({ access: 'write', address: '$rdi' });
    expect(inferFault('=> 0x1 <f+1>:\tmov    %gs:0x30,%rax')).toEqual({ access: 'read', operand: '%gs:0x30' });
    expect(inferFault('=> 0x1 <f+1>:\tmov    0x2f(%rip),%eax')).toEqual({ access: 'read', operand: '0x2f(%rip)' });
  });

  it('says nothing when there is no memory operand, or two of them', () => {
    expect(inferFault('=> 0x1 <f+1>:\tmov    %eax,%ebx')).toBeUndefined();
    expect(inferFault('=> 0x1 <f+1>:\tmovsb  %ds:(%rsi),%es:(%rdi)')).toBeUndefined();
    expect(inferFault('=> 0x140001592 <divide+14>:\tcall   0x140007c68 <memset>')).toBeUndefined();
    expect(inferFault('garbage')).toBeUndefined();
  });
});

describe('checkProgram', () => {
  it('a prefix without syswow64 DLLs cannot run 32-bit programs', () => {
    expect(prefixRuns32Bit('/nonexistent-prefix')).toBe(false);
  });

  it('refuses what is not a PE file with invalid_argument', () => {
    expect(() => checkProgram('/bin/sh', '/nonexistent-prefix')).toThrow(/not a Windows executable: no MZ header/);
  });
});
