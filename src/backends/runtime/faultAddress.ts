// The real address of a fault the kernel reports without one. On x86-64 an access to a
// non-canonical address (bits 63..47 not all equal, e.g. 0xfefefefefefefefe) raises a
// general-protection fault, not a page fault, and Linux delivers SIGSEGV with si_code
// SI_KERNEL (128) and si_addr 0 (measured: fixtures/c/kernel_fault.c, GDB 13). Read as a
// NULL dereference, that is wrong; the address is recovered from the faulting instruction's
// memory operand and the registers, and a pointer full of a known fill byte is named.
//
// Instruction text is as GDB's -data-disassemble gives it: AT&T syntax on x86-64
// ("mov    0x8(%rax),%eax", "mov    %edx,%fs:0x28", "mov    0x2ed6(%rip),%eax        # 0x4010 <counter>"),
// and GNU syntax on AArch64 ("ldr\tw0, [x1, #8]", "ldr\tx0, [x1, x2, lsl #3]").

/** si_code of a signal the kernel raised itself (a general-protection fault, on x86). */
export const SI_KERNEL = 128;

export interface MemoryOperand {
  /** Register names without '%', as the registers map names them. */
  base?: string;
  index?: string;
  scale: number;
  disp: bigint;
  /** x86 segment override (fs, gs), whose base is added. */
  segment?: string;
  /** The effective address, when every register it needs was given. */
  address?: bigint;
}

const MASK64 = (1n << 64n) - 1n;

const X86_32 = new Map<string, string>([
  ['eax', 'rax'],
  ['ebx', 'rbx'],
  ['ecx', 'rcx'],
  ['edx', 'rdx'],
  ['esi', 'rsi'],
  ['edi', 'rdi'],
  ['ebp', 'rbp'],
  ['esp', 'rsp'],
  ['eip', 'rip'],
]);

/** A register's value; 32-bit names read the low half of their 64-bit register. */
function registerValue(name: string, registers: Readonly<Record<string, bigint>>): bigint | undefined {
  const direct = registers[name];
  if (direct !== undefined) return direct;
  const wide = X86_32.get(name) ?? (/^r\d+d$/.test(name) ? name.slice(0, -1) : undefined);
  if (wide !== undefined) {
    const v = registers[wide];
    return v === undefined ? undefined : v & 0xffffffffn;
  }
  // AArch64: wN is the low half of xN; xzr/wzr read as zero.
  if (name === 'xzr' || name === 'wzr') return 0n;
  const w = /^w(\d+)$/.exec(name);
  if (w) {
    const v = registers[`x${w[1]}`];
    return v === undefined ? undefined : v & 0xffffffffn;
  }
  return undefined;
}

function signedNumber(text: string): bigint {
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const value = BigInt(digits.startsWith('0x') ? digits : digits.replace(/^\+/, ''));
  return negative ? -value : value;
}

/** Splits the operand list on commas outside parentheses and brackets. */
function operands(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out.filter((o) => o !== '');
}

/** The operand text after the mnemonic and its prefixes, without GDB's `# 0x… <sym>` note. */
function operandText(instruction: string): { mnemonic: string; rest: string; note?: bigint } {
  const [code = '', comment] = instruction.split(/\s+#\s+/, 2);
  const note = comment ? /^(0x[0-9a-f]+)/i.exec(comment)?.[1] : undefined;
  const words = code.trim().split(/\s+/);
  // x86 prefixes GDB prints as words of their own.
  while (
    words.length > 1 &&
    /^(?:lock|rep|repz|repnz|repe|repne|notrack|bnd|data16|addr32|cs|ds|es|ss|fs|gs)$/.test(words[0] ?? '')
  ) {
    words.shift();
  }
  const mnemonic = words.shift() ?? '';
  return { mnemonic, rest: words.join(' '), ...(note ? { note: BigInt(note) } : {}) };
}

function decodeX86(instruction: string, registers: Readonly<Record<string, bigint>>): MemoryOperand | undefined {
  const { mnemonic, rest, note } = operandText(instruction);
  // lea and nop only compute an address; a direct jump or call names its target, not memory.
  if (/^(?:lea|nop|prefetch)/.test(mnemonic)) return undefined;
  const branch = /^(?:j|call|loop|xbegin)/.test(mnemonic);
  for (const raw of operands(rest.replace(/\s*<[^>]*>/g, ''))) {
    if (branch && !raw.startsWith('*')) continue;
    const op = raw.replace(/^\*/, '');
    if (op.startsWith('$') || /^%[a-z0-9]+$/.test(op)) continue; // an immediate or a register
    // [%seg:]disp(base,index,scale), any part optional; or [%seg:]absolute.
    const m = /^(?:%([a-z]s):)?(-?(?:0x[0-9a-f]+|\d+))?(?:\((%[a-z0-9]+)?(?:,(%[a-z0-9]+)?(?:,(\d))?)?\))?$/i.exec(op);
    if (!m || (m[2] === undefined && m[3] === undefined && m[4] === undefined)) continue;
    const operand: MemoryOperand = {
      scale: m[5] ? Number(m[5]) : 1,
      disp: m[2] ? signedNumber(m[2]) : 0n,
      ...(m[1] ? { segment: m[1] } : {}),
      ...(m[3] ? { base: m[3].slice(1) } : {}),
      ...(m[4] ? { index: m[4].slice(1) } : {}),
    };
    if (operand.base === 'rip' && note !== undefined) {
      // GDB already did the sum, against the address of the next instruction.
      operand.address = note;
      return operand;
    }
    let address = operand.disp;
    const parts: (bigint | undefined)[] = [];
    if (operand.base) parts.push(registerValue(operand.base, registers));
    if (operand.index) {
      const i = registerValue(operand.index, registers);
      parts.push(i === undefined ? undefined : i * BigInt(operand.scale));
    }
    // fs and gs have bases of their own in 64-bit mode; the others are flat.
    if (operand.segment === 'fs' || operand.segment === 'gs') parts.push(registers[`${operand.segment}_base`]);
    if (parts.every((p) => p !== undefined) && operand.base !== 'rip') {
      for (const p of parts) address += p as bigint;
      operand.address = address & MASK64;
    }
    return operand;
  }
  return undefined;
}

function decodeAarch64(instruction: string, registers: Readonly<Record<string, bigint>>): MemoryOperand | undefined {
  const { rest } = operandText(instruction);
  // [base], [base, #imm], [base, #imm]!, [base, index{, lsl|sxtw|uxtw|sxtx #n}], then post-index ", #imm".
  const m =
    /\[(\w+)(?:,\s*#(-?(?:0x[0-9a-f]+|\d+)))?(?:,\s*(\w+)(?:,\s*(lsl|sxtw|uxtw|sxtx)(?:\s*#(\d+))?)?)?\](!)?(?:,\s*#(-?(?:0x[0-9a-f]+|\d+)))?/i.exec(
      rest,
    );
  if (!m?.[1]) return undefined;
  const postIndex = m[7] !== undefined;
  const operand: MemoryOperand = {
    base: m[1],
    scale: m[5] ? 2 ** Number(m[5]) : 1,
    disp: m[2] ? signedNumber(m[2]) : 0n,
    ...(m[3] ? { index: m[3] } : {}),
  };
  const base = registerValue(operand.base as string, registers);
  let index = operand.index === undefined ? 0n : registerValue(operand.index, registers);
  if (base === undefined || index === undefined) return operand;
  if (m[4] === 'sxtw' && index >= 0x80000000n) index -= 0x100000000n;
  // Post-indexed accesses use the base as it is; the offset is added afterwards.
  operand.address = ((postIndex ? base : base + operand.disp) + index * BigInt(operand.scale)) & MASK64;
  return operand;
}

/**
 * The memory operand of an instruction and, when the registers it uses are given, its
 * effective address. `registers` maps GDB's register names (rax, r8, fs_base; x1, sp) to values.
 * undefined when the instruction has no memory operand this decoder knows.
 */
export function decodeMemoryOperand(
  instructionText: string,
  registers: Readonly<Record<string, bigint>>,
  arch: 'x86-64' | 'aarch64' = instructionText.includes('%') ? 'x86-64' : 'aarch64',
): MemoryOperand | undefined {
  return arch === 'x86-64' ? decodeX86(instructionText, registers) : decodeAarch64(instructionText, registers);
}

/**
 * The registers the memory operand of an instruction reads, by the full names a register list
 * has (eax → rax, w1 → x1, an fs: override → fs_base): what to fetch before explaining a fault.
 */
export function operandRegisters(instructionText: string): string[] {
  const operand = decodeMemoryOperand(instructionText, {});
  if (!operand) return [];
  const wide = (name: string): string =>
    X86_32.get(name) ?? (/^r\d+d$/.test(name) ? name.slice(0, -1) : /^w\d+$/.test(name) ? `x${name.slice(1)}` : name);
  const names = [operand.base, operand.index].filter((n): n is string => n !== undefined && n !== 'rip').map(wide);
  if (operand.segment === 'fs' || operand.segment === 'gs') names.push(`${operand.segment}_base`);
  return [...new Set(names.filter((n) => n !== 'xzr' && n !== 'wzr'))];
}

/** x86-64 with 4-level paging (48-bit) or 5-level (57-bit): the top bits all copy the last used one. */
export function isCanonicalAddress(address: bigint, bits: 48 | 57 = 48): boolean {
  const top = (address & MASK64) >> BigInt(bits - 1);
  return top === 0n || top === (1n << BigInt(65 - bits)) - 1n;
}

interface Fill {
  byte?: number;
  word?: bigint;
  says: string;
}

// Who writes which byte, checked against each project's source or by running it here.
const FILLS: Fill[] = [
  {
    byte: 0xfe,
    says:
      "uninitialised memory: GCC's -ftrivial-auto-var-init=pattern fills locals with 0xfe, and glibc's " +
      'MALLOC_PERTURB_=1 fills fresh malloc blocks with it',
  },
  {
    byte: 0xaa,
    says: "uninitialised memory: clang's -ftrivial-auto-var-init=pattern fills locals and pointers with 0xaa",
  },
  {
    byte: 0xbe,
    says:
      'uninitialised heap memory: AddressSanitizer fills fresh malloc blocks with 0xbe (malloc_fill_byte), ' +
      "as does glibc's MALLOC_PERTURB_=65",
  },
  { byte: 0xcd, says: "uninitialised heap memory: the MSVC debug heap's fill for new blocks" },
  { byte: 0xdd, says: "freed heap memory: the MSVC debug heap's fill for freed blocks" },
  { byte: 0xfd, says: "outside a heap block: the MSVC debug heap's guard bytes (no man's land)" },
  { byte: 0xcc, says: 'uninitialised stack memory: MSVC /RTC fills locals with 0xcc' },
  { byte: 0xa5, says: "uninitialised heap memory: jemalloc's junk fill for new blocks (opt.junk)" },
  { byte: 0x5a, says: "freed heap memory: jemalloc's junk fill for freed blocks (opt.junk)" },
  { word: 0xdeadbeefn, says: 'a 0xdeadbeef marker: memory written as "must not be used", often freed memory' },
  {
    word: 0xbaadf00dn,
    says: 'uninitialised heap memory: the Windows debug heap fills new HeapAlloc blocks with 0xbaadf00d',
  },
  { word: 0xfeeefeeen, says: 'freed heap memory: the Windows heap fills freed blocks with 0xfeeefeee' },
  { word: 0xababababn, says: 'past the end of a Windows heap block: HeapAlloc guard bytes' },
];

/** The pointer a fill turns into, at 64 and 32 bits. */
function fillValues(fill: Fill): bigint[] {
  if (fill.byte !== undefined) {
    const b = BigInt(fill.byte);
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 8n) | b;
    return [v, v & 0xffffffffn];
  }
  const w = fill.word as bigint;
  return [(w << 32n) | w, w];
}

/**
 * Names the well-known fill pattern `address` is made of, allowing a field offset of up to
 * ±64 KiB (`p->field` through a filled pointer); undefined for anything else. Only a value
 * made of the fill throughout is named: 0x0000555555555555 is a real address, not a pattern.
 */
export function namePattern(address: bigint): string | undefined {
  const a = address & MASK64;
  for (const fill of FILLS) {
    for (const value of fillValues(fill)) {
      const offset = a - value;
      if (offset > -0x10000n && offset < 0x10000n) {
        const shown =
          offset === 0n ? '' : ` ${offset > 0n ? '+' : '-'} 0x${(offset < 0n ? -offset : offset).toString(16)}`;
        return `0x${value.toString(16)}${shown} is ${fill.says}`;
      }
    }
  }
  return undefined;
}

const ALIGNED_MOVES = /^v?mov(?:aps|apd|dqa(?:32|64)?|nt(?:dq|dqa|ps|pd))$/;

export interface KernelFaultExplanation {
  /** The address the instruction accessed. */
  address: bigint;
  /** The register the address was built on, and its value (the bad pointer). */
  pointer?: { register: string; value: bigint };
  canonical: boolean;
  /** The fill pattern the pointer is made of, in words. */
  pattern?: string;
  /** One sentence for the hint. */
  text: string;
}

/**
 * For a SIGSEGV with si_code SI_KERNEL: what the faulting instruction really accessed. undefined
 * when the instruction has no memory operand or its registers are missing (then the hint says
 * only that the kernel did not report the address, never "NULL pointer").
 */
export function explainKernelFault(
  instructionText: string,
  registers: Readonly<Record<string, bigint>>,
): KernelFaultExplanation | undefined {
  const operand = decodeMemoryOperand(instructionText, registers);
  if (operand?.address === undefined) return undefined;
  const baseValue = operand.base === undefined ? undefined : registerValue(operand.base, registers);
  const pointer =
    operand.base !== undefined && baseValue !== undefined ? { register: operand.base, value: baseValue } : undefined;
  const canonical = isCanonicalAddress(operand.address);
  const pattern = namePattern(pointer?.value ?? operand.address) ?? namePattern(operand.address);
  const hex = (v: bigint): string => `0x${v.toString(16)}`;
  const through = pointer ? ` through ${pointer.register} = ${hex(pointer.value)}` : '';
  // The other common general-protection fault at a canonical address: an aligned SSE/AVX move
  // (movaps, movdqa…) to an address that is not aligned to its vector's size.
  const { mnemonic } = operandText(instructionText);
  const vector = /%zmm/.test(instructionText) ? 64n : /%ymm/.test(instructionText) ? 32n : 16n;
  const misaligned = canonical && ALIGNED_MOVES.test(mnemonic) && operand.address % vector !== 0n;
  const why = misaligned
    ? `a general-protection fault: ${mnemonic} needs a ${vector}-byte aligned address`
    : canonical
      ? 'a general-protection fault (the kernel does not report the address)'
      : 'a non-canonical address, so the CPU raised a general-protection fault and the kernel reported no address';
  return {
    address: operand.address,
    ...(pointer ? { pointer } : {}),
    canonical,
    ...(pattern ? { pattern } : {}),
    text: `bad pointer: the access to ${hex(operand.address)}${through} hit ${why}${pattern ? `; ${pattern}` : ''}`,
  };
}
