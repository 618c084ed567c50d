// Where a raw command goes on the winedbg backend (GDB through the proxy, or winedbg's prompt) and
// what the prompt refuses; the attach policy in Windows terms; the dbg_start target for a Windows
// pid; how the answers render a Windows exception and Windows line ends.
import { describe, expect, it } from 'vitest';
import { checkAttachPolicy, checkWindowsAttach } from '../../../src/backends/winedbg/windowsAttach.js';
import { parseWindowsPid, routeCommand } from '../../../src/backends/winedbg/winedbgCommands.js';
import { parseInfoProcess } from '../../../src/backends/winedbg/winedbgText.js';
import { defaultConfig } from '../../../src/server/config.js';
import { printableLines, renderException } from '../../../src/server/render.js';
import { foreignAttachTarget } from '../../../src/server/tools/startTarget.js';
import { DebuggerError } from '../../../src/util/errors.js';

describe('routeCommand', () => {
  it('GDB gets what is not for the prompt, unchanged', () => {
    expect(routeCommand('info frame', 'full')).toEqual({ to: 'gdb', text: 'info frame' });
    expect(routeCommand('bt', 'read')).toEqual({ to: 'gdb', text: 'bt' });
  });

  it('"winedbg CMD" goes to the prompt, and so does info process, which GDB does not have', () => {
    expect(routeCommand('winedbg info thread', 'full')).toEqual({ to: 'prompt', text: 'info thread' });
    expect(routeCommand('  info process ', 'read')).toEqual({ to: 'prompt', text: 'info process' });
    expect(routeCommand('winedbg info wnd', 'read')).toEqual({ to: 'prompt', text: 'info wnd' });
  });

  it('info share takes a Windows pid (hex or decimal); info exception is the session’s trace', () => {
    expect(routeCommand('winedbg info share 0x2c8', 'read')).toEqual({ to: 'modules', pid: 0x2c8 });
    expect(routeCommand('winedbg info share 712', 'read')).toEqual({ to: 'modules', pid: 712 });
    expect(routeCommand('winedbg info share', 'read')).toMatchObject({ refused: expect.stringMatching(/Windows pid/) });
    expect(routeCommand('winedbg info exception', 'read')).toEqual({ to: 'exceptions' });
  });

  it('the shared prompt never attaches, runs a process or ends, whatever the policy', () => {
    for (const c of ['attach 0x20', 'detach', 'kill', 'quit', 'cont', 'step', 'run']) {
      expect(routeCommand(`winedbg ${c}`, 'full')).toMatchObject({ refused: expect.stringMatching(/shared/) });
    }
    expect(routeCommand('winedbg', 'full')).toMatchObject({ refused: expect.any(String) });
  });

  it('read allows the listings only; full the rest', () => {
    expect(routeCommand('winedbg info regs', 'read')).toMatchObject({ refused: expect.stringMatching(/read-only/) });
    expect(routeCommand('winedbg info regs', 'full')).toEqual({ to: 'prompt', text: 'info regs' });
  });

  it('parseWindowsPid', () => {
    expect(parseWindowsPid('0x114')).toBe(276);
    expect(parseWindowsPid('276')).toBe(276);
    expect(parseWindowsPid('0')).toBeUndefined();
    expect(parseWindowsPid('12a')).toBeUndefined();
  });
});

/** `info process` of a prefix with one session's program and Wine's services (recorded). */
const PROCESSES = parseInfoProcess(
  [
    ' pid      threads  executable (all id:s are in hex)',
    " 0000011c 1        'start.exe'",
    "=00000124 1        \\_ 'winedbg.exe'",
    " 000000f8 1        'dbgmcp-launch-6ab2806bc4ebd300.exe'",
    " 00000100 2        \\_ 'locals.exe'",
    " 000000f0 1        'hang.exe'",
    " 00000038 7        'services.exe'",
    " 000000ac 3        \\_ 'svchost.exe'",
  ].join('\n'),
);

describe('the attach policy for Windows pids', () => {
  it('own and any: a program of the prefix', () => {
    expect(checkWindowsAttach(0xf0, 'own', PROCESSES).name).toBe('hang.exe');
    expect(checkWindowsAttach(0x100, 'any', PROCESSES).name).toBe('locals.exe');
  });

  it("refuses Wine's own processes, the launcher and winedbg", () => {
    for (const pid of [0x38, 0xac, 0xf8, 0x124, 0x11c]) {
      expect(() => checkWindowsAttach(pid, 'own', PROCESSES)).toThrow(/Wine's own processes/);
    }
  });

  it('an unknown pid is refused with the programs that do run', () => {
    expect(() => checkWindowsAttach(0x999, 'own', PROCESSES)).toThrow(
      /programs there: 0x100 locals.exe, 0xf0 hang.exe/,
    );
  });

  it('none refuses, and a list (of Unix pids) cannot name a Windows pid', () => {
    expect(() => checkAttachPolicy(0xf0, 'none')).toThrow(/off on this server/);
    expect(() => checkAttachPolicy(0xf0, [1234])).toThrow(/lists Unix pids/);
    expect(() => checkAttachPolicy(0, 'any')).toThrow(/not a Windows process id/);
  });
});

describe('foreignAttachTarget (dbg_start attach with backend winedbg)', () => {
  const config = defaultConfig();

  it('an attach target named in Windows terms', () => {
    expect(foreignAttachTarget({ backend: 'winedbg', attach: 276 }, config)).toEqual({
      kind: 'winedbg',
      target: { kind: 'attach', pid: 276 },
      what: 'attached to Windows pid 276 (0x114)',
    });
  });

  it('refuses by policy alone, and what an attach by Windows pid cannot take', () => {
    const refused = (args: Parameters<typeof foreignAttachTarget>[0], attachPids = config.attachPids) => {
      try {
        foreignAttachTarget(args, { ...config, attachPids });
        return 'accepted';
      } catch (e) {
        return e instanceof DebuggerError ? `${e.code}: ${e.message}` : String(e);
      }
    };
    expect(refused({ backend: 'winedbg', attach: 276 }, 'none')).toMatch(/^invalid_argument: attach: attaching is off/);
    expect(refused({ backend: 'winedbg', attach: 276 }, [276])).toMatch(/lists Unix pids/);
    expect(refused({ backend: 'winedbg', attach: 276, program: '/x.exe' })).toMatch(/^invalid_argument: program/);
    expect(refused({ backend: 'winedbg', attach: 276, remote: 'localhost:1' })).toMatch(/^invalid_argument: remote/);
  });
});

describe('rendering', () => {
  it('an inferred access violation says what, where, and that it is inferred', () => {
    expect(
      renderException({
        code: 0xc0000005,
        name: 'EXCEPTION_ACCESS_VIOLATION',
        meaning: 'a NULL, dangling or wild pointer',
        access: 'write',
        address: '0x0',
        inferredFrom: 'the faulting instruction `mov %edx,(%rax)`',
      }),
    ).toBe(
      'exception: EXCEPTION_ACCESS_VIOLATION 0xc0000005; write of 0x0 (inferred from the faulting instruction `mov %edx,(%rax)`): a NULL, dangling or wild pointer',
    );
    expect(
      renderException({ code: 0xc0000094, name: 'EXCEPTION_INT_DIVIDE_BY_ZERO', meaning: 'x', secondChance: true }),
    ).toMatch(/0xc0000094: x; second chance/);
  });

  it('a Windows line end is a line end; a lone carriage return stays visible', () => {
    expect(printableLines('ready\r\ngot:hello\r\n')).toEqual(['ready', 'got:hello', '']);
    expect(printableLines('50%\rdone')).toEqual(['50%\\x0ddone']);
  });
});
