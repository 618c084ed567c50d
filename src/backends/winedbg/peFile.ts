// What a Windows executable is, read from its headers before Wine is asked to run it. Wine's own
// answer to a 32-bit .exe where wine32 is absent is a misleading "no application associated
// with the specified file" from ShellExecuteEx (measured, Wine 8.0, Debian 12), and winedbg's is
// "Couldn't start process": the machine type lets the backend refuse with the real reason first.
//
// Layout (PE/COFF specification): the DOS header holds "MZ" at 0 and the offset of the PE
// header at 0x3c; the PE header is "PE\0\0", then the COFF header (Machine u16 at +4,
// NumberOfSections u16 at +6, SizeOfOptionalHeader u16 at +20, Characteristics u16 at +22),
// then the optional header at +24 (Magic 0x10b for PE32, 0x20b for PE32+; AddressOfEntryPoint
// u32 at +16; ImageBase u32 at +28 in PE32, u64 at +24 in PE32+; Subsystem u16 at +68).

import { closeSync, openSync, readSync } from 'node:fs';
import { DebuggerError } from '../../util/errors.js';

/** IMAGE_FILE_MACHINE_* values a Windows program may carry. */
const MACHINES: Readonly<Record<number, PeMachineName>> = {
  332: 'i386',
  34404: 'x86_64',
  43620: 'arm64',
  452: 'arm',
  512: 'ia64',
};

export type PeMachineName = 'i386' | 'x86_64' | 'arm64' | 'arm' | 'ia64' | 'unknown';

export interface PeHeader {
  /** The COFF Machine field. */
  machineCode: number;
  machine: PeMachineName;
  /** PE32+ (a 64-bit image) rather than PE32. */
  pe32Plus: boolean;
  /** IMAGE_SUBSYSTEM_*: 3 is a console program, 2 a GUI one. */
  subsystem: number;
  /** The preferred load address. */
  imageBase: bigint;
  /** Where execution starts, relative to the image base. */
  entryRva: number;
  /** IMAGE_FILE_DLL is set: a library, not a program. */
  isDll: boolean;
}

/** Enough of the file for every header field read here (the PE header may start late). */
const HEAD_BYTES = 4096;

function notPe(path: string, why: string): DebuggerError {
  return new DebuggerError('invalid_argument', `${path} is not a Windows executable: ${why}`, { path });
}

/** Parses the headers from the first bytes of a file. Throws invalid_argument when they are not a PE image. */
export function parsePeHeader(head: Buffer, path = 'the file'): PeHeader {
  if (head.length < 0x40 || head.readUInt16LE(0) !== 0x5a4d) throw notPe(path, 'no MZ header');
  const pe = head.readUInt32LE(0x3c);
  if (pe + 24 + 70 > head.length)
    throw notPe(path, `the PE header offset ${pe} lies outside the first ${head.length} bytes`);
  if (head.readUInt32LE(pe) !== 0x00004550) throw notPe(path, 'no PE signature (an MS-DOS or NE program?)');
  const machineCode = head.readUInt16LE(pe + 4);
  const characteristics = head.readUInt16LE(pe + 22);
  const optional = pe + 24;
  const magic = head.readUInt16LE(optional);
  if (magic !== 0x10b && magic !== 0x20b) throw notPe(path, `unknown optional header magic 0x${magic.toString(16)}`);
  const pe32Plus = magic === 0x20b;
  return {
    machineCode,
    machine: MACHINES[machineCode] ?? 'unknown',
    pe32Plus,
    subsystem: head.readUInt16LE(optional + 68),
    imageBase: pe32Plus ? head.readBigUInt64LE(optional + 24) : BigInt(head.readUInt32LE(optional + 28)),
    entryRva: head.readUInt32LE(optional + 16),
    isDll: (characteristics & 0x2000) !== 0,
  };
}

/** Reads the headers of the PE file at `path`. */
export function readPeHeader(path: string): PeHeader {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new DebuggerError('invalid_argument', `cannot read ${path}: ${(e as Error).message}`, { path }, { cause: e });
  }
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, head, 0, HEAD_BYTES, 0);
    return parsePeHeader(head.subarray(0, n), path);
  } finally {
    closeSync(fd);
  }
}

/** The machine a Windows executable was built for. */
export function peMachine(path: string): PeMachineName {
  return readPeHeader(path).machine;
}
