// dbg_start with record=true: the program starts at main (or where asked), GDB's process record
// begins there, and — when the caller asked to run until something happens (stop=none) — the
// program continues under recording to its crash, breakpoint or deadline, ready to run backwards.

import type { RunOutcome, Session } from '../../session/session.js';

type StartRun = (stop: 'none' | 'main' | 'entry') => Promise<RunOutcome>;

export const RECORD_WARNING =
  "recording: glibc's vector string routines are off for this program (GLIBC_TUNABLES) and symbols bind at " +
  'start (LD_BIND_NOW=1), because record full cannot step them; watchpoints are software while recording';

export async function startRecorded(
  session: Session,
  stop: 'none' | 'main' | 'entry',
  startRun: StartRun,
  continueRun: (timeoutMs: number) => Promise<RunOutcome>,
  timeoutMs: number,
  warnings: string[],
  signal: AbortSignal,
): Promise<RunOutcome> {
  const began = Date.now();
  warnings.push(RECORD_WARNING);
  const first = await startRun(stop === 'none' ? 'main' : stop);
  if (first.kind !== 'stopped') return first;
  const recording = await session.run({ action: 'record_start' }, signal);
  if (stop !== 'none') return recording;
  return continueRun(Math.max(1, timeoutMs - (Date.now() - began)));
}
