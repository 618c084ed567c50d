// The hardware probe against reality: whatever it says about this machine, a user's hardware
// watchpoint and hardware breakpoint on a real program must behave the same way. On the
// Firecracker VM this was written on both are 'dead'; on most hosts both 'work'.
import { afterAll, describe, expect, it } from 'vitest';
import { type MachineProbe, probeMachine } from '../../../src/backends/gdb/gdbHardwareProbe.js';
import { narrowStop } from '../../../src/backends/gdb/gdbNarrow.js';
import { GdbProbeProcess } from '../../../src/backends/gdb/gdbProbeProcess.js';
import { RECORD_ENVIRONMENT } from '../../../src/backends/gdb/gdbRecord.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import { WAIT_MS } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { descendants } from '../../helpers/procfs.js';

const env = childEnvironment(process.env);
let probed: Promise<MachineProbe> | undefined;
const probe = (): Promise<MachineProbe> => {
  probed ??= probeMachine({ gdbPath: 'gdb', env, commandTimeoutMs: WAIT_MS });
  return probed;
};

/** Runs counter (3 rounds) with one hardware stop asked for; true when that stop came. */
async function userStopFires(kind: 'watch' | 'hbreak'): Promise<boolean> {
  const gdb = await GdbProbeProcess.start({ gdbPath: 'gdb', env, commandTimeoutMs: WAIT_MS });
  try {
    await gdb.send('file-exec-and-symbols', [fixture('counter')]);
    await gdb.send('exec-arguments', { raw: '3' });
    await gdb.send('break-insert', ['-t', 'main']);
    const atMain = await gdb.resume(() => gdb.send('exec-run'));
    expect(atMain?.['reason']).toBe('breakpoint-hit');
    if (kind === 'watch') {
      await gdb.send('break-watch', ['total']);
    } else {
      await gdb.send('break-insert', ['-h', 'tick']);
    }
    const listed = JSON.stringify((await gdb.send('break-list')).results);
    expect(listed).toContain(kind === 'watch' ? 'hw watchpoint' : 'hw breakpoint');
    const next = await gdb.resume();
    if (next === undefined) throw new Error('no stop after continue');
    if (String(next['reason']).startsWith('exited')) return false;
    const stop = narrowStop(next);
    expect(stop.reason).toBe(kind === 'watch' ? 'watchpoint-trigger' : 'breakpoint-hit');
    return true;
  } finally {
    await gdb.close();
  }
}

afterAll(async () => {
  await probed;
});

describe('hardware debug probe', () => {
  it('reaches a verdict on this machine, and says which', async (ctx) => {
    const { hardware } = await probe();
    await ctx.annotate(`watchpoints ${hardware.watchpoints}, breakpoints ${hardware.breakpoints}, ${hardware.ms} ms`);
    await ctx.annotate(hardware.detail);
    expect(['work', 'dead']).toContain(hardware.watchpoints);
    expect(['work', 'dead']).toContain(hardware.breakpoints);
    expect(hardware.detail).toMatch(/hardware watchpoint on the stack slot 0x[0-9a-f]+/);
  });

  it("agrees with a user's hardware watchpoint on a real program", async (ctx) => {
    const { hardware } = await probe();
    const fired = await userStopFires('watch');
    await ctx.annotate(
      `probe: ${hardware.watchpoints}; a watchpoint on counter's total ${fired ? 'fired' : 'never fired'}`,
    );
    expect(fired ? 'work' : 'dead').toBe(hardware.watchpoints);
  });

  it("agrees with a user's hardware breakpoint on a real program", async (ctx) => {
    const { hardware } = await probe();
    const fired = await userStopFires('hbreak');
    await ctx.annotate(`probe: ${hardware.breakpoints}; hbreak tick ${fired ? 'fired' : 'never fired'}`);
    expect(fired ? 'work' : 'dead').toBe(hardware.breakpoints);
  });

  it('catches the write and the instruction with software ones (the control: its method is sound)', async () => {
    const control = await probeMachine({ gdbPath: 'gdb', env, commandTimeoutMs: WAIT_MS, mechanism: 'software' });
    expect(control.hardware).toMatchObject({ watchpoints: 'work', breakpoints: 'work' });
    expect(control.hardware.detail).toMatch(/software watchpoint on the stack slot 0x[0-9a-f]+ fired/);
  });

  it('tells whether the program can be called into, from the same stop', async (ctx) => {
    const { calls } = await probe();
    await ctx.annotate(`inferior calls: ${calls.inferiorCalls} (${calls.detail})`);
    expect(['work', 'broken']).toContain(calls.inferiorCalls);
  });

  it("agrees with a user's reverse run over a recorded real program", async (ctx) => {
    const { record } = await probe();
    // corrupt recorded from main to its crash, as dbg_start record=true records it, then run back.
    const gdb = await GdbProbeProcess.start({ gdbPath: 'gdb', env, commandTimeoutMs: WAIT_MS });
    let end: Awaited<ReturnType<GdbProbeProcess['runUntilStopOrError']>>;
    try {
      await gdb.send('file-exec-and-symbols', [fixture('corrupt')]);
      for (const [name, value] of Object.entries(RECORD_ENVIRONMENT)) {
        await gdb.send('gdb-set', { raw: `environment ${name} ${value}` });
      }
      await gdb.send('break-insert', ['-t', 'main']);
      expect((await gdb.resume(() => gdb.send('exec-run')))?.['reason']).toBe('breakpoint-hit');
      await gdb.cli('record full');
      expect((await gdb.resume())?.['signal-name']).toBe('SIGSEGV');
      end = await gdb.runUntilStopOrError(() => gdb.send('exec-continue', ['--reverse']), WAIT_MS);
    } finally {
      await gdb.close();
    }
    const seen = 'stop' in end ? `stopped (${String(end.stop['reason'])})` : 'error' in end ? end.error : end.none;
    await ctx.annotate(`probe: ${record.reverse} (${record.detail}); corrupt run back from its crash: ${seen}`);
    if (record.reverse === 'broken') {
      expect(end).toEqual({ error: expect.stringMatching(/Couldn't write extended state status/) });
    } else {
      expect(record.reverse).toBe('work');
      expect('stop' in end && end.stop['reason']).toBe('no-history');
    }
  });

  it('leaves no gdb and no program behind', async () => {
    await probe();
    const left = descendants().filter((p) => p.comm === 'gdb' || p.comm === 'true');
    expect(left).toEqual([]);
  });

  it("says 'unknown', never 'dead', when the probe cannot run", async () => {
    const noGdb = await probeMachine({ gdbPath: '/nonexistent/gdb', env });
    expect(noGdb.hardware).toMatchObject({ watchpoints: 'unknown', breakpoints: 'unknown' });
    expect(noGdb.hardware.detail).toMatch(/could not start/);
    // A file that is not a program: gdb refuses it before anything runs.
    const notProgram = await probeMachine({ gdbPath: 'gdb', env, program: fixture('../counter.c') });
    expect(notProgram.hardware).toMatchObject({ watchpoints: 'unknown', breakpoints: 'unknown' });
    expect(notProgram.calls.inferiorCalls).toBe('unknown');
    expect(notProgram.record.reverse).toBe('unknown');
  });
});
