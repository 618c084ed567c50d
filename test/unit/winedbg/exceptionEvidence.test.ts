// The Windows exception table and winedbg's trace channel reader, on lines recorded from winedbg
// 8.0, and the capped reply buffer.
import { describe, expect, it } from 'vitest';
import { CappedText } from '../../../src/backends/winedbg/cappedText.js';
import {
  codesForSignal,
  exceptionOfExitCode,
  windowsException,
} from '../../../src/backends/winedbg/windowsExceptions.js';
import { WinedbgTrace } from '../../../src/backends/winedbg/winedbgTrace.js';

describe('windowsException', () => {
  it('names the codes the fixtures raise, with the signal the proxy gives GDB', () => {
    expect(windowsException(0xc0000005)).toMatchObject({ name: 'EXCEPTION_ACCESS_VIOLATION', signal: 'SIGSEGV' });
    expect(windowsException(0xc00000fd)).toMatchObject({ name: 'EXCEPTION_STACK_OVERFLOW', signal: 'SIGSEGV' });
    expect(windowsException(0xc0000094)).toMatchObject({ name: 'EXCEPTION_INT_DIVIDE_BY_ZERO', signal: 'SIGFPE' });
    expect(windowsException(0x80000003)).toMatchObject({ name: 'EXCEPTION_BREAKPOINT', signal: 'SIGTRAP' });
  });

  it('an unknown code keeps its number and the proxy’s SIGABRT', () => {
    expect(windowsException(0xdeadbeef)).toMatchObject({ name: '0xdeadbeef', signal: 'SIGABRT' });
    // A negative int32 (how an exit code may arrive) is the same code.
    expect(windowsException(0xc0000005 | 0).name).toBe('EXCEPTION_ACCESS_VIOLATION');
  });

  it('SIGSEGV stands for several codes: the code is what tells them apart', () => {
    expect(codesForSignal('SIGSEGV')).toEqual(expect.arrayContaining([0xc0000005, 0xc00000fd]));
    expect(codesForSignal('SIGFPE')).toEqual(expect.arrayContaining([0xc0000094, 0xc000008e]));
  });

  it('an exit code that is an exception status names the exception; an ordinary one does not', () => {
    expect(exceptionOfExitCode(0xc0000005)?.name).toBe('EXCEPTION_ACCESS_VIOLATION');
    expect(exceptionOfExitCode(3)).toBeUndefined();
    expect(exceptionOfExitCode(0x80000003)).toBeUndefined();
  });
});

const LINE = '02c4:trace:winedbg:handle_debug_event 000002c8:000002cc: exception code=0xc0000005\n';

describe('WinedbgTrace', () => {
  it('reads the code, pid and tid of an exception line, and counts the packet lines it skips', () => {
    const t = new WinedbgTrace();
    t.push('02c4:trace:winedbg:extract_packets Handling: "$m140001642,1#8c"\n');
    t.push(LINE);
    expect(t.latest()).toMatchObject({
      code: 0xc0000005,
      name: 'EXCEPTION_ACCESS_VIOLATION',
      pid: 0x2c8,
      tid: 0x2cc,
      sequence: 1,
    });
    expect(t.debuggeePid).toBe(0x2c8);
    expect(t.otherLines).toBe(1);
  });

  it('a line cut across two reads is read whole', () => {
    const t = new WinedbgTrace();
    t.push(LINE.slice(0, 30));
    expect(t.count).toBe(0);
    t.push(LINE.slice(30));
    expect(t.count).toBe(1);
  });

  it('only the exact shape counts: a debug string quoting it, or a longer line, does not', () => {
    const t = new WinedbgTrace();
    t.push(`02c8:02cc: output debug string ("${LINE.trim()}")\n`);
    t.push(`${LINE.trim()}")\n`);
    t.push(`x${LINE}`);
    expect(t.count).toBe(0);
  });

  it('latest(since, tid) gives only newer events of that thread', () => {
    const t = new WinedbgTrace();
    t.push('0010:trace:winedbg:handle_debug_event 00000020:00000030: exception code=0x80000003\n');
    t.push('0010:trace:winedbg:handle_debug_event 00000020:00000031: exception code=0xc0000094\n');
    expect(t.latest(0, 0x30)?.name).toBe('EXCEPTION_BREAKPOINT');
    expect(t.latest(1)?.name).toBe('EXCEPTION_INT_DIVIDE_BY_ZERO');
    expect(t.latest(2)).toBeUndefined();
  });

  it('waitFor() resolves when the line comes after the stop, and undefined at its deadline', async () => {
    const t = new WinedbgTrace();
    const waiting = t.waitFor(0, 5000);
    setTimeout(() => t.push(LINE), 20);
    expect((await waiting)?.code).toBe(0xc0000005);
    expect(await t.waitFor(1, 30)).toBeUndefined();
  });

  it('an endless line without a newline is dropped, not kept', () => {
    const t = new WinedbgTrace();
    t.push('y'.repeat(10_000));
    t.push(`\n${LINE}`);
    expect(t.count).toBe(1);
  });
});

describe('CappedText', () => {
  it('keeps everything under the cap', () => {
    const c = new CappedText(16);
    c.append('hello');
    expect(c.render()).toBe('hello');
  });

  it('past the cap keeps the last three quarters and counts what went in code points', () => {
    const c = new CappedText(8);
    c.append('0123456789');
    expect(c.value).toBe('456789');
    expect(c.dropped).toBe(4);
    expect(c.render()).toBe('[4 characters of earlier output dropped: buffer limit]\n456789');
  });

  it('never starts the kept text with half a surrogate pair', () => {
    const c = new CappedText(8);
    c.append('ab😀😀😀');
    // 8 units: a, b, and three 2-unit emoji; the cut moves back onto a high surrogate.
    c.append('c');
    const first = c.value.charCodeAt(0);
    expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
    expect(c.value.endsWith('😀c')).toBe(true);
    expect(c.dropped + [...c.value].length).toBe([...'ab😀😀😀c'].length);
  });
});
