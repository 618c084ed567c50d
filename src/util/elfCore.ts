// Just enough of an ELF core file to refuse a bad one before a debugger reads it: is it a core
// at all, and does the file hold every byte its program headers promise? A dump cut short (disk
// full, `ulimit -c` reached, a copy interrupted) makes GDB print a BFD warning on stderr only and
// then show garbage stacks, so the check is made here.

import { open } from 'node:fs/promises';

const ET_CORE = 4;

export type CoreFileCheck =
  | { kind: 'core'; machine: number; bits: 32 | 64; size: number }
  /** The headers promise `needed` bytes and the file has `size`. */
  | { kind: 'truncated'; machine: number; size: number; needed: number }
  /** An ELF file of another type (2: executable, 3: shared object or PIE). */
  | { kind: 'not-core'; type: number }
  | { kind: 'not-elf' };

export async function checkCoreFile(path: string): Promise<CoreFileCheck> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const head = Buffer.alloc(64);
    const { bytesRead } = await file.read(head, 0, 64, 0);
    if (bytesRead < 52 || head.readUInt32BE(0) !== 0x7f454c46) return { kind: 'not-elf' };
    const bits = head[4] === 2 ? 64 : 32;
    const le = head[5] === 1;
    const u16 = (b: Buffer, o: number): number => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b: Buffer, o: number): number => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const u64 = (b: Buffer, o: number): number => Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o));
    const type = u16(head, 16);
    const machine = u16(head, 18);
    if (type !== ET_CORE) return { kind: 'not-core', type };
    const phoff = bits === 64 ? u64(head, 32) : u32(head, 28);
    const phentsize = u16(head, bits === 64 ? 54 : 42);
    const phnum = u16(head, bits === 64 ? 56 : 44);
    const tableEnd = phoff + phentsize * phnum;
    if (tableEnd > size) return { kind: 'truncated', machine, size, needed: tableEnd };
    const table = Buffer.alloc(phentsize * phnum);
    await file.read(table, 0, table.length, phoff);
    // Every segment's bytes (p_offset + p_filesz) must be in the file: notes hold the registers
    // and the signal, loads hold the memory.
    let needed = tableEnd;
    for (let i = 0; i < phnum; i++) {
      const at = i * phentsize;
      const offset = bits === 64 ? u64(table, at + 8) : u32(table, at + 4);
      const fileSize = bits === 64 ? u64(table, at + 32) : u32(table, at + 16);
      needed = Math.max(needed, offset + fileSize);
    }
    if (needed > size) return { kind: 'truncated', machine, size, needed };
    return { kind: 'core', machine, bits, size };
  } finally {
    await file.close();
  }
}
