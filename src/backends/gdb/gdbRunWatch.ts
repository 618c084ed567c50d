// What the watches of a running program share (the silent-stop watch, the error-loop breaker):
// whether the program runs, as GDB's *running and *stopped records say in their order, a count of
// those records that voids a check they overtook, and GDB's own -thread-info to check against.

import { threadInfo } from '../../protocols/mi/commands/target.js';
import type { MiRecord, MiTuple } from '../../protocols/mi/miRecords.js';
import type { GdbContext } from './gdbContext.js';
import { miList } from './gdbNarrow.js';

export abstract class RunWatch {
  /** Whether the program runs, as GDB's *running and *stopped records say (in their order). */
  protected running = false;
  /** Counts those records: a check is void when one came while it waited. */
  protected generation = 0;

  constructor(protected readonly g: GdbContext) {}

  /** Notes a *running or *stopped record; true when `record` was one. */
  protected track(record: MiRecord): boolean {
    if (record.kind !== 'exec' || (record.class !== 'running' && record.class !== 'stopped')) return false;
    this.running = record.class === 'running';
    this.generation++;
    return true;
  }

  /** The run ends by this watch's doing: a check begun before now is void. */
  protected endRun(): void {
    this.running = false;
    this.generation++;
  }

  /**
   * GDB's threads now, or undefined when a *running or *stopped came while it answered (or the
   * program no longer runs): the check that asked is then void.
   */
  protected async threadsNow(): Promise<{ results: MiTuple; threads: MiTuple[] } | undefined> {
    const at = this.generation;
    const r = await threadInfo(this.g.mi, { timeoutMs: 5000 });
    if (this.generation !== at || !this.running) return undefined;
    const threads = miList(r.results, 'threads').filter(
      (t): t is MiTuple => typeof t === 'object' && !Array.isArray(t),
    );
    return { results: r.results, threads };
  }
}
