// dbg_start join=<id>, for a session another client handed to the caller (dbg_close
// handoff_to): the session manager is asked first; when it has no such offer for the caller,
// takeHandoff answers undefined and join goes on to whatever else it joins (a person's shared
// debugger). The receiver then holds the session, under its own quota.

import { DebuggerError } from '../../util/errors.js';
import type { ToolContext } from '../defineTool.js';
import type { Answer } from '../response.js';
import { planOf } from './runAnswer.js';
import { type SessionNowData, sessionNowAnswer } from './sessionNow.js';

/** Fields a taken session ignores: it is opened already, as its giver left it. */
const OPENING_FIELDS = [
  'program',
  'args',
  'cwd',
  'env',
  'stdin',
  'stdin_eof',
  'breakpoints',
  'stop',
  'backend',
  'record',
  'core',
  'attach',
  'remote',
  'extended',
  'sysroot',
  'forks',
  'trace',
  'pid',
  'request_id',
] as const;

export async function takeHandoff(
  id: string,
  args: Record<string, unknown> & { inspect?: readonly string[]; stack_depth?: number; include_locals?: boolean },
  ctx: ToolContext,
): Promise<Answer<SessionNowData> | undefined> {
  if (!ctx.sessions.offeredTo(ctx.client).some((o) => o.session.id === id)) return undefined;
  const extra = OPENING_FIELDS.filter((f) => args[f] !== undefined);
  if (extra.length > 0) {
    throw new DebuggerError(
      'invalid_argument',
      `${extra.join(', ')}: session ${id} is handed over open, as it is: give join alone (with inspect, stack_depth, include_locals)`,
      { fields: [...extra] },
    );
  }
  const session = ctx.sessions.take(id, ctx.client);
  if (!session) return undefined;
  return sessionNowAnswer(session, planOf(args), ctx, `took session ${id}, handed to you; it is yours now`);
}
