// What a session debugs, and the run actions each kind of target cannot take, with what to do
// instead. Backend-neutral: a core never runs, whichever debugger reads it.

import { DebuggerError } from '../util/errors.js';
import type { RunAction } from './runControl.js';

/**
 * What the session debugs. `program` is the executable when known ('' when not), `remote` the
 * host:port of a gdbserver or QEMU stub the target lives behind.
 */
export type SessionTarget = { program: string; args: readonly string[]; remote?: string } & (
  | { kind: 'launch' }
  | { kind: 'core'; core: string }
  | { kind: 'attach'; pid: number }
  /** A program already started by the stub (`target remote`). */
  | { kind: 'remote' }
  /** A recording, replayed: runs forwards and backwards, deterministically. */
  | { kind: 'replay'; trace: string }
  /** A person's own debugger, joined: their program, never started nor killed from here. */
  | { kind: 'joined'; pid?: number }
);

/** Run actions a target cannot take, with what to do instead. */
export function refusedRun(target: SessionTarget, action: RunAction): DebuggerError | undefined {
  if (target.kind === 'core') {
    return new DebuggerError(
      'wrong_state',
      `cannot ${action}: a core file is the memory of a process that is gone, nothing runs; read it with dbg_inspect, dbg_evaluate or dbg_memory, or dbg_start the program to run it`,
      { state: 'core' },
    );
  }
  if ((action === 'run' || action === 'restart') && target.kind === 'joined') {
    return new DebuggerError(
      'wrong_state',
      `cannot ${action}: this is a person's own debugger session, and their program is theirs to start again; ask them, or dbg_start the program in a session of your own`,
      { state: target.kind },
    );
  }
  if ((action === 'run' || action === 'restart') && (target.kind === 'attach' || target.kind === 'remote')) {
    const how =
      target.kind === 'attach' ? `it is attached to pid ${target.pid}` : `the stub at ${target.remote} runs it`;
    return new DebuggerError(
      'wrong_state',
      `cannot ${action}: this session did not start the program (${how}); dbg_start it with program (with remote and extended=true for gdbserver --multi) to run it from the start`,
      { state: target.kind },
    );
  }
  return undefined;
}
