// Stops GDB makes without saying so. A breakpoint whose commands fail stops the program, and GDB
// reports no `*stopped`, only the error on its log stream. Measured with GDB 13.1 (mi-async on): a
// dprintf `"seen=%d\n", peek()` with may-call-functions off prints
//   &"Cannot call functions in the program: may-call-functions is off.\n"
// and the thread is stopped (-thread-info: state="stopped"), with no *stopped record: the session
// would say `running` for ever and an interrupt would time out. So an unasked error line while the
// program runs is checked against GDB's thread states, and when every thread has stopped the stop is
// reported as GDB would have, with the error as its reason.

import type { MiRecord, MiTuple } from '../../protocols/mi/miRecords.js';
import { handleRecord } from './gdbEvents.js';
import { miString, miTuple } from './gdbNarrow.js';
import { RunWatch } from './gdbRunWatch.js';

/**
 * GDB's own account of a stop it is about to report, when the source file is not on this machine:
 * `&"57\t./nptl/futex-internal.c: No such file or directory.\n"` arrives just before the *stopped
 * of every interrupt inside libc. It is not an error that stopped the program: checking on it
 * put a -thread-info in front of the stop's own inspection.
 */
const SOURCE_NOT_FOUND = /^\d+\t.*: No such file or directory\.\n?$/;

export class SilentStopWatch extends RunWatch {
  private checking = false;

  /** Sees every record in arrival order, after the event handler. */
  see(record: MiRecord, captured: boolean): void {
    if (this.track(record)) return;
    if (
      record.kind === 'log' &&
      !captured &&
      this.running &&
      !this.checking &&
      !this.g.state.exited &&
      !SOURCE_NOT_FOUND.test(record.text)
    ) {
      void this.check(record.text.trim());
    }
  }

  private async check(message: string): Promise<void> {
    this.checking = true;
    try {
      const now = await this.threadsNow();
      if (now === undefined) return;
      const { results: info, threads } = now;
      if (threads.length === 0 || threads.some((t) => miString(t, 'state') !== 'stopped')) return;
      const current = miString(info, 'current-thread-id') ?? miString(threads[0], 'id') ?? '1';
      const frame = miTuple(threads.find((t) => miString(t, 'id') === current) ?? threads[0], 'frame');
      this.endRun();
      // The stop as a *stopped record would have carried it; the reason is GDB's own words.
      const results: MiTuple = {
        reason: `GDB stopped the program without a stop record, after: ${message}`,
        'thread-id': current,
        'stopped-threads': 'all',
        ...(frame ? { frame } : {}),
      };
      handleRecord(this.g, { kind: 'exec', token: undefined, class: 'stopped', results }, false);
    } catch {
      // GDB gone or busy: nothing learned; the next such line checks again.
    } finally {
      this.checking = false;
    }
  }
}
