// Watchpoints through the GDB backend on this machine's hardware, as the probe found it: where
// hardware watchpoints never fire (some VMs), a write watchpoint is set in software and still
// stops, GDB's setting follows the session's mode, and hardware=true is honoured with a warning.
// Where they work, nothing changes. The test says which machine it ran on.
import { describe, expect, it } from 'vitest';
import type { BreakpointSpec, SetBreakpoint } from '../../../src/backends/debuggerBackend.js';
import type { Session } from '../../../src/session/session.js';
import { hardwareVerdicts } from '../../helpers/machine.js';
import { expectStopped, WAIT_MS } from '../../helpers/outcomes.js';
import { loaded } from '../../helpers/sessions.js';

const wait = { timeoutMs: WAIT_MS };

function set(s: Session, spec: BreakpointSpec): Promise<SetBreakpoint> {
  return s.mutate(['stopped'], 'set a watchpoint', (b) => b.insertBreakpoint(spec));
}

describe('watchpoints on this machine', () => {
  it('a write watchpoint stops, in the mechanism the probe says works; hardware=true is honoured', async (ctx) => {
    const hardware = await hardwareVerdicts();
    await ctx.annotate(`hardware watchpoints here: ${hardware.watchpoints} (${hardware.detail})`);
    if (hardware.watchpoints === 'unknown') ctx.skip(`the probe could not tell: ${hardware.detail}`);
    const dead = hardware.watchpoints === 'dead';
    const s = await loaded('loop');
    expectStopped(await s.run({ action: 'run', startMode: 'main', ...wait }), 'run to main');

    const soft = await set(s, { kind: 'watchpoint', expression: 'total' });
    expect(soft.breakpoint.type).toBe(dead ? 'watchpoint' : 'hw watchpoint');
    expect(soft.warnings).toEqual(dead ? [expect.stringMatching(/software watchpoint because hardware/)] : []);
    const hit = expectStopped(await s.run({ action: 'continue', ...wait }), 'continue to the write');
    expect(hit.stop).toMatchObject({ reason: 'watchpoint-trigger', breakpoint: soft.breakpoint.number });

    // Asked for in hardware: set so, and said to be unlikely to fire where the probe saw them dead.
    const hard = await set(s, { kind: 'watchpoint', expression: 'i', hardware: true });
    expect(hard.breakpoint.type).toBe('hw watchpoint');
    expect(hard.warnings).toEqual(dead ? [expect.stringMatching(/^hardware watchpoint \d+ may never trigger/)] : []);

    // Back to the machine's mode for the next one.
    const again = await set(s, { kind: 'watchpoint', expression: 'total', hardware: false });
    expect(again.breakpoint.type).toBe(dead ? 'watchpoint' : 'hw watchpoint');
  });

  it('a read watchpoint is refused with the reason where only software ones work', async (ctx) => {
    const hardware = await hardwareVerdicts();
    if (hardware.watchpoints !== 'dead')
      ctx.skip(`hardware watchpoints are ${hardware.watchpoints} here: read ones are set`);
    const s = await loaded('data');
    expectStopped(await s.run({ action: 'run', startMode: 'main', ...wait }), 'run to main');
    await expect(set(s, { kind: 'watchpoint', expression: 'reads', access: 'read' })).rejects.toMatchObject({
      code: 'backend_unavailable',
      message: expect.stringMatching(/^a read watchpoint needs the CPU's debug registers/),
    });
  });
});
