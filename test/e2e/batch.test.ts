// dbg_batch end to end: several reads bound to one stop, each with its own result or error, and
// stale_context rather than evidence from two stops.
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/inProcess.js';
import { at } from '../helpers/markers.js';
import { fixture } from '../helpers/paths.js';

async function atReport() {
  const h = await startInProcess();
  const r = await h.call('dbg_start', {
    program: fixture('data'),
    breakpoints: [{ location: at('data.c', '@report') }],
    inspect: ['none'],
  });
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped' });
  const id = r.data.session_id as string;
  const batch = (args: Record<string, unknown>) => h.call('dbg_batch', { session_id: id, ...args });
  return { h, id, batch };
}

describe('dbg_batch', () => {
  it('runs every kind of read at one stop, results in order', async () => {
    const { batch } = await atReport();
    const r = await batch({
      stop_id: 1,
      operations: [
        { op: 'inspect', view: 'locals' },
        { op: 'evaluate', expressions: ['counter', 'scaled'], format: 'hex' },
        { op: 'memory', address: '&greeting', length: 2 },
        { op: 'disassemble', count: 2 },
        { op: 'inspect', view: 'stack', stack_depth: 1 },
        { op: 'evaluate', expressions: ['v'], frame: 0, thread: 1 },
      ],
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.stop_id).toBe(1);
    expect(r.data.session).toMatchObject({ state: 'stopped', stop_id: 1 });
    const [locals, values, memory, code, stack, missing] = r.data.results;
    expect(r.data.results.map((x: { op: string }) => x.op)).toEqual([
      'inspect',
      'evaluate',
      'memory',
      'disassemble',
      'inspect',
      'evaluate',
    ]);
    expect(locals.view).toBe('locals');
    expect(locals.data.variables).toContainEqual({ name: 'counter', value: '5', type: 'int' });
    expect(values.results).toEqual([
      { expression: 'counter', value: '0x5' },
      { expression: 'scaled', value: '0xf' },
    ]);
    expect(memory).toMatchObject({ op: 'memory', length: 2, hex: '4869' });
    expect(code.instructions).toHaveLength(2);
    expect(code.pc).toMatch(/^0x/);
    expect(stack.data.frames).toEqual([expect.objectContaining({ function: 'main' })]);
    expect(missing.results[0].error).toMatch(/No symbol "v"/);
    expect(r.text).toMatch(/^6 operations at stop 1$/m);
    expect(r.text).toContain('#2 evaluate:\n  counter = 0x5');
    expect(r.text).toContain('#3 memory:');
  });

  it("one op's error is its own; the others still answer", async () => {
    const { batch } = await atReport();
    const r = await batch({
      operations: [
        { op: 'memory', address: '0', length: 4 },
        { op: 'evaluate', expressions: ['counter'] },
        { op: 'disassemble', function: 'no_such_function' },
        { op: 'inspect', view: 'frame', frame: 40 },
      ],
    });
    expect(r.isError).toBe(false);
    const [memory, value, code, frame] = r.data.results;
    expect(memory).toMatchObject({ op: 'memory', error: { code: 'debugger_error' } });
    expect(memory.error.message).toMatch(/cannot read memory at 0x0/);
    expect(value.results[0].value).toBe('5');
    expect(code).toMatchObject({ op: 'disassemble', error: { code: 'debugger_error' } });
    expect(frame).toMatchObject({ op: 'inspect', error: { code: 'debugger_error' } });
    expect(r.text).toMatch(/#1 memory: error \(debugger_error\): cannot read memory/);
  });

  it('a run sent right behind a batch waits for it: the batch answers from one stop', async () => {
    const { h, id, batch } = await atReport();
    const reads = Array.from({ length: 16 }, (_, i) => ({ op: 'evaluate', expressions: [`numbers[${i % 4}]`] }));
    const [b, moved] = await Promise.all([
      batch({ operations: reads }),
      h.call('dbg_run', { session_id: id, action: 'next' }),
    ]);
    expect(b.isError, b.text).toBe(false);
    expect(b.data.stop_id).toBe(1);
    expect(b.data.results).toHaveLength(16);
    expect(moved.data.outcome.stop_id).toBe(2);
  });

  it('a stop_id from an earlier stop is refused with stale_context', async () => {
    const { h, id, batch } = await atReport();
    await h.call('dbg_run', { session_id: id, action: 'next' });
    const r = await batch({ stop_id: 1, operations: [{ op: 'evaluate', expressions: ['counter'] }] });
    expect(r).toMatchObject({ isError: true, code: 'stale_context' });
    expect(r.data.error.message).toMatch(/stop 1 is gone/);
    const fresh = await batch({ stop_id: 2, operations: [{ op: 'evaluate', expressions: ['counter'] }] });
    expect(fresh.data.stop_id).toBe(2);
  });

  it('checks each operation, naming the one at fault', async () => {
    const { batch } = await atReport();
    const missing = await batch({ operations: [{ op: 'evaluate', expressions: ['counter'] }, { op: 'memory' }] });
    expect(missing).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(missing.data.error.message).toMatch(/^operations\.1: address/);
    expect(missing.data.error.details.fields).toEqual(['operations.1.address']);
    const stray = await batch({ operations: [{ op: 'memory', address: 'edge', action: 'write' }] });
    expect(stray.data.error.message).toMatch(/unknown argument "action"/);
    for (const operations of [
      [],
      Array.from({ length: 17 }, () => ({ op: 'inspect', view: 'stop' })),
      [{ op: 'write', address: '0' }],
      [{ op: 'inspect', view: 'everything' }],
      [{ op: 'evaluate', expressions: ['a\nb'] }],
      [{ op: 'memory', address: '&greeting', length: 4097 }],
      [{ op: 'disassemble', count: 0 }],
    ]) {
      const r = await batch({ operations });
      expect(r, JSON.stringify(operations).slice(0, 80)).toMatchObject({ isError: true, code: 'invalid_argument' });
    }
  });

  it('needs a stopped program', async () => {
    const h = await startInProcess();
    const s = await h.call('dbg_start', { program: fixture('data'), stop: 'no-run' });
    const r = await h.call('dbg_batch', {
      session_id: s.data.session_id,
      operations: [{ op: 'evaluate', expressions: ['numbers'] }],
    });
    expect(r).toMatchObject({ isError: true, code: 'wrong_state' });
  });
});
