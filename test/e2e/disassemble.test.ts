// dbg_disassemble end to end: around the pc, a function, a range, with source, in another frame.
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/inProcess.js';
import { fixture } from '../helpers/paths.js';

interface Insn {
  address: string;
  function?: string;
  offset?: number;
  instruction: string;
  line?: number;
  file?: string;
}

async function inSquare() {
  const h = await startInProcess();
  const r = await h.call('dbg_start', { program: fixture('loop'), breakpoints: [{ location: 'square' }] });
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped', frame: { function: 'square' } });
  const id = r.data.session_id as string;
  const disassemble = (args: Record<string, unknown>) => h.call('dbg_disassemble', { session_id: id, ...args });
  return { h, id, disassemble, pc: BigInt(r.data.outcome.frame.address) };
}

describe('dbg_disassemble', () => {
  it('shows the instructions around the pc, marking it', async () => {
    const { disassemble, pc } = await inSquare();
    const r = await disassemble({});
    expect(r.isError).toBe(false);
    expect(BigInt(r.data.pc)).toBe(pc);
    const list = r.data.instructions as Insn[];
    expect(list.length).toBeGreaterThan(4);
    expect(list.length).toBeLessThanOrEqual(24);
    expect(list.every((i) => i.function === 'square')).toBe(true);
    expect(list.some((i) => BigInt(i.address) === pc)).toBe(true);
    const marked = r.text.split('\n').filter((l) => l.startsWith('=> '));
    expect(marked).toEqual([expect.stringMatching(new RegExp(`^=> 0x${pc.toString(16)} <square\\+\\d+>: `))]);
    expect(r.text).toMatch(/^ {3}0x[0-9a-f]+ <square\+0>: push +%rbp$/m);
  });

  it('caps the window at count and says there is more', async () => {
    const { disassemble, pc } = await inSquare();
    const r = await disassemble({ count: 3 });
    const list = r.data.instructions as Insn[];
    expect(list).toHaveLength(3);
    expect(list.some((i) => BigInt(i.address) === pc)).toBe(true);
    expect(r.data.more).toBe(true);
    expect(r.text).toMatch(/more instructions/);
  });

  it('disassembles a function from its start, and a range', async () => {
    const { disassemble, pc } = await inSquare();
    const fn = await disassemble({ function: 'main', count: 400 });
    const list = fn.data.instructions as Insn[];
    expect(list[0]).toMatchObject({ function: 'main', offset: 0 });
    expect(list.at(-1)?.instruction).toMatch(/^ret/);
    expect(fn.data.more).toBeUndefined();
    expect(list.some((i) => /call +0x[0-9a-f]+ <square>/.test(i.instruction))).toBe(true);
    expect(fn.text).not.toContain('=>');

    const range = await disassemble({ start: `0x${pc.toString(16)}`, end: `0x${(pc + 8n).toString(16)}` });
    const inRange = range.data.instructions as Insn[];
    expect(inRange.length).toBeGreaterThan(0);
    expect(BigInt(inRange[0]?.address ?? '0')).toBe(pc);
    for (const i of inRange) expect(BigInt(i.address) < pc + 8n).toBe(true);
    expect(range.text.split('\n')[1]).toMatch(/^=> /);

    const open = await disassemble({ start: '$pc', count: 5 });
    expect(open.data.instructions).toHaveLength(5);
  });

  it('interleaves the source lines', async () => {
    const { disassemble } = await inSquare();
    const r = await disassemble({ function: 'square', with_source: true, count: 40 });
    const list = r.data.instructions as Insn[];
    expect(list.every((i) => i.file === 'loop.c' && typeof i.line === 'number')).toBe(true);
    expect(r.data.source).toContainEqual({ file: 'loop.c', line: 7, text: '  int r = v * v;' });
    expect(r.text).toContain('loop.c:7  int r = v * v;');
    expect(r.text).toContain('loop.c:8  return r;');
  });

  it('frame 1 shows the caller, marking the return address', async () => {
    const { h, id, disassemble } = await inSquare();
    const r = await disassemble({ frame: 1, count: 6 });
    const list = r.data.instructions as Insn[];
    expect(list.every((i) => i.function === 'main')).toBe(true);
    const pc = await h.call('dbg_evaluate', { session_id: id, expressions: ['(long)$pc'], frame: 1 });
    expect(BigInt(r.data.pc)).toBe(BigInt(pc.data.results[0].value));
    expect(r.text).toMatch(/^=> 0x[0-9a-f]+ <main\+\d+>/m);
  });

  it('a loaded program can be disassembled by function, not around a pc', async () => {
    const h = await startInProcess();
    const s = await h.call('dbg_start', { program: fixture('loop'), stop: 'no-run' });
    const id = s.data.session_id;
    const fn = await h.call('dbg_disassemble', { session_id: id, function: 'square', count: 2 });
    expect(fn.data.instructions[0]).toMatchObject({ function: 'square', offset: 0 });
    expect(fn.data.pc).toBeUndefined();
    const around = await h.call('dbg_disassemble', { session_id: id });
    expect(around).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(around.data.error.message).toMatch(/give function or start/);
  });

  it('refuses bad arguments, and stale stops', async () => {
    const { h, id, disassemble } = await inSquare();
    for (const args of [
      { count: 0 },
      { count: 401 },
      { function: 'main', start: '$pc' },
      { end: '$pc+4' },
      { function: 'main\nkill' },
      { with_source: 'yes' },
      { opcodes: true },
    ]) {
      const r = await disassemble(args);
      expect(r, JSON.stringify(args)).toMatchObject({ isError: true, code: 'invalid_argument' });
    }
    const unknown = await disassemble({ function: 'no_such_function' });
    expect(unknown).toMatchObject({ isError: true, code: 'debugger_error' });
    await h.call('dbg_run', { session_id: id, action: 'next' });
    expect((await disassemble({ stop_id: 1 })).code).toBe('stale_context');
  });
});
