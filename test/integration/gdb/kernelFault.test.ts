// What GDB reports for a read through a non-canonical pointer (fixtures/c/kernel_fault.c), and
// the real pointer recovered from the faulting instruction and the registers read over MI.
import { afterEach, describe, expect, it } from 'vitest';
import {
  isExitStop,
  isTuple,
  miList,
  miString,
  narrowDisassembly,
  narrowStop,
} from '../../../src/backends/gdb/gdbNarrow.js';
import { GdbProbeProcess } from '../../../src/backends/gdb/gdbProbeProcess.js';
import { decodeMemoryOperand, explainKernelFault, SI_KERNEL } from '../../../src/backends/runtime/faultAddress.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import { WAIT_MS } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';

const open: GdbProbeProcess[] = [];
afterEach(async () => {
  for (const gdb of open.splice(0)) await gdb.close();
});

/** Every register GDB has, by name, as numbers (vector registers, which are not, are left out). */
async function registers(gdb: GdbProbeProcess): Promise<Record<string, bigint>> {
  const names = miList((await gdb.send('data-list-register-names')).results, 'register-names');
  const values = miList(
    (await gdb.send('data-list-register-values', ['--skip-unavailable', 'x'])).results,
    'register-values',
  );
  const out: Record<string, bigint> = {};
  for (const v of values) {
    if (!isTuple(v)) continue;
    const name = names[Number(miString(v, 'number'))];
    const value = miString(v, 'value');
    if (typeof name === 'string' && name !== '' && value && /^0x[0-9a-f]+$/.test(value)) out[name] = BigInt(value);
  }
  return out;
}

describe.skipIf(process.arch !== 'x64')('a fault at a non-canonical address (x86-64)', () => {
  it('GDB sees SIGSEGV with si_code SI_KERNEL and si_addr 0; the instruction and registers give the pointer', async (ctx) => {
    const gdb = await GdbProbeProcess.start({
      gdbPath: 'gdb',
      env: childEnvironment(process.env),
      commandTimeoutMs: WAIT_MS,
    });
    open.push(gdb);
    await gdb.send('file-exec-and-symbols', [fixture('kernel_fault')]);
    const stop = await gdb.resume(() => gdb.send('exec-run'));
    if (!stop || isExitStop(stop)) throw new Error(`expected a stop, got ${JSON.stringify(stop)}`);
    const event = narrowStop(stop);
    expect(event.signal?.name).toBe('SIGSEGV');
    expect(event.frame?.function).toBe('value_of');
    // What GDB reports: no address at all.
    expect(Number(await gdb.evaluate('$_siginfo.si_code'))).toBe(SI_KERNEL);
    expect(await gdb.evaluate('$_siginfo._sifields._sigfault.si_addr')).toBe('0x0');
    const [insn] = narrowDisassembly(
      (await gdb.send('data-disassemble', ['-s', '$pc', '-e', '$pc + 1', '--', '0'])).results,
    );
    const regs = await registers(gdb);
    const operand = decodeMemoryOperand(insn?.instruction ?? '', regs);
    await ctx.annotate(
      `faulting instruction: ${insn?.instruction}; decoded ${JSON.stringify(operand, (_, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v))}`,
    );
    expect(operand).toMatchObject({ disp: 8n, address: 0xfefefefefefeff06n });
    // The register the decoder read holds the program's own pointer.
    expect(BigInt(await gdb.evaluate('(unsigned long)n'))).toBe(regs[operand?.base ?? '']);
    const explained = explainKernelFault(insn?.instruction ?? '', regs);
    expect(explained?.pointer?.value).toBe(0xfefefefefefefefen);
    expect(explained?.text).toMatch(/non-canonical/);
    expect(explained?.text).toMatch(/-ftrivial-auto-var-init=pattern/);
  });
});
