// Working out the value a stop is about, on recorded stops: the faulting instruction's memory
// operand walked back to the load of the bad pointer; the expressions of a source line; the
// operands of a failed assert's condition. Each rule has a case that fails without it.
import { describe, expect, it } from 'vitest';
import {
  evaluateAddress,
  faultingPointerSource,
  fullRegister,
  parseInstruction,
  registersWritten,
} from '../../../src/session/origin/loadChain.js';
import { assertCondition, candidateExpressions, conditionOperands } from '../../../src/session/origin/subject.js';

// fixtures/c/origin_cleared.c's lookup(), as GDB 13 disassembles it (-O0), faulting at +19.
const LOOKUP = [
  'push   %rbp',
  'mov    %rsp,%rbp',
  'mov    %rdi,-0x8(%rbp)',
  'mov    %esi,-0xc(%rbp)',
  'mov    -0x8(%rbp),%rax',
  'mov    0x8(%rax),%rax',
  'mov    0x4(%rax),%edx',
];

/** Reads at the recorded stop: rbp, and the spilled `s` at rbp-8. */
const reads = {
  register: async (name: string) => (name === 'rbp' ? 0x7fffffffe0d0n : undefined),
  memory: async (address: bigint, size: number) =>
    address === 0x7fffffffe0c8n && size === 8 ? 0x5555555592a0n : undefined,
};

describe('the faulting pointer, from the machine code', () => {
  it('walks back from the faulting operand to the load of the pointer and where it was read from', async () => {
    const source = faultingPointerSource(LOOKUP, LOOKUP.length - 1);
    expect(source).toMatchObject({ register: 'rax', size: 8 });
    // s (read from rbp-8) + 8: &s->cache.
    if (!source) throw new Error('no source');
    expect(await evaluateAddress(source.address, reads)).toBe(0x5555555592a8n);
  });

  it('uses a register as it is at the stop only when nothing wrote it since', async () => {
    // Without the spill reload, rax at the stop is the loaded pointer itself, not s: the walk
    // must go back through the write to rax, not read rax now.
    const source = faultingPointerSource(LOOKUP, LOOKUP.length - 1);
    expect(source?.address.base).toMatchObject({ kind: 'load', size: 8 });
  });

  it('follows a register copy, to a register nothing wrote since', async () => {
    const code = ['mov    -0x8(%rbp),%rdx', 'mov    %rdx,%rax', 'mov    0x10(%rax),%rax', 'mov    (%rax),%eax'];
    const source = faultingPointerSource(code, 3);
    expect(source?.address.disp).toBe(0x10n);
    // rdx still holds what rax was copied from.
    expect(source?.address.base).toEqual({ kind: 'register', register: 'rdx' });
    // Once rdx is written after the copy, the walk goes back to the load instead.
    const clobbered = [...code.slice(0, 2), 'mov    $0x0,%edx', ...code.slice(2)];
    expect(faultingPointerSource(clobbered, 4)?.address.base).toMatchObject({
      kind: 'load',
      address: { disp: -8n, base: { kind: 'register', register: 'rbp' } },
    });
  });

  it('gives up on a pointer that was not loaded from memory (an argument still in its register)', () => {
    expect(faultingPointerSource(['push   %rbp', 'mov    (%rdi),%eax'], 1)).toBeUndefined();
  });

  it('gives up when the pointer came from arithmetic', () => {
    expect(
      faultingPointerSource(['mov    -0x8(%rbp),%rax', 'add    $0x8,%rax', 'mov    (%rax),%eax'], 2),
    ).toBeUndefined();
  });

  it('counts a call as writing the caller-saved registers', () => {
    expect(registersWritten(parseInstruction('call   0x1030 <malloc@plt>'))).toContain('rax');
    const code = ['mov    -0x8(%rbp),%rax', 'call   0x1030 <f>', 'mov    (%rax),%eax'];
    // rax after the call is the call's result, not the load: nothing to follow.
    expect(faultingPointerSource(code, 2)).toBeUndefined();
  });

  it('names 32-, 16- and 8-bit registers by their 64-bit register', () => {
    expect(['eax', 'ax', 'al', 'r8d', 'r9b', 'rbx', 'sil'].map(fullRegister)).toEqual([
      'rax',
      'rax',
      'rax',
      'r8',
      'r9',
      'rbx',
      'rsi',
    ]);
  });
});

describe('the program’s words for a value', () => {
  it('lists the postfix expressions of a line with their prefixes, longest first', () => {
    expect(candidateExpressions('  return s->cache->size + key; /* @crash */')).toEqual([
      's->cache->size',
      's->cache',
      'key',
      's',
    ]);
  });

  it('leaves out calls, keywords and macro constants, and keeps subscripts', () => {
    const got = candidateExpressions('  if (t->slots[i].id == GUARD) memcpy(dst, src, n);');
    expect(got).toContain('t->slots[i].id');
    expect(got).toContain('t->slots[i]');
    expect(got).not.toContain('memcpy');
    expect(got).not.toContain('GUARD');
    expect(got).not.toContain('if');
  });

  it('reads the condition of an assert from its line or from its message', () => {
    expect(assertCondition('  assert(t->guard == GUARD); /* @crash */')).toBe('t->guard == GUARD');
    expect(assertCondition("prog: x.c:9: check: Assertion `t->guard == 0x600d' failed.")).toBe('t->guard == 0x600d');
    expect(assertCondition('  return 0;')).toBeUndefined();
  });

  it('splits a condition into its operands, numbers and negations aside', () => {
    expect(conditionOperands('t->guard == 0x600d && (n < 4)')).toEqual(['t->guard', 'n']);
    expect(conditionOperands('!u->display')).toEqual(['u->display']);
    expect(conditionOperands('p->next->prev != p')).toEqual(['p->next->prev', 'p']);
  });
});
