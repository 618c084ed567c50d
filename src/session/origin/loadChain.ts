// The value a fault is about, from the machine code: the faulting instruction's memory operand
// names a base register; walking back through the function's instructions finds the load that
// put the bad pointer there, and where that load read it from (a field of a struct reached
// through a spilled local, …). The result is a recipe in registers and memory reads that the
// origin search evaluates at the stop (registers as they are there, memory as it is there), so
// that the address of the memory that held the bad pointer is known without running anything.
//
// Instruction text is AT&T x86-64 as the debugger disassembles it ("mov    0x8(%rax),%rax").
// Straight-line only: the walk does not follow branches, which at -O0 within one statement
// (where a faulting dereference's operand is computed) do not occur. Anything it does not
// understand ends the walk with `undefined`, never a guess.

/** A register's value at the stop, or a value read from memory at the stop. */
export type ValueSource =
  | { kind: 'register'; register: string }
  | { kind: 'load'; address: AddressSource; size: number }
  | { kind: 'address'; address: AddressSource };

export interface AddressSource {
  base?: ValueSource;
  index?: ValueSource;
  scale: number;
  disp: bigint;
  /** An absolute address (a rip-relative operand the disassembler already summed). */
  absolute?: bigint;
}

export interface ParsedInstruction {
  mnemonic: string;
  operands: string[];
  /** The absolute address in the disassembler's `# 0x… <sym>` note. */
  note?: bigint;
}

export interface MemoryOperand {
  base?: string;
  index?: string;
  scale: number;
  disp: bigint;
}

const PREFIXES = /^(?:lock|rep|repz|repnz|repe|repne|notrack|bnd|data16|addr32)$/;

export function parseInstruction(text: string): ParsedInstruction {
  const [code = '', comment] = text.split(/\s+#\s+/, 2);
  const note = comment ? /^(0x[0-9a-f]+)/i.exec(comment)?.[1] : undefined;
  const words = code.trim().split(/\s+/);
  while (words.length > 1 && PREFIXES.test(words[0] ?? '')) words.shift();
  const mnemonic = words.shift() ?? '';
  const rest = words.join(' ').replace(/\s*<[^>]*>/g, '');
  const operands: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      operands.push(rest.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (rest.trim() !== '') operands.push(rest.slice(start).trim());
  return { mnemonic, operands, ...(note ? { note: BigInt(note) } : {}) };
}

function signed(text: string): bigint {
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const v = BigInt(digits);
  return negative ? -v : v;
}

/** disp(base,index,scale) with any part optional; undefined for a register or an immediate. */
export function memoryOperand(operand: string): MemoryOperand | undefined {
  const op = operand.replace(/^\*/, '');
  if (op.startsWith('$') || /^%[a-z0-9]+$/.test(op) || op.includes(':')) return undefined;
  const m = /^(-?(?:0x[0-9a-f]+|\d+))?(?:\((%[a-z0-9]+)?(?:,(%[a-z0-9]+)?(?:,(\d))?)?\))?$/i.exec(op);
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return undefined;
  return {
    scale: m[4] ? Number(m[4]) : 1,
    disp: m[1] ? signed(m[1]) : 0n,
    ...(m[2] ? { base: fullRegister(m[2].slice(1)) } : {}),
    ...(m[3] ? { index: fullRegister(m[3].slice(1)) } : {}),
  };
}

const LEGACY: Record<string, string> = {
  ax: 'rax',
  bx: 'rbx',
  cx: 'rcx',
  dx: 'rdx',
  si: 'rsi',
  di: 'rdi',
  bp: 'rbp',
  sp: 'rsp',
  ip: 'rip',
};

/** The 64-bit register a name is part of: eax, ax, al → rax; r8d → r8. */
export function fullRegister(name: string): string {
  const n = name.replace(/^%/, '');
  if (/^r\d+[dwb]?$/.test(n)) return n.replace(/[dwb]$/, '');
  if (/^r[a-z]{2}$/.test(n)) return n;
  if (/^e[a-z]{2}$/.test(n)) return LEGACY[n.slice(1)] ?? n;
  if (LEGACY[n]) return LEGACY[n];
  const low = /^([abcd])[lh]$/.exec(n);
  if (low) return `r${low[1]}x`;
  const low8 = /^(si|di|bp|sp)l$/.exec(n);
  if (low8?.[1]) return LEGACY[low8[1]] ?? n;
  return n;
}

function registerWidth(name: string): number {
  const n = name.replace(/^%/, '');
  if (/^r\d+d$/.test(n) || /^e[a-z]{2}$/.test(n)) return 4;
  if (/^r\d+w$/.test(n) || /^[a-d]x$|^[sd]i$|^[bs]p$/.test(n)) return 2;
  if (/^r\d+b$/.test(n) || /^[a-d][lh]$|^(si|di|bp|sp)l$/.test(n)) return 1;
  return 8;
}

const CALLER_SAVED = ['rax', 'rcx', 'rdx', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11'];

/** The registers an instruction writes (conservatively: more rather than fewer). */
export function registersWritten(ins: ParsedInstruction): string[] {
  const m = ins.mnemonic;
  if (/^call/.test(m)) return [...CALLER_SAVED, 'rsp'];
  if (/^(?:cmp|test|j|nop|endbr|bt$|ucomis|comis)/.test(m)) return [];
  if (/^(?:push|ret|leave)/.test(m)) return m.startsWith('leave') ? ['rsp', 'rbp'] : ['rsp'];
  if (/^(?:cltq|cdqe|cwtl)$/.test(m)) return ['rax'];
  if (/^(?:cqto|cqo|cltd|cdq)$/.test(m)) return ['rdx'];
  if (/^(?:i?mul|i?div)/.test(m) && ins.operands.length === 1) return ['rax', 'rdx'];
  const out: string[] = [];
  if (m.startsWith('pop')) out.push('rsp');
  if (m.startsWith('xchg') || m.startsWith('xadd')) {
    for (const o of ins.operands) if (/^%[a-z0-9]+$/.test(o)) out.push(fullRegister(o));
  }
  const last = ins.operands[ins.operands.length - 1];
  if (last && /^%[a-z0-9]+$/.test(last)) out.push(fullRegister(last));
  return out;
}

/** A load's size in bytes: from a zero/sign-extending mnemonic, else from its destination register. */
function loadSize(mnemonic: string, destination: string): number {
  if (/^mov[sz]b/.test(mnemonic)) return 1;
  if (/^mov[sz]w/.test(mnemonic)) return 2;
  if (/^movsl|^movslq/.test(mnemonic)) return 4;
  return registerWidth(destination);
}

function writes(list: readonly ParsedInstruction[], register: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const ins = list[k];
    if (ins && registersWritten(ins).includes(register)) return true;
  }
  return false;
}

/** The value `register` held just before instruction `at` ran, as a recipe evaluated at instruction `stop`. */
function valueBefore(
  list: readonly ParsedInstruction[],
  register: string,
  at: number,
  stop: number,
  depth: number,
): ValueSource | undefined {
  if (depth > 8) return undefined;
  if (!writes(list, register, at, stop)) return { kind: 'register', register };
  return producedBy(list, register, at, stop, depth);
}

/** The value the last instruction before `at` that wrote `register` put there. */
function producedBy(
  list: readonly ParsedInstruction[],
  register: string,
  at: number,
  stop: number,
  depth: number,
): ValueSource | undefined {
  let j = at - 1;
  while (j >= 0 && !registersWritten(list[j] as ParsedInstruction).includes(register)) j--;
  const ins = list[j];
  if (!ins) return undefined;
  const [source, destination] = ins.operands;
  if (ins.operands.length !== 2 || source === undefined || destination === undefined) return undefined;
  if (!/^%[a-z0-9]+$/.test(destination) || fullRegister(destination) !== register) return undefined;
  if (/^lea/.test(ins.mnemonic)) {
    const address = addressBefore(list, source, ins, j, stop, depth + 1);
    return address ? { kind: 'address', address } : undefined;
  }
  if (!/^mov(?:[lqwb]|[sz][bwl][wlq]?|slq|abs)?$/.test(ins.mnemonic)) return undefined;
  if (/^%[a-z0-9]+$/.test(source)) {
    if (registerWidth(source) < 4) return undefined;
    return valueBefore(list, fullRegister(source), j, stop, depth + 1);
  }
  const address = addressBefore(list, source, ins, j, stop, depth + 1);
  return address ? { kind: 'load', address, size: loadSize(ins.mnemonic, destination) } : undefined;
}

function addressBefore(
  list: readonly ParsedInstruction[],
  operand: string,
  ins: ParsedInstruction,
  at: number,
  stop: number,
  depth: number,
): AddressSource | undefined {
  const mem = memoryOperand(operand);
  if (!mem) return undefined;
  if (mem.base === 'rip') return ins.note === undefined ? undefined : { scale: 1, disp: 0n, absolute: ins.note };
  const base = mem.base ? valueBefore(list, mem.base, at, stop, depth) : undefined;
  const index = mem.index ? valueBefore(list, mem.index, at, stop, depth) : undefined;
  if ((mem.base && !base) || (mem.index && !index)) return undefined;
  return { scale: mem.scale, disp: mem.disp, ...(base ? { base } : {}), ...(index ? { index } : {}) };
}

/**
 * Where the pointer a faulting instruction dereferenced was loaded from: the memory the origin
 * search watches. `instructions` is the function's code up to and including the faulting one
 * (its index is `faulting`). undefined when the base register was not loaded from memory within
 * the walk (an argument in a register, a value computed by arithmetic).
 */
export function faultingPointerSource(
  instructions: readonly string[],
  faulting: number,
): { address: AddressSource; size: number; register: string } | undefined {
  const list = instructions.map(parseInstruction);
  const fault = list[faulting];
  if (!fault) return undefined;
  const mem = fault.operands.map(memoryOperand).find((m) => m !== undefined);
  if (!mem?.base || mem.base === 'rip' || mem.base === 'rsp' || mem.base === 'rbp') return undefined;
  const value = producedBy(list, mem.base, faulting, faulting, 0);
  if (value?.kind !== 'load') return undefined;
  return { address: value.address, size: value.size, register: mem.base };
}

/** What an evaluation of a recipe needs at the stop. */
export interface StopReads {
  register(name: string): Promise<bigint | undefined>;
  memory(address: bigint, size: number): Promise<bigint | undefined>;
}

export async function evaluateValue(source: ValueSource, reads: StopReads): Promise<bigint | undefined> {
  switch (source.kind) {
    case 'register':
      return reads.register(source.register);
    case 'address':
      return evaluateAddress(source.address, reads);
    case 'load': {
      const at = await evaluateAddress(source.address, reads);
      return at === undefined ? undefined : reads.memory(at, source.size);
    }
  }
}

const MASK64 = (1n << 64n) - 1n;

export async function evaluateAddress(address: AddressSource, reads: StopReads): Promise<bigint | undefined> {
  if (address.absolute !== undefined) return address.absolute;
  let sum = address.disp;
  if (address.base) {
    const b = await evaluateValue(address.base, reads);
    if (b === undefined) return undefined;
    sum += b;
  }
  if (address.index) {
    const i = await evaluateValue(address.index, reads);
    if (i === undefined) return undefined;
    sum += i * BigInt(address.scale);
  }
  return sum & MASK64;
}
