// A session's run operations whose caller may not have seen the end: a wait cut short by its
// deadline (the program still runs), or a call whose client cancelled or dropped it while it
// waited. Each has an id the answer (or a progress note) gave out; the outcome is recorded when
// the program stops, exits or the debugger dies, and kept until it is read once (`dbg_run
// action=wait operation_id=…`) or the session closes. Backend-neutral: it watches the session's
// snapshot, never a debugger. Bounded: a few per session, the oldest dropped first.

import { randomBytes } from 'node:crypto';
import type { RunOutcome } from './runControl.js';
import { isSettled, type SessionSnapshot } from './sessionState.js';

/** At most this many per session; one program runs at a time, so a handful covers every real use. */
const MAX_OPERATIONS = 8;

export interface Operation {
  readonly id: string;
  /** What the call that began it did: continue, wait, run, … */
  readonly action: string;
  readonly startedAt: number;
  /**
   * What the caller keeps to answer the read with (its inspection plan, the output cursor): the
   * session layer stores it and never looks inside.
   */
  readonly context: unknown;
  /** Pending: ends at the first stop, exit or death once the epoch is at least this. */
  from: number | undefined;
  /** Set when it ended. */
  outcome: RunOutcome | undefined;
}

export interface OperationHost {
  snapshot(): SessionSnapshot;
  /** The outcome as a run would report it now. */
  outcome(): RunOutcome;
}

export class OperationRegistry {
  private readonly operations = new Map<string, Operation>();

  constructor(private readonly host: OperationHost) {}

  /** Registers a call's run as it begins, so its id can go out before the end (in progress notes). */
  begin(action: string, context: unknown, now = Date.now()): Operation {
    while (this.operations.size >= MAX_OPERATIONS) {
      const oldest = this.operations.keys().next().value as string;
      this.operations.delete(oldest);
    }
    const op: Operation = {
      id: randomBytes(3).toString('hex'),
      action,
      startedAt: now,
      context,
      from: undefined,
      outcome: undefined,
    };
    this.operations.set(op.id, op);
    return op;
  }

  /**
   * The call's run returned `outcome`. Kept when the caller may not see it: the wait was cut short
   * (`running`: pending until the program settles) or the call was `cut` (cancelled, dropped); a
   * run answered in full is forgotten. Returns the operation that holds the end, if kept.
   */
  end(id: string, outcome: RunOutcome, cut: boolean): Operation | undefined {
    const op = this.operations.get(id);
    if (!op) return undefined;
    if (outcome.kind === 'running') {
      const epoch = this.host.snapshot().epoch;
      // Two waits cut short on the same run give the same id: the earlier one holds its end.
      const earlier = this.pendingAt(epoch);
      if (earlier && earlier !== op) {
        this.operations.delete(id);
        return earlier;
      }
      // The run's epoch: the program may have settled already, between the deadline and now.
      op.from = epoch;
      this.settle();
      return op;
    }
    if (cut) {
      op.outcome = outcome;
      return op;
    }
    this.operations.delete(id);
    return undefined;
  }

  private pendingAt(epoch: number): Operation | undefined {
    for (const op of this.operations.values()) if (op.outcome === undefined && op.from === epoch) return op;
    return undefined;
  }

  /** Forgets one (its call failed, or it was read). */
  drop(id: string): void {
    this.operations.delete(id);
  }

  /**
   * A run found still running by a call that did not begin an operation (dbg_start's own waits)
   * registers here, reusing the pending operation of the same run if there is one.
   */
  pending(action: string, context: unknown): Operation {
    const epoch = this.host.snapshot().epoch;
    const earlier = this.pendingAt(epoch);
    if (earlier) return earlier;
    const op = this.begin(action, context);
    op.from = epoch;
    this.settle();
    return op;
  }

  get(id: string): Operation | undefined {
    return this.operations.get(id);
  }

  /** Pending and unread operations, oldest first. */
  list(): Operation[] {
    return [...this.operations.values()].filter((op) => op.from !== undefined || op.outcome !== undefined);
  }

  /** Records the outcome of pending operations the session's new state ends. Cheap when none wait. */
  settle(): void {
    if (this.operations.size === 0) return;
    const snap = this.host.snapshot();
    if (!isSettled(snap.state)) return;
    for (const op of this.operations.values()) {
      if (op.outcome === undefined && op.from !== undefined && snap.epoch >= op.from) op.outcome = this.host.outcome();
    }
  }

  clear(): void {
    this.operations.clear();
  }
}
