// dbg_start's answer about a session that is already open, as it is now: what a client gets when
// it takes a session handed to it (join) and when it retries a start whose first answer is gone
// or out of date (request_id). The same fields a fresh start gives, the evidence gathered at the
// current stop with the caller's plan.

import type { Session } from '../../session/session.js';
import type { ToolContext } from '../defineTool.js';
import type { Answer } from '../response.js';
import { compact } from '../wire.js';
import { type PlanOptions, type RunAnswerData, runAnswer } from './runAnswer.js';
import { targetWire } from './sessions.js';

export interface SessionNowData extends Partial<RunAnswerData> {
  session_id: string;
  program: string;
  debugger: string;
  target?: { kind: Session['target']['kind']; core?: string; pid?: number; remote?: string };
}

export async function sessionNowAnswer(
  session: Session,
  plan: PlanOptions,
  ctx: ToolContext,
  heading: string,
): Promise<Answer<SessionNowData>> {
  const target = targetWire(session.target) as SessionNowData['target'];
  const data: SessionNowData = compact({
    session_id: session.id,
    program: session.target.program,
    debugger: session.debugger.version,
    ...(target ? { target } : {}),
  });
  const outcome = session.outcome;
  if (outcome === undefined) {
    const text = [heading, 'loaded; not started (dbg_run action=run starts it)'].join('\n');
    return { data, text, session };
  }
  // From the first byte the program printed: the last of it is what a newcomer has not seen.
  const answer = await runAnswer(session, outcome, {
    ...plan,
    outputCursor: 0,
    signal: ctx.signal,
    extraText: [heading],
  });
  return { ...answer, data: { ...data, ...answer.data } };
}
