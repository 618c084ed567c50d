// Small per-session thread numbers for LLDB's thread ids. lldb-dap names a thread by its OS id
// (the LWP: 12623), where the GDB backend answers with GDB's thread numbers (1, 2, 3); the answers
// are the same on every backend, so the LLDB backend numbers threads 1, 2, 3 in the order it first
// sees them and speaks lldb-dap's ids only inside. The OS id stays visible as `osThreadId` and
// `targetId` (a mutex owner is named by it), as it does under GDB.

import { DebuggerError } from '../../util/errors.js';

export class LldbThreadNumbers {
  private readonly byDapId = new Map<number, number>();
  private readonly byNumber = new Map<number, number>();

  /**
   * The session's number of a thread lldb-dap names, given on first sight and kept for the whole
   * session: a thread keeps its number across stops, and a run after a restart adds new numbers
   * (its threads are new OS threads), as GDB's global thread numbers do.
   */
  number(dapId: number): number {
    let n = this.byDapId.get(dapId);
    if (n === undefined) {
      n = this.byDapId.size + 1;
      this.byDapId.set(dapId, n);
      this.byNumber.set(n, dapId);
    }
    return n;
  }

  /** lldb-dap's id of the thread the session numbers `n`; refused when no thread had that number. */
  dapId(n: number): number {
    const id = this.byNumber.get(n);
    if (id === undefined) {
      const known = this.byNumber.size === 0 ? 'none yet' : `1 to ${this.byNumber.size}`;
      throw new DebuggerError(
        'invalid_argument',
        `there is no thread ${n} (threads are numbered ${known}: dbg_inspect view=threads lists them)`,
        { fields: ['thread'] },
      );
    }
    return id;
  }

  /** `dapId` of an optional number. */
  dapIdOf(n: number | undefined): number | undefined {
    return n === undefined ? undefined : this.dapId(n);
  }
}
