// QEMU user mode: an AArch64 program under `qemu-aarch64 -g PORT`, debugged with the GDB that
// understands it (gdb-multiarch here); breakpoints, stack, registers and disassembly all work on
// the foreign architecture, and a sysroot gives GDB the target's libraries.
import { describe, expect, it } from 'vitest';
import { chooseGdb } from '../../../src/backends/gdb/gdbTargets.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import {
  type CrashViewData,
  gatherView,
  type LibrariesViewData,
  type RegistersViewData,
  type ViewRequest,
} from '../../../src/session/evidence.js';
import type { Session } from '../../../src/session/session.js';
import { expectStopped, insertBreakpoint, WAIT_MS } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { newManager, openTarget } from '../../helpers/sessions.js';
import { freePort, requireBuilt, requireTool, startProcess } from '../../helpers/targets.js';

const SYSROOT = '/usr/aarch64-linux-gnu';

/** The program under qemu-aarch64 -g on a free port. QEMU prints nothing when it is ready. */
async function underQemu(program: string, args: string[], sysroot?: string): Promise<string> {
  const qemu = requireTool('qemu-aarch64', 'qemu-user');
  const port = await freePort();
  startProcess(qemu, [...(sysroot ? ['-L', sysroot] : []), '-g', String(port), program, ...args]);
  return `127.0.0.1:${port}`;
}

function view<T>(session: Session, req: ViewRequest): Promise<T> {
  return session.query(['stopped'], req.view, async (b) => {
    const v = await gatherView(b, session.snapshot, req);
    if (!v.data) throw new Error(`${req.view}: ${v.failures.join('; ')}`);
    return v.data as T;
  });
}

describe('QEMU user mode (AArch64)', () => {
  it('picks gdb-multiarch for an AArch64 program and the configured gdb for a native one', async () => {
    requireTool('gdb-multiarch', 'gdb-multiarch');
    const arm = requireBuilt(fixture('crash-aarch64'), 'gcc-aarch64-linux-gnu');
    const env = childEnvironment(process.env);
    const foreign = await chooseGdb('gdb', arm, env);
    expect(foreign.gdbPath).toMatch(/\/gdb-multiarch$/);
    expect(foreign.note).toBe('AArch64 program: debugging it with gdb-multiarch');
    expect(await chooseGdb('gdb', fixture('crash'), env)).toEqual({ gdbPath: 'gdb' });
  });

  it('breakpoints, stack, registers, disassembly and the crash view on AArch64', async () => {
    requireTool('gdb-multiarch', 'gdb-multiarch');
    const program = requireBuilt(fixture('crash-aarch64'), 'gcc-aarch64-linux-gnu');
    const remote = await underQemu(program, ['segv']);
    const { session, outcome, warnings } = await openTarget(newManager(), {
      kind: 'remote',
      remote,
      load: { program, args: [] },
      timeoutMs: WAIT_MS,
    });
    expect(warnings).toContain('AArch64 program: debugging it with gdb-multiarch');
    expect(session.backend.info.version).toMatch(/GNU gdb/);
    expectStopped(outcome ?? { kind: 'running' }, 'the connect');
    const bp = await insertBreakpoint(session, { kind: 'breakpoint', location: { function: 'update' } });
    const hit = expectStopped(await session.run({ action: 'continue', timeoutMs: WAIT_MS }));
    expect(hit.stop).toMatchObject({ reason: 'breakpoint-hit', breakpoint: bp.number });
    const frames = await session.query(['stopped'], 'stack', (b) => b.stack({ withArgs: true }));
    expect(frames.map((f) => f.function).slice(0, 3)).toEqual(['update', 'process', 'main']);
    expect(frames[0]?.args).toContainEqual(expect.objectContaining({ name: 'value', value: '6' }));
    const regs = await view<RegistersViewData>(session, { view: 'registers' });
    const names = regs.registers.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['x0', 'x29', 'x30', 'sp', 'pc', 'cpsr']));
    expect(names).not.toContain('v0');
    const pc = regs.registers.find((r) => r.name === 'pc')?.value;
    expect(pc).toBe(hit.stop.frame?.address?.replace(/^0x0+/, '0x'));
    const { instructions: code } = await session.query(['stopped'], 'disassemble', (b) =>
      b.disassemble({ span: { function: 'update' } }),
    );
    // A64 mnemonics and registers, not x86's.
    expect(code.map((i) => i.instruction).join('\n')).toMatch(/\bldr\s+w\d+, \[sp/);
    expect(code.some((i) => /%[re]?[a-d]x/.test(i.instruction))).toBe(false);
    const crash = expectStopped(await session.run({ action: 'continue', timeoutMs: WAIT_MS }));
    expect(crash.stop.signal?.name).toBe('SIGSEGV');
    const cv = await view<CrashViewData>(session, { view: 'crash' });
    const fns = cv.stack.flatMap((e) => ('function' in e ? [e.function] : []));
    expect(fns.slice(0, 4)).toEqual(['store', 'update', 'process', 'main']);
    expect(cv.instruction?.instruction).toMatch(/^str\s/);
  });

  it("a sysroot gives GDB the target's libraries", async () => {
    requireTool('gdb-multiarch', 'gdb-multiarch');
    const program = requireBuilt(fixture('crash-aarch64-dyn'), 'gcc-aarch64-linux-gnu');
    requireBuilt(`${SYSROOT}/lib/libc.so.6`, 'libc6-dev-arm64-cross');
    const remote = await underQemu(program, ['segv'], SYSROOT);
    const { session } = await openTarget(newManager(), {
      kind: 'remote',
      remote,
      load: { program, args: [] },
      sysroot: SYSROOT,
      timeoutMs: WAIT_MS,
    });
    await insertBreakpoint(session, { kind: 'breakpoint', location: { function: 'main' } });
    const atMain = expectStopped(await session.run({ action: 'continue', timeoutMs: WAIT_MS }));
    expect(atMain.stop.frame?.function).toBe('main');
    const libs = await view<LibrariesViewData>(session, { view: 'libraries' });
    const libc = libs.libraries.find((l) => /libc\.so\.6$/.test(l.path));
    expect(libc?.symbolsLoaded).toBe(true);
    // GDB read the AArch64 libc from the sysroot (the host's /lib/libc.so.6 is x86-64).
    const info = await session.mutate(['stopped'], 'list libraries', (b) =>
      b.command('info sharedlibrary', { policy: 'full' }),
    );
    expect(info.output).toContain(`${SYSROOT}/lib/libc.so.6`);
  });
});
