// The exception codes winedbg sees and its gdb proxy does not pass on. The proxy turns each
// Windows exception into a bare signal (an access violation and a stack overflow are both
// SIGSEGV; GDB's $_siginfo is void: no qXfer:siginfo), but with WINEDEBUG=trace+winedbg the proxy
// logs every debug event it handles on its stderr, before it answers GDB (measured, Wine 8.0):
//
//   02c4:trace:winedbg:handle_debug_event 000002c8:000002cc: exception code=0xc0000005
//
// (winedbg's thread, then the debuggee's Windows pid and thread id). Wine's debug channels are
// written with write(2), unbuffered, unlike winedbg's fprintf(stderr) lines, which the C runtime
// holds in a 4 KiB buffer on a pipe. The channel also logs every packet ("Handling:", "Reply:",
// about 50 lines a stop); those are counted and dropped here.
//
// The debuggee cannot write to this stream, but winedbg echoes some of its data into it
// (OutputDebugString text, thread names, escaped). A line only counts when it has exactly this
// shape from its first byte to its last, and a code is only believed for a stop whose signal the
// proxy would have given that code (codesForSignal).

import { type WindowsException, windowsException } from './windowsExceptions.js';

const EXCEPTION_LINE =
  /^[0-9a-f]{4,8}:trace:winedbg:handle_debug_event ([0-9a-f]{8}):([0-9a-f]{8}): exception code=0x([0-9a-f]{8})$/;

export interface TracedException extends WindowsException {
  /** Windows process and thread ids, as winedbg printed them. */
  pid: number;
  tid: number;
  /** Its place in the stream: later events have larger numbers. */
  sequence: number;
}

/** Lines longer than this are not trace lines of ours: they are cut and counted. */
const MAX_LINE = 4096;
const KEPT = 64;

export class WinedbgTrace {
  private carry = '';
  private sequence = 0;
  private readonly events: TracedException[] = [];
  private readonly waiters = new Set<() => void>();
  /** Lines seen that were not exception events (packet traces and the like). */
  otherLines = 0;

  /** Feed text read from winedbg's stderr. */
  push(chunk: string): void {
    let text = this.carry + chunk;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      this.line(text.slice(0, nl));
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    // An endless line (no newline) must not grow without bound.
    this.carry = text.length > MAX_LINE ? '' : text;
    if (text.length > MAX_LINE) this.otherLines++;
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const m = EXCEPTION_LINE.exec(line);
    if (!m) {
      this.otherLines++;
      return;
    }
    const event: TracedException = {
      ...windowsException(Number.parseInt(m[3] as string, 16)),
      pid: Number.parseInt(m[1] as string, 16),
      tid: Number.parseInt(m[2] as string, 16),
      sequence: ++this.sequence,
    };
    this.events.push(event);
    if (this.events.length > KEPT) this.events.shift();
    for (const wake of [...this.waiters]) wake();
  }

  /** How many exception events have been seen: pass it to latest() to ask for newer ones only. */
  get count(): number {
    return this.sequence;
  }

  /** The newest exception after `since` (of thread `tid` when given). */
  latest(since = 0, tid?: number): TracedException | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i] as TracedException;
      if (e.sequence <= since) return undefined;
      if (tid === undefined || e.tid === tid) return e;
    }
    return undefined;
  }

  /** The exception events kept (the newest 64), oldest first. */
  get recorded(): readonly TracedException[] {
    return this.events;
  }

  /** The Windows pid of the debuggee, once an event has named it. */
  get debuggeePid(): number | undefined {
    return this.events[this.events.length - 1]?.pid;
  }

  /**
   * Waits up to `ms` for an exception newer than `since`: GDB's stop can reach us before the
   * trace line does (two pipes, two readers), though winedbg wrote the line first.
   */
  waitFor(since: number, ms: number, tid?: number): Promise<TracedException | undefined> {
    const found = this.latest(since, tid);
    if (found || ms <= 0) return Promise.resolve(found);
    return new Promise((resolve) => {
      const done = (): void => {
        const e = this.latest(since, tid);
        if (!e) return;
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(e);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        resolve(undefined);
      }, ms);
      timer.unref();
      this.waiters.add(done);
    });
  }
}
