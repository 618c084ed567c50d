// Hardware or software for each watchpoint and breakpoint, from the probe's verdicts: the dead
// verdict is the one measured on a Firecracker VM (its detail is the probe's own words there).
import { describe, expect, it } from 'vitest';
import { probeChecks, recordCheck } from '../../../src/backends/gdb/gdbDoctor.js';
import { chooseHardware } from '../../../src/backends/gdb/gdbHardwareChoice.js';
import type { MachineProbe } from '../../../src/backends/machineProbe.js';

const WATCHED =
  'the hardware watchpoint on the stack slot 0x7fffffffed48 never fired although the slot was written (0x0 → 0x7ffff7fe4b78)';
const BROKE = 'the hardware breakpoint at 0x7ffff7fe4b78 never fired although that instruction ran';
const dead = {
  watchpoints: 'dead',
  breakpoints: 'dead',
  detail: `${WATCHED}; ${BROKE}`,
  watchpointDetail: WATCHED,
  breakpointDetail: BROKE,
} as const;
const work = { watchpoints: 'work', breakpoints: 'work', detail: 'fired' } as const;
const unknown = { watchpoints: 'unknown', breakpoints: 'unknown', detail: 'probe inconclusive' } as const;

describe('chooseHardware', () => {
  it('sets a write watchpoint in software where hardware ones are dead, and says why in one warning', () => {
    const c = chooseHardware({ kind: 'watchpoint', expression: 'total' }, dead);
    expect(c.hardwareWatchpoints).toBe(false);
    expect(c.saysSoftware).toBe(true);
    const [w, ...rest] = c.warnings('2');
    expect(rest).toEqual([]);
    expect(w).toMatch(/^watchpoint 2 is a software watchpoint because hardware watchpoints never fire on this machine/);
    expect(w).toContain(`(${WATCHED})`);
    expect(w).not.toContain(BROKE);
    expect(w).toMatch(/slow/);
    expect(w).toMatch(/current thread's scope/);
  });

  it('refuses read and access watchpoints where hardware ones are dead: GDB has no software ones', () => {
    for (const access of ['read', 'access'] as const) {
      expect(() => chooseHardware({ kind: 'watchpoint', expression: 'x', access }, dead)).toThrow(
        expect.objectContaining({
          code: 'backend_unavailable',
          message: expect.stringMatching(
            new RegExp(`^a ${access} watchpoint needs the CPU's debug registers.*access=write`),
          ),
        }),
      );
    }
  });

  it('honours hardware=true on a dead machine, with a warning that it may never trigger', () => {
    const c = chooseHardware({ kind: 'watchpoint', expression: 'x', access: 'read', hardware: true }, dead);
    expect(c.hardwareWatchpoints).toBe(true);
    expect(c.warnings('4')).toEqual([expect.stringMatching(/^hardware watchpoint 4 may never trigger: .*never fire/)]);
    const b = chooseHardware({ kind: 'breakpoint', location: { function: 'square' }, hardware: true }, dead);
    expect(b.hardwareWatchpoints).toBeUndefined();
    expect(b.warnings('3')).toEqual([expect.stringMatching(/^hardware breakpoint 3 may never stop the program/)]);
    expect(b.warnings('3')[0]).toContain(`(${BROKE})`);
  });

  it('changes nothing where hardware works, or where the probe could not tell', () => {
    for (const probed of [work, unknown]) {
      for (const spec of [
        { kind: 'watchpoint', expression: 'x' },
        { kind: 'watchpoint', expression: 'x', access: 'read' },
        { kind: 'breakpoint', location: { function: 'f' }, hardware: true },
      ] as const) {
        const c = chooseHardware(spec, probed);
        expect(c.hardwareWatchpoints).toBeUndefined();
        expect(c.warnings('1')).toEqual([]);
      }
    }
  });

  it('leaves software breakpoints alone on a dead machine', () => {
    const c = chooseHardware({ kind: 'breakpoint', location: { function: 'f' } }, dead);
    expect(c.warnings('1')).toEqual([]);
  });
});

describe('the doctor lines from the probe', () => {
  const probe = (
    hardware: typeof dead | typeof work | typeof unknown,
    calls: MachineProbe['calls'],
    record: MachineProbe['record'] = { reverse: 'work', detail: 'came back to the start of the history' },
  ): MachineProbe => ({
    hardware: { ...hardware, ms: 300 },
    calls,
    record,
  });

  it('names dead hardware with what the server does instead', () => {
    const lines = probeChecks(probe(dead, { inferiorCalls: 'work', detail: 'calling getpid() in the program worked' }));
    expect(lines.map((l) => [l.name, l.ok])).toEqual([
      ['hardware watchpoints', false],
      ['hardware breakpoints', false],
      ['inferior calls', true],
    ]);
    expect(lines[0]?.detail).toBe(WATCHED);
    expect(lines[1]?.detail).toBe(BROKE);
    expect(lines[0]?.fix).toMatch(/set in software here/);
    expect(lines[1]?.fix).toMatch(/hardware=true may never stop/);
    expect(lines[2]?.detail).toMatch(/^possible \(off unless --inferior-calls on\): calling getpid/);
  });

  it('says ok where the hardware works, and what breaks inferior calls', () => {
    const lines = probeChecks(
      probe(work, { inferiorCalls: 'broken', detail: "gdb cannot write back this CPU's extended register state" }),
    );
    expect(lines.map((l) => l.ok)).toEqual([true, true, false]);
    expect(lines[0]?.fix).toBeUndefined();
    expect(lines[2]).toMatchObject({ detail: /^not possible here: gdb cannot/, fix: /newer gdb/ });
  });

  it('says an unknown verdict is not known, and offers no fix for it', () => {
    const lines = probeChecks(probe(unknown, { inferiorCalls: 'unknown', detail: 'not tried' }));
    expect(lines.map((l) => [l.ok, l.detail, l.fix])).toEqual([
      [false, 'not known: probe inconclusive', undefined],
      [false, 'not known: probe inconclusive', undefined],
      [false, 'not known: not tried', undefined],
    ]);
  });

  it('says whether process record runs backwards, from the reverse run the probe made', () => {
    const works = recordCheck(probe(work, { inferiorCalls: 'work', detail: '' }));
    expect(works).toMatchObject({
      name: 'record full',
      ok: true,
      detail: /^reverse execution works .*start of the history/,
    });
    const broken = recordCheck(
      probe(
        work,
        { inferiorCalls: 'broken', detail: '' },
        { reverse: 'broken', detail: "Couldn't write extended state status" },
      ),
    );
    expect(broken).toMatchObject({
      ok: false,
      detail: /^reverse execution does not work here, so record=true is refused: Couldn't write extended state status$/,
      fix: /another CPU, or a gdb newer than 13 .* rr/,
    });
    const unknownLine = recordCheck(
      probe(work, { inferiorCalls: 'work', detail: '' }, { reverse: 'unknown', detail: 'no answer' }),
    );
    expect(unknownLine).toEqual({ name: 'record full', ok: false, detail: 'not known: no answer' });
  });
});
