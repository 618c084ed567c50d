// What a joined session answers for the program's input: the program runs on the person's
// terminal, which the agent neither reads nor writes.

import { DebuggerError } from '../../util/errors.js';
import type { StdinReport } from '../debuggerBackend.js';

/** The refusal of stdin (and its end) on a joined session. */
export function theirTerminal(): Promise<StdinReport> {
  return Promise.reject(new DebuggerError('wrong_state', "the program's terminal is the person's, not this session's"));
}
