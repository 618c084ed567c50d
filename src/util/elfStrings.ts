// The string tables of an ELF file (.dynstr, .strtab): every symbol name and needed library the
// program carries, readable without a debugger. What a program links (a sanitizer runtime,
// libstdc++) shows there whether the runtime is a shared library (a NEEDED entry and the
// imported names) or linked in (its defined names). elf.ts reads only section names.

import { open } from 'node:fs/promises';

export interface ElfStringTables {
  /** Contents by section name; a section the file lacks is absent. */
  tables: Map<string, Buffer>;
  /** Names of sections that were larger than the limit and were not read. */
  skipped: string[];
}

/**
 * Reads the named string-table sections (default .dynstr and .strtab), each up to `maxBytes`;
 * undefined when the file is not ELF.
 */
export async function readElfStrings(
  path: string,
  names: readonly string[] = ['.dynstr', '.strtab'],
  maxBytes = 64 << 20,
): Promise<ElfStringTables | undefined> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(64);
    await file.read(head, 0, 64, 0);
    if (head.readUInt32BE(0) !== 0x7f454c46) return undefined;
    const bits64 = head[4] === 2;
    const le = head[5] === 1;
    const u16 = (b: Buffer, o: number): number => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b: Buffer, o: number): number => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const u64 = (b: Buffer, o: number): number => Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o));
    const word = (b: Buffer, o32: number, o64: number): number => (bits64 ? u64(b, o64) : u32(b, o32));
    const shoff = word(head, 32, 40);
    const shentsize = u16(head, bits64 ? 58 : 46);
    const shnum = u16(head, bits64 ? 60 : 48);
    const shstrndx = u16(head, bits64 ? 62 : 50);
    const result: ElfStringTables = { tables: new Map(), skipped: [] };
    if (shoff === 0 || shnum === 0 || shentsize < 40 || shstrndx >= shnum) return result;
    const table = Buffer.alloc(shentsize * shnum);
    await file.read(table, 0, table.length, shoff);
    // Section header: name(4) type(4) flags(4|8) addr(4|8) offset(4|8) size(4|8) …
    const offsetOf = (i: number): number => word(table, i * shentsize + 16, i * shentsize + 24);
    const sizeOf = (i: number): number => word(table, i * shentsize + 20, i * shentsize + 32);
    const typeOf = (i: number): number => u32(table, i * shentsize + 4);
    const namesSize = Math.min(sizeOf(shstrndx), 1 << 20);
    const sectionNames = Buffer.alloc(namesSize);
    await file.read(sectionNames, 0, namesSize, offsetOf(shstrndx));
    const SHT_STRTAB = 3;
    for (let i = 0; i < shnum; i++) {
      const at = u32(table, i * shentsize);
      if (at >= namesSize || typeOf(i) !== SHT_STRTAB) continue;
      const end = sectionNames.indexOf(0, at);
      const name = sectionNames.toString('latin1', at, end < 0 ? namesSize : end);
      if (!names.includes(name) || result.tables.has(name)) continue;
      const size = sizeOf(i);
      if (size > maxBytes) {
        result.skipped.push(name);
        continue;
      }
      const contents = Buffer.alloc(size);
      await file.read(contents, 0, size, offsetOf(i));
      result.tables.set(name, contents);
    }
    return result;
  } finally {
    await file.close();
  }
}

/** True when some string in the tables starts with `prefix` (each string follows a NUL). */
export function hasStringStarting(tables: ElfStringTables, prefix: string): boolean {
  const needle = Buffer.from(`\0${prefix}`, 'latin1');
  for (const contents of tables.tables.values()) if (contents.includes(needle)) return true;
  return false;
}

/** True when some string in the tables contains `part` anywhere (a library's name in NEEDED). */
export function hasStringContaining(tables: ElfStringTables, part: string): boolean {
  const needle = Buffer.from(part, 'latin1');
  for (const contents of tables.tables.values()) if (contents.includes(needle)) return true;
  return false;
}
