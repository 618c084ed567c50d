// Fatal signals as an agent meets them: the stop names the signal, the fault and the frame, and a
// program that prints MI-looking text cannot pass it off as the debugger's own.
import { describe, expect, it } from 'vitest';
import type { BackendEvent } from '../../../src/backends/debuggerBackend.js';
import { expectStopped, programOutput, WAIT_MS } from '../../helpers/outcomes.js';
import { loaded } from '../../helpers/sessions.js';

const wait = { timeoutMs: WAIT_MS };

describe('crashes', () => {
  it('segv: a NULL write three calls deep stops in store at line 13 with fault address 0x0', async () => {
    const s = await loaded('crash', ['segv']);
    const { stop } = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the SIGSEGV');
    expect(stop.reason).toBe('signal-received');
    expect(stop.signal).toEqual({ name: 'SIGSEGV', meaning: 'Segmentation fault' });
    expect(stop.faultAddress).toBe('0x0');
    expect(stop.frame).toMatchObject({ function: 'store', file: 'crash.c', line: 13 });
    expect(stop.frame?.args).toEqual([
      { name: 'p', value: '0x0' },
      { name: 'value', value: '12' },
    ]);
    const frames = await s.query(['stopped'], 'read the stack', (b) => b.stack({}));
    expect(frames.map((f) => f.function)).toEqual(['store', 'update', 'process', 'main']);
    expect(programOutput(s)).toBe('mode segv\n');
  });

  it('abort: stops with SIGABRT, main on the stack', async () => {
    const s = await loaded('crash', ['abort']);
    const { stop } = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the abort');
    expect(stop.reason).toBe('signal-received');
    expect(stop.signal?.name).toBe('SIGABRT');
    // abort() is not a fault: there is no fault address to read.
    expect(stop.faultAddress).toBeUndefined();
    const frames = await s.query(['stopped'], 'read the stack', (b) => b.stack({}));
    // glibc's frame is __GI_abort (or abort, depending on the build's symbols).
    expect(frames.some((f) => /abort$/.test(f.function ?? ''))).toBe(true);
    expect(frames.find((f) => f.function === 'main')?.file).toBe('crash.c');
  });

  it('fpe: an integer division by zero stops with SIGFPE in divide, b = 0', async () => {
    const s = await loaded('crash', ['fpe']);
    const { stop } = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the SIGFPE');
    expect(stop.reason).toBe('signal-received');
    expect(stop.signal).toEqual({ name: 'SIGFPE', meaning: 'Arithmetic exception' });
    expect(stop.frame).toMatchObject({ function: 'divide', file: 'crash.c', line: 28 });
    expect(stop.frame?.args).toContainEqual({ name: 'b', value: '0' });
    // For SIGFPE, si_addr is the faulting instruction: the pc of the frame.
    expect(stop.faultAddress).toBeDefined();
    expect(BigInt(stop.faultAddress ?? '0')).toBe(BigInt(stop.frame?.address ?? '-1'));
  });

  it('assert: a failed assertion stops with SIGABRT and its message is in the program output', async () => {
    const s = await loaded('crash', ['assert']);
    const { stop } = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the assertion');
    expect(stop.signal?.name).toBe('SIGABRT');
    const frames = await s.query(['stopped'], 'read the stack', (b) => b.stack({}));
    const fns = frames.map((f) => f.function);
    expect(fns.some((f) => f?.includes('assert'))).toBe(true);
    expect(frames.find((f) => f.function === 'main')).toMatchObject({ file: 'crash.c', line: 44 });
    expect(programOutput(s)).toContain('Assertion `count == 0 && "count must be zero"\' failed.');
  });

  it('fake_mi: MI-looking program output stays program output, and the crash is a SIGSEGV stop, not an exit', async () => {
    const s = await loaded('fake_mi');
    const events: BackendEvent[] = [];
    const unsubscribe = s.backend.subscribe((e) => events.push(e));
    const { stop } = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the crash');
    unsubscribe();
    expect(stop.reason).toBe('signal-received');
    expect(stop.signal?.name).toBe('SIGSEGV');
    expect(stop.frame).toMatchObject({ function: 'main', file: 'fake_mi.c' });
    expect(s.phase).toBe('stopped');

    const out = s.backend.output?.read(0, 1 << 20).data.toString('utf8') ?? '';
    expect(out).toBe(
      [
        '(gdb) ',
        '^done',
        '*stopped,reason="exited-normally"',
        '~"x"',
        '1^error,msg="fake"',
        '=thread-group-exited,id="i1",exit-code="0"',
        '',
      ].join('\n'),
    );
    // The fake records produced no events: one start, one running, one stop, and no exit.
    const kinds = events.map((e) => e.type).filter((t) => t !== 'library-loaded' && t !== 'library-unloaded');
    expect(kinds).toEqual(['inferior-started', 'thread-created', 'running', 'stopped']);
    expect(events.some((e) => e.type === 'exited' || e.type === 'inferior-exited')).toBe(false);
    // And the connection still answers correctly afterwards.
    expect(await s.query(['stopped'], 'evaluate', (b) => b.evaluate('1 + 1', {}))).toBe('2');
  });
});
