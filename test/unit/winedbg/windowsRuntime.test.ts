// The Windows runtime's heuristics on frames recorded from GDB 13 through winedbg's proxy (Wine 8.0,
// Debian's Wine DLLs with DWARF, mingw gcc 12 fixtures): which frames are the system's, what a
// blocked thread waits for, the assert message in mingw's output, a critical section's owner.
import { describe, expect, it } from 'vitest';
import type { TargetReader } from '../../../src/backends/debuggerBackend.js';
import {
  classifyWindowsWait,
  isWindowsSystemFrame,
  windowsAbortMessageInOutput,
  windowsLockOwner,
} from '../../../src/backends/runtime/windowsRuntime.js';
import type { Frame } from '../../../src/model/model.js';

const NTDLL = '/tmp/p/dosdevices/c:/windows/system32/ntdll.dll';

/** A frame as narrowGdb makes it from the proxy's stack. */
function f(level: number, fn: string, where: string | { lib: string }, args?: Frame['args']): Frame {
  const frame: Frame = { level, function: fn, address: `0x${(0x140001000 + level).toString(16)}` };
  if (typeof where === 'string') {
    const [file, line] = where.split(':');
    frame.file = file as string;
    frame.line = Number(line);
    // Wine's DWARF names its sources relative to its build tree; GDB resolves the user's.
    frame.fullname = (file as string).startsWith('dlls/') ? `./${file}` : `/work/fixtures/windows/${file}`;
  } else {
    frame.library = where.lib;
  }
  if (args) frame.args = args;
  return frame;
}

const crit = (name: string, address: string): Frame['args'] => [{ name: 'crit', value: `${address} <${name}>` }];

/** deadlock.exe's transfer thread, waiting in EnterCriticalSection (recorded). */
const criticalSectionWait: Frame[] = [
  f(0, 'NtWaitForAlertByThreadId', { lib: NTDLL }),
  f(1, 'RtlWaitOnAddress', 'dlls/ntdll/sync.c:937'),
  f(2, 'wait_semaphore', 'dlls/ntdll/sync.c:197', crit('ledger', '0x14000c080')),
  f(3, 'RtlpWaitForCriticalSection', 'dlls/ntdll/sync.c:316', crit('ledger', '0x14000c080')),
  f(4, 'RtlEnterCriticalSection', 'dlls/ntdll/sync.c:412', crit('ledger', '0x14000c080')),
  f(5, 'transfer', 'deadlock.c:17'),
  f(6, 'BaseThreadInitThunk', 'dlls/kernel32/thread.c:61'),
  f(7, 'RtlUserThreadStart', 'dlls/ntdll/thread.c:286'),
];

describe('isWindowsSystemFrame', () => {
  it("Wine's DLL sources, mingw's CRT and frames without source are the system's", () => {
    expect(isWindowsSystemFrame(f(0, 'RtlWaitOnAddress', 'dlls/ntdll/sync.c:937'))).toBe(true);
    expect(isWindowsSystemFrame(f(0, 'NtWaitForMultipleObjects', { lib: NTDLL }))).toBe(true);
    expect(
      isWindowsSystemFrame({
        level: 0,
        function: '__tmainCRTStartup',
        file: './mingw-w64-crt/crt/crtexe.c',
        fullname: '/build/./mingw-w64-crt/crt/crtexe.c',
        line: 323,
      }),
    ).toBe(true);
    expect(isWindowsSystemFrame({ level: 0, function: '??', address: '0x20' })).toBe(true);
  });

  it("the user's own files are not, even in a folder called dlls/ (GDB resolves them to absolute paths)", () => {
    expect(isWindowsSystemFrame(f(0, 'transfer', 'deadlock.c:17'))).toBe(false);
    expect(
      isWindowsSystemFrame({
        level: 0,
        function: 'plugin_init',
        file: 'dlls/plugin.c',
        fullname: '/home/me/project/dlls/plugin.c',
        line: 4,
      }),
    ).toBe(false);
  });
});

describe('classifyWindowsWait', () => {
  it('a critical section is a mutex, though its innermost frames wait on an address', () => {
    expect(classifyWindowsWait(criticalSectionWait)).toBe('mutex');
  });

  it('Sleep and a console read (recorded from sleeper.exe)', () => {
    expect(
      classifyWindowsWait([
        f(0, 'NtDelayExecution', { lib: NTDLL }),
        f(1, 'Sleep', 'dlls/kernelbase/sync.c:57'),
        f(2, 'napper', 'sleeper.c:8'),
      ]),
    ).toBe('sleep');
    expect(
      classifyWindowsWait([
        f(0, 'NtReadFile', { lib: NTDLL }),
        f(1, 'ReadFile', 'dlls/kernelbase/file.c:3409'),
        f(2, 'read_i', 'dlls/msvcrt/file.c:2931'),
        f(3, '_read', 'dlls/msvcrt/file.c:3074'),
        f(4, '_filbuf', 'dlls/msvcrt/file.c:3846'),
        f(5, '_fgetc_nolock', 'dlls/msvcrt/file.c:3887'),
        f(6, 'fgets', 'dlls/msvcrt/file.c:3913'),
        f(7, 'main', 'sleeper.c:17'),
      ]),
    ).toBe('io (read)');
  });

  it('an object wait is named by the API the program called, not the ntdll call under it', () => {
    expect(
      classifyWindowsWait([
        f(0, 'NtWaitForMultipleObjects', { lib: NTDLL }),
        f(1, 'WaitForMultipleObjectsEx', 'dlls/kernelbase/sync.c:57'),
        f(2, 'WaitForMultipleObjectsEx', 'dlls/kernelbase/sync.c:299'),
        f(3, 'WaitForSingleObject', 'dlls/kernelbase/sync.c:300'),
        f(4, 'worker', 'threads.c:9'),
      ]),
    ).toBe('object (WaitForSingleObject)');
  });

  it('a spinning thread and the frames of user code below a wait are no wait', () => {
    expect(classifyWindowsWait([f(0, 'spin', 'hang.c:7'), f(1, 'main', 'hang.c:13')])).toBeUndefined();
    // A user function that happens to be called like an API is past the first user frame.
    expect(classifyWindowsWait([f(0, 'compute', 'app.c:3'), f(1, 'Sleep', 'app.c:9')])).toBeUndefined();
  });
});

describe('windowsAbortMessageInOutput', () => {
  it("finds mingw's assert line in output with Windows line ends (recorded from assert.exe)", () => {
    const out = 'checking\r\nAssertion failed: balance >= 0 && "balance went negative", file assert.c, line 6\r\n\r\n';
    expect(windowsAbortMessageInOutput(out)).toBe(
      'Assertion failed: balance >= 0 && "balance went negative", file assert.c, line 6',
    );
  });

  it("keeps the assert over the runtime's generic line after it, and finds the generic line alone", () => {
    const generic = 'This application has requested the Runtime to terminate it in an unusual way.';
    expect(windowsAbortMessageInOutput(`Assertion failed: x, file a.c, line 2\r\n${generic}\r\n`)).toBe(
      'Assertion failed: x, file a.c, line 2',
    );
    expect(windowsAbortMessageInOutput(`working\r\n${generic}\r\n`)).toBe(generic);
  });

  it('the message-box form and a C++ terminate', () => {
    expect(
      windowsAbortMessageInOutput('Assertion failed!\n\nProgram: C:\\a.exe\nFile: a.c, Line 3\n\nExpression: n > 0\n'),
    ).toMatch(/^Assertion failed![\s\S]*Expression: n > 0$/);
    expect(windowsAbortMessageInOutput("terminate called after throwing an instance of 'std::bad_alloc'\n")).toMatch(
      /bad_alloc/,
    );
    expect(windowsAbortMessageInOutput('all is well\r\n')).toBeUndefined();
  });
});

/** Memory of a stopped program: address → little-endian bytes. */
function reader(memory: Record<string, string>, symbols: Record<string, string> = {}): TargetReader {
  return {
    evaluate: async () => {
      throw new Error('not used');
    },
    readMemory: async (address, count) => {
      const hex = memory[address];
      if (hex === undefined) throw new Error(`Cannot access memory at address ${address}`);
      return [{ address, hex: hex.slice(0, count * 2) }];
    },
    symbolAt: async (address) => symbols[`0x${address.toString(16)}`],
  };
}

describe('windowsLockOwner', () => {
  it('reads OwningThread (offset 16) of the crit argument: ledger is held by Windows thread 0xf8 (recorded)', async () => {
    const owner = await windowsLockOwner(reader({ '0x14000c090': 'f800000000000000' }), 4, criticalSectionWait);
    expect(owner).toEqual({ mutex: 'ledger (0x14000c080)', ownerOsThread: 0xf8 });
  });

  it('names a heap critical section by its address, and gives up on an unowned or unreadable one', async () => {
    const onHeap = criticalSectionWait.map((fr) =>
      fr.args ? { ...fr, args: [{ name: 'crit', value: '0x346e90' }] } : fr,
    );
    expect(await windowsLockOwner(reader({ '0x346ea0': '2c01000000000000' }), 4, onHeap)).toEqual({
      mutex: '0x346e90',
      ownerOsThread: 300,
    });
    expect(await windowsLockOwner(reader({ '0x346ea0': '0000000000000000' }), 4, onHeap)).toBeUndefined();
    expect(await windowsLockOwner(reader({}), 4, onHeap)).toBeUndefined();
  });

  it('without a critical-section frame (or its argument) there is nothing to read', async () => {
    expect(await windowsLockOwner(reader({}), 2, [f(0, 'spin', 'hang.c:7')])).toBeUndefined();
    const noArgs = criticalSectionWait.map(({ args: _args, ...fr }) => fr);
    expect(await windowsLockOwner(reader({}), 4, noArgs)).toBeUndefined();
  });
});
