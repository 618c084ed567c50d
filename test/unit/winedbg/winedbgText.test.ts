// winedbg's replies as data, on text recorded from winedbg 8.0 on this machine (Debian 12).
import { describe, expect, it } from 'vitest';
import {
  parseExceptionLine,
  parseInfoProcess,
  parseInfoShare,
  parseInfoThread,
} from '../../../src/backends/winedbg/winedbgText.js';

const INFO_PROCESS = [
  ' pid      threads  executable (all id:s are in hex)',
  " 000004dc 1        'start.exe'",
  "=000004e4 1        \\_ 'winedbg.exe'",
  " 00000474 1        'launch.exe'",
  ">00000484 2        \\_ 'echo.exe'",
  " 0000047c 2        \\_ 'conhost.exe'",
  " 000004c4 2           \\_ 'explorer.exe'",
  " 00000038 8        'services.exe'",
  " 000000dc 6        \\_ 'rpcss.exe'",
  '',
].join('\n');

describe('parseInfoProcess', () => {
  it('reads pids (hex), thread counts, names, the tree and the marks', () => {
    expect(parseInfoProcess(INFO_PROCESS)).toEqual([
      { pid: 0x4dc, threads: 1, name: 'start.exe', depth: 0, parentPid: undefined, mark: undefined },
      { pid: 0x4e4, threads: 1, name: 'winedbg.exe', depth: 1, parentPid: 0x4dc, mark: 'self' },
      { pid: 0x474, threads: 1, name: 'launch.exe', depth: 0, parentPid: undefined, mark: undefined },
      { pid: 0x484, threads: 2, name: 'echo.exe', depth: 1, parentPid: 0x474, mark: 'debuggee' },
      { pid: 0x47c, threads: 2, name: 'conhost.exe', depth: 1, parentPid: 0x474, mark: undefined },
      { pid: 0x4c4, threads: 2, name: 'explorer.exe', depth: 2, parentPid: 0x47c, mark: undefined },
      { pid: 0x38, threads: 8, name: 'services.exe', depth: 0, parentPid: undefined, mark: undefined },
      { pid: 0xdc, threads: 6, name: 'rpcss.exe', depth: 1, parentPid: 0x38, mark: undefined },
    ]);
  });

  it('a name is taken whole between the outer quotes, whatever it holds', () => {
    const [p] = parseInfoProcess(" 00000010 1        'it''s \\_ odd.exe'");
    expect(p?.name).toBe("it''s \\_ odd.exe");
  });

  it('skips what is not a process line', () => {
    expect(parseInfoProcess("Wine-dbg>\nsomething else\n 0000zz10 1        'x'")).toEqual([]);
  });
});

describe('parseInfoThread', () => {
  it('groups threads (hex ids, priority, name) under their process', () => {
    const text = [
      'process  tid      prio    name (all IDs are in hex)',
      '00000038 services.exe',
      '\t0000003c    0     ',
      '\t00000040    0     wine_rpcrt4_server',
      '00000044 winedevice.exe',
      '\t00000048   -2     ',
    ].join('\n');
    expect(parseInfoThread(text)).toEqual([
      {
        pid: 0x38,
        name: 'services.exe',
        threads: [
          { tid: 0x3c, priority: 0, name: '' },
          { tid: 0x40, priority: 0, name: 'wine_rpcrt4_server' },
        ],
      },
      { pid: 0x44, name: 'winedevice.exe', threads: [{ tid: 0x48, priority: -2, name: '' }] },
    ]);
  });
});

describe('parseInfoShare', () => {
  it('reads kind, range, debug info and name of each module', () => {
    const text = [
      'Module\tAddress\t\t\t\t\tDebug info\tName (12 modules)',
      'PE\t000000007b000000-000000007b5e5000\tDeferred        kernelbase',
      'PE\t0000000140000000-000000014003f000\tDwarf-4-5       access',
      'ELF\t00007fe045aec000-00007fe045bb0000\tDeferred        ntdll.so',
      'ELF\t000000007d000000-000000007d005000\tDeferred        <wine-loader>',
    ].join('\n');
    expect(parseInfoShare(text)).toEqual([
      { kind: 'PE', start: 0x7b000000n, end: 0x7b5e5000n, debugInfo: 'Deferred', name: 'kernelbase' },
      { kind: 'PE', start: 0x140000000n, end: 0x14003f000n, debugInfo: 'Dwarf-4-5', name: 'access' },
      { kind: 'ELF', start: 0x7fe045aec000n, end: 0x7fe045bb0000n, debugInfo: 'Deferred', name: 'ntdll.so' },
      { kind: 'ELF', start: 0x7d000000n, end: 0x7d005000n, debugInfo: 'Deferred', name: '<wine-loader>' },
    ]);
  });

  it('says nothing for winedbg’s "no process" answer', () => {
    expect(parseInfoShare('Cannot get info on module while no process is loaded\n')).toEqual([]);
  });
});

describe('parseExceptionLine', () => {
  it('a write fault: access, address, pc, bits', () => {
    expect(
      parseExceptionLine(
        'Unhandled exception: page fault on write access to 0x0000000000000000 in 64-bit code (0x00000140001596).\nRegister dump:',
      ),
    ).toEqual({
      firstChance: false,
      description: 'page fault on write access to 0x0000000000000000',
      access: 'write',
      address: 0n,
      bits: 64,
      pc: 0x140001596n,
    });
  });

  it('a first-chance divide by zero has no access or address', () => {
    expect(parseExceptionLine('First chance exception: divide by zero in 64-bit code (0x00000140001592).')).toEqual({
      firstChance: true,
      description: 'divide by zero',
      bits: 64,
      pc: 0x140001592n,
    });
  });

  it('read and execute faults', () => {
    expect(
      parseExceptionLine('Unhandled exception: page fault on read access to 0x0000000000000010 in 64-bit code (0x1).'),
    ).toMatchObject({
      access: 'read',
      address: 0x10n,
    });
    expect(
      parseExceptionLine(
        'Unhandled exception: page fault on execute access to 0x0000000000000020 in 64-bit code (0x20).',
      ),
    ).toMatchObject({
      access: 'execute',
      address: 0x20n,
    });
  });

  it('undefined when there is no exception line', () => {
    expect(parseExceptionLine('Backtrace:\n=>0 0x00000140001596 store+0x12')).toBeUndefined();
  });
});
