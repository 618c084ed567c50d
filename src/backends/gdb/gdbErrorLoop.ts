// Runs GDB cannot carry out and never ends. Measured with GDB 13.1 (mi-async on) on a CPU with
// AMX: a reverse-continue under process record prints
//   &"Couldn't write extended state status: Bad address.\n"
// about 20,000 times a second, with no *stopped, the thread "running" in -thread-info, and
// -exec-interrupt answered ^done with no stop after it; `record stop` ends the printing but GDB
// still takes the thread for running, so nothing can stop it any more. `kill` works. A session
// would say `running` until its deadline, and every interrupt would time out.
//
// So, while the program runs, an unasked error line that GDB is known to repeat for ever (seen
// ENDLESS_REPEATS times), or any line repeated REPEATS times, is checked against GDB's thread states: when GDB still says
// running, the program is killed and the run ends as an exit that says why, in GDB's words. A line
// after which every thread has stopped is the silent-stop watch's (gdbSilentStop.ts), not this.

import type { MiRecord } from '../../protocols/mi/miRecords.js';
import { miString } from './gdbNarrow.js';
import { RunWatch } from './gdbRunWatch.js';

/** Errors after which a run never goes on: GDB prints them again on every turn of its event loop. */
const ENDLESS = [/Couldn't write extended state status/i, /Couldn't write registers/i];
/** How often one of those must come in one run (the loop prints thousands a second; one may be a one-off). */
export const ENDLESS_REPEATS = 3;

/** The same unasked line this many times in one run is a loop, whatever it says. */
export const REPEATS = 50;

/** What the answer says about an error loop GDB was in, with what to do about it. */
export function errorLoopReason(message: string, count: number, reversing: boolean): string {
  const said = `gdb could not carry out this run and printed "${message.slice(0, 160)}"${count > 1 ? ` ${count} times` : ''} without stopping, so the program was killed to end it`;
  if (/extended state/i.test(message)) {
    return reversing
      ? `${said}. Going backwards needs gdb to write the CPU's extended register state back, which this gdb cannot do on this CPU (AMX under GDB 13): reverse execution does not work here (dbg_doctor, record full). dbg_run restart runs the program again`
      : `${said}. This gdb cannot write the CPU's extended register state back on this CPU (AMX under GDB 13). dbg_run restart runs the program again`;
  }
  return `${said}. dbg_run restart runs the program again`;
}

export class ErrorLoopBreaker extends RunWatch {
  private last = '';
  private repeats = 0;
  private ending = false;

  /** Sees every record in arrival order, after the event handler. */
  see(record: MiRecord, captured: boolean): void {
    if (this.track(record)) {
      this.last = '';
      this.repeats = 0;
      return;
    }
    if (record.kind !== 'log' || captured || !this.running || this.g.state.exited) return;
    const text = record.text.trim();
    if (text === '') return;
    if (text === this.last) this.repeats++;
    else {
      this.last = text;
      this.repeats = 1;
    }
    if (this.ending) return;
    const endless = this.repeats >= ENDLESS_REPEATS && ENDLESS.some((p) => p.test(text));
    if (endless || this.repeats >= REPEATS) void this.end(text);
  }

  private async end(message: string): Promise<void> {
    this.ending = true;
    try {
      const now = await this.threadsNow();
      if (now === undefined) return;
      const { threads } = now;
      const at = this.generation;
      // Every thread stopped: a stop GDB did not report, which the silent-stop watch reports.
      if (threads.length === 0 || threads.every((t) => miString(t, 'state') === 'stopped')) return;
      await this.g.cli('kill', { timeoutMs: 10_000 });
      if (this.generation !== at) return;
      this.endRun();
      const reason = errorLoopReason(message, this.repeats, this.g.state.reversing);
      this.g.emit({ type: 'exited', exit: { killed: true, reason } });
    } catch {
      // GDB gone or not answering: nothing learned; the next such line tries again.
    } finally {
      this.ending = false;
    }
  }
}
