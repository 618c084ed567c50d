// Just enough ELF to answer "does this program carry debug info?" without asking a debugger
// (GDB/MI says nothing when it loads a program without symbols).

import { open } from 'node:fs/promises';

export interface ElfFacts {
  bits: 32 | 64;
  littleEndian: boolean;
  machine: number;
  /** Section names, e.g. .text, .debug_info. */
  sections: string[];
}

/** Reads the section names of an ELF file; undefined when it is not ELF (a script, a PE file). */
export async function readElf(path: string): Promise<ElfFacts | undefined> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(64);
    await file.read(head, 0, 64, 0);
    if (head.readUInt32BE(0) !== 0x7f454c46) return undefined;
    const bits = head[4] === 2 ? 64 : 32;
    const le = head[5] === 1;
    const u16 = (b: Buffer, o: number): number => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b: Buffer, o: number): number => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const u64 = (b: Buffer, o: number): number => Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o));
    const machine = u16(head, 18);
    const shoff = bits === 64 ? u64(head, 40) : u32(head, 32);
    const shentsize = u16(head, bits === 64 ? 58 : 46);
    const shnum = u16(head, bits === 64 ? 60 : 48);
    const shstrndx = u16(head, bits === 64 ? 62 : 50);
    if (shoff === 0 || shnum === 0 || shnum > 65_535 || shentsize < 40)
      return { bits, littleEndian: le, machine, sections: [] };
    const table = Buffer.alloc(shentsize * shnum);
    await file.read(table, 0, table.length, shoff);
    const offsetOf = (i: number): number =>
      bits === 64 ? u64(table, i * shentsize + 24) : u32(table, i * shentsize + 16);
    const sizeOf = (i: number): number =>
      bits === 64 ? u64(table, i * shentsize + 32) : u32(table, i * shentsize + 20);
    const strSize = Math.min(sizeOf(shstrndx), 1 << 20);
    const strings = Buffer.alloc(strSize);
    await file.read(strings, 0, strSize, offsetOf(shstrndx));
    const sections: string[] = [];
    for (let i = 0; i < shnum; i++) {
      const at = u32(table, i * shentsize);
      if (at >= strSize) continue;
      const end = strings.indexOf(0, at);
      sections.push(strings.toString('latin1', at, end < 0 ? strSize : end));
    }
    return { bits, littleEndian: le, machine, sections };
  } finally {
    await file.close();
  }
}

/** True when the file has DWARF debug info of its own (or links to a separate debug file). */
export function elfHasDebugInfo(elf: ElfFacts): boolean {
  return elf.sections.some((s) => s === '.debug_info' || s === '.zdebug_info' || s === '.gnu_debuglink');
}
