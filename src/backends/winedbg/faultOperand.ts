// What a faulting instruction was doing, inferred from its text when the exception record did not
// reach us: winedbg's gdb proxy reports an access violation as a bare SIGSEGV ($_siginfo is void:
// no qXfer:siginfo), so whether it was a read or a write, and of which address, comes from the
// instruction at the pc, in GDB's AT&T syntax (x/i $pc). The answer is an expression over
// registers for the evidence layer to evaluate, and is always labelled as inferred.
//
// AT&T operand order is source, destination: a memory operand last is written, one earlier is
// read ("mov %edx,(%rax)" writes (%rax); "mov (%rax),%eax" reads it). Read-modify-write
// instructions (add, inc, xchg…) with a memory destination both read and write: the first access
// is the read. Instructions that only read their operands (cmp, test, push of memory, jumps and
// calls through memory) read it. A pc that cannot be read at all is an execute fault at the pc.

export type FaultAccess = 'read' | 'write' | 'execute';

export interface InferredFault {
  access: FaultAccess;
  /** A GDB expression for the address: "$rax", "$rbp+0x18", "$rax+$rbx*4-0x8"; undefined when not known. */
  address?: string;
  /** The operand as GDB printed it. */
  operand?: string;
}

/** Mnemonics (suffix stripped) that only read every operand. */
const READ_ONLY = new Set(['cmp', 'test', 'push', 'bt', 'ucomis', 'comis', 'ptest']);
/** Mnemonics whose memory destination is read before it is written. */
const READ_MODIFY_WRITE = new Set([
  'add',
  'adc',
  'sub',
  'sbb',
  'and',
  'or',
  'xor',
  'inc',
  'dec',
  'neg',
  'not',
  'shl',
  'shr',
  'sal',
  'sar',
  'rol',
  'ror',
  'rcl',
  'rcr',
  'xchg',
  'xadd',
  'cmpxchg',
  'btc',
  'btr',
  'bts',
]);

/** The text GDB gave for the instruction at the fault, e.g. "=> 0x140001596 <store+18>:\tmov    %edx,(%rax)". */
export function inferFault(instruction: string): InferredFault | undefined {
  if (/Cannot access memory at address/.test(instruction)) return { access: 'execute', address: '$pc' };
  const m = /:\s*(?:(?:lock|rep[nz]?[ez]?)\s+)?([a-z][a-z0-9]*)\s+(.*?)\s*(?:#.*)?$/.exec(instruction.trim());
  if (!m) return undefined;
  const mnemonic = m[1] as string;
  const operands = splitOperands(m[2] as string);
  const isMemory = (o: string): boolean => !o.startsWith('$') && /\(|^(?:%[a-z]s:)?-?0x[0-9a-f]+$/.test(o);
  const memIndex = operands.findIndex(isMemory);
  // None, or two (movs, cmps): which one faulted cannot be told from the text.
  if (memIndex < 0 || operands.filter(isMemory).length > 1) return undefined;
  const operand = operands[memIndex] as string;
  const address = addressExpression(operand);
  const base = mnemonic.replace(/[bwlq]$/, '');
  // jmp *0x8(%rax) / call *(%rax): the pointer is read.
  if (operand.startsWith('*')) return withAddress({ access: 'read', operand }, address);
  const last = memIndex === operands.length - 1 && operands.length > 1;
  let access: FaultAccess;
  if (READ_ONLY.has(base) || READ_ONLY.has(mnemonic)) access = 'read';
  else if (!last) access = 'read';
  else if (READ_MODIFY_WRITE.has(base) || READ_MODIFY_WRITE.has(mnemonic)) access = 'read';
  else access = 'write';
  // A lone memory operand (inc (%rax), pop (%rax), idivl 0x18(%rbp)): pop writes, the rest read first.
  if (operands.length === 1) access = base === 'pop' ? 'write' : 'read';
  return withAddress({ access, operand }, address);
}

function withAddress(f: InferredFault, address: string | undefined): InferredFault {
  return address === undefined ? f : { ...f, address };
}

/** Splits "0x8(%rax,%rbx,4),%ecx" at the commas outside parentheses. */
function splitOperands(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out.filter((o) => o.length > 0);
}

/** AT&T memory operand "disp(base,index,scale)" as a GDB expression; RIP-relative and segment forms left out. */
function addressExpression(operand: string): string | undefined {
  let o = operand.replace(/^\*/, '');
  // fs:/gs: relative (the TEB): the segment base is not a register GDB shows. es/ds/ss/cs are flat.
  if (/^%[fg]s:/.test(o)) return undefined;
  o = o.replace(/^%[a-z]s:/, '');
  const m = /^(-?0x[0-9a-f]+|-?\d+)?(?:\((%[a-z0-9]+)?(?:,(%[a-z0-9]+)(?:,(\d))?)?\))?$/.exec(o);
  if (!m) return undefined;
  const [, disp, base, index, scale] = m;
  if (base === '%rip') return undefined;
  const parts: string[] = [];
  if (base) parts.push(`$${base.slice(1)}`);
  if (index) parts.push(`$${index.slice(1)}${scale && scale !== '1' ? `*${scale}` : ''}`);
  let expr = parts.join('+');
  if (disp && !/^-?0x0+$|^0$/.test(disp)) {
    expr = expr ? `${expr}${disp.startsWith('-') ? disp : `+${disp}`}` : disp;
  }
  return expr || undefined;
}
