// The PE header reader on hand-made headers (every branch, no tools needed) and on the mingw-built
// fixtures (the real thing, where mingw is installed).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePeHeader, peMachine, readPeHeader } from '../../../src/backends/winedbg/peFile.js';
import { onPath, thirtyTwoBitFixture, windowsFixture } from '../../integration/winedbg/windowsFixtures.js';

interface Fake {
  machine: number;
  magic?: number;
  peOffset?: number;
  characteristics?: number;
  entry?: number;
  base?: bigint;
  subsystem?: number;
}

/** A header the way a linker lays it out, with only the fields the reader looks at filled in. */
function fakePe({
  machine,
  magic = 0x20b,
  peOffset = 0x80,
  characteristics = 0x22,
  entry = 0x14d0,
  base,
  subsystem = 3,
}: Fake): Buffer {
  const b = Buffer.alloc(1024);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(peOffset, 0x3c);
  b.write('PE\0\0', peOffset, 'latin1');
  b.writeUInt16LE(machine, peOffset + 4);
  b.writeUInt16LE(characteristics, peOffset + 22);
  const opt = peOffset + 24;
  b.writeUInt16LE(magic, opt);
  b.writeUInt32LE(entry, opt + 16);
  if (magic === 0x20b) b.writeBigUInt64LE(base ?? 0x140000000n, opt + 24);
  else b.writeUInt32LE(Number(base ?? 0x400000n), opt + 28);
  b.writeUInt16LE(subsystem, opt + 68);
  return b;
}

describe('parsePeHeader', () => {
  it('reads a PE32+ x86_64 console program', () => {
    expect(parsePeHeader(fakePe({ machine: 0x8664 }))).toEqual({
      machineCode: 0x8664,
      machine: 'x86_64',
      pe32Plus: true,
      subsystem: 3,
      imageBase: 0x140000000n,
      entryRva: 0x14d0,
      isDll: false,
    });
  });

  it('reads a PE32 i386 image base from the 32-bit field', () => {
    const h = parsePeHeader(fakePe({ machine: 0x14c, magic: 0x10b, base: 0x400000n, entry: 0x1000 }));
    expect(h).toMatchObject({ machine: 'i386', pe32Plus: false, imageBase: 0x400000n, entryRva: 0x1000 });
  });

  it('names arm64, marks a DLL, and keeps an unknown machine code', () => {
    expect(parsePeHeader(fakePe({ machine: 0xaa64 })).machine).toBe('arm64');
    expect(parsePeHeader(fakePe({ machine: 0x8664, characteristics: 0x2022 })).isDll).toBe(true);
    const odd = parsePeHeader(fakePe({ machine: 0x1234 }));
    expect(odd).toMatchObject({ machine: 'unknown', machineCode: 0x1234 });
  });

  it('refuses what is not a PE image, saying why', () => {
    expect(() =>
      parsePeHeader(Buffer.from('\x7fELF....................................................................')),
    ).toThrow(/no MZ header/);
    const dos = fakePe({ machine: 0x8664 });
    dos.write('NE', 0x80, 'latin1');
    expect(() => parsePeHeader(dos)).toThrow(/no PE signature/);
    const far = fakePe({ machine: 0x8664 });
    far.writeUInt32LE(4000, 0x3c);
    expect(() => parsePeHeader(far)).toThrow(/outside the first 1024 bytes/);
    expect(() => parsePeHeader(fakePe({ machine: 0x8664, magic: 0x107 }))).toThrow(/optional header magic 0x107/);
    expect(() => parsePeHeader(Buffer.alloc(10))).toThrow(/no MZ header/);
  });
});

describe('readPeHeader on files', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pe-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file and fails with invalid_argument for a missing one', () => {
    const path = join(dir, 'fake.exe');
    writeFileSync(path, fakePe({ machine: 0x14c, magic: 0x10b }));
    expect(peMachine(path)).toBe('i386');
    expect(() => readPeHeader(join(dir, 'absent.exe'))).toThrow(/cannot read/);
  });
});

describe.skipIf(onPath('x86_64-w64-mingw32-gcc') === undefined)('peMachine on mingw builds', () => {
  it('a mingw x86_64 fixture is x86_64 PE32+, console, entry inside the image', () => {
    const h = readPeHeader(windowsFixture('locals'));
    expect(h).toMatchObject({ machine: 'x86_64', pe32Plus: true, subsystem: 3, isDll: false });
    expect(h.entryRva).toBeGreaterThan(0);
  });

  it('the hand-linked 32-bit fixture is i386 PE32', (ctx) => {
    const path = thirtyTwoBitFixture();
    if (path === undefined)
      return ctx.skip('no i386pe linker script on this machine: the 32-bit fixture was not built');
    expect(readPeHeader(path)).toMatchObject({ machine: 'i386', pe32Plus: false, imageBase: 0x400000n });
  });
});
