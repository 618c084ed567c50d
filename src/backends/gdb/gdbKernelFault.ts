// A fault the kernel reports without its address (si_code SI_KERNEL: on x86-64 a general-
// protection fault, such as a read through the non-canonical pointer 0xfefefefefefefefe, comes
// with si_addr 0). Read as it comes, it would pass for a NULL dereference; instead the faulting
// instruction is decoded with the registers it uses, and the stop carries the address it really
// accessed and a sentence naming the bad pointer (runtime/faultAddress.ts).

import type { StopEvent } from '../../model/model.js';
import { explainKernelFault, operandRegisters } from '../runtime/faultAddress.js';
import type { GdbContext } from './gdbContext.js';
import { registers } from './gdbInspection.js';
import { disassemble } from './gdbMemory.js';

const NO_ADDRESS =
  "the kernel reports no address for this fault (a general-protection fault, si_code SI_KERNEL): the faulting instruction's memory operand holds the bad pointer";

/** Sets the stop's fault address and note from the faulting instruction; never throws. */
export async function explainKernelStop(g: GdbContext, stop: StopEvent): Promise<void> {
  const at = { threadId: stop.threadId, frame: 0 };
  try {
    const insn = (await disassemble(g, { ...at, span: { around: 'pc', before: 0, after: 0 } })).instructions[0];
    if (insn) {
      const names = operandRegisters(insn.instruction);
      const values: Record<string, bigint> = {};
      if (names.length > 0) {
        for (const r of await registers(g, { ...at, names, format: 'hex' })) {
          if (/^0x[0-9a-f]+$/i.test(r.value)) values[r.name] = BigInt(r.value);
        }
      }
      const explained = explainKernelFault(insn.instruction, values);
      if (explained) {
        stop.faultAddress = `0x${explained.address.toString(16)}`;
        stop.faultNote = explained.text;
        return;
      }
    }
  } catch {
    // No instruction or registers to read (a core without them): say only what is known.
  }
  stop.faultNote = NO_ADDRESS;
}
