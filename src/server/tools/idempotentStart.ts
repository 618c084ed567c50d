// dbg_start with request_id: a retry (the answer was lost, the connection dropped, the client
// timed out) gets the session the first try opened, not a second one. The same id with the same
// arguments from the same client: the first answer again while the session is where that answer
// left it, else the session as it is now; a try still under way is waited for. The same id with
// other arguments is refused. The registry (src/session/startRequests.ts) forgets a request when
// its session closes or changes hands, or when its first try failed and left nothing.

import { createHash } from 'node:crypto';
import type { Session } from '../../session/session.js';
import type { StartRequest } from '../../session/startRequests.js';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import type { ToolContext } from '../defineTool.js';
import type { Answer } from '../response.js';
import { planOf } from './runAnswer.js';
import { sessionNowAnswer } from './sessionNow.js';

/** Keys sorted at every level, so the same arguments written in another order are the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** A digest of the arguments but request_id: the registry keeps no program argument or environment value. */
export function startFingerprint(args: Record<string, unknown>): string {
  const { request_id: _, ...rest } = args;
  return createHash('sha256')
    .update(JSON.stringify(canonical(rest)))
    .digest('hex');
}

function point(session: Session): { stopId: number; epoch: number; phase: string } {
  const s = session.snapshot;
  return { stopId: s.stopId, epoch: s.epoch, phase: s.state.phase };
}

export async function idempotentStart<A extends Answer<object>>(
  requestId: string,
  args: Record<string, unknown> & { inspect?: readonly string[]; stack_depth?: number; include_locals?: boolean },
  ctx: ToolContext,
  start: (opened: (session: Session) => void) => Promise<A>,
): Promise<A | Awaited<ReturnType<typeof sessionNowAnswer>>> {
  const registry = ctx.sessions.startRequests;
  const fingerprint = startFingerprint(args);
  for (;;) {
    const known = registry.find(ctx.client, requestId);
    if (!known) break;
    if (known.fingerprint !== fingerprint) {
      throw new DebuggerError(
        'invalid_argument',
        `request_id: ${JSON.stringify(requestId)} was used with other arguments${known.sessionId ? ` (session ${known.sessionId})` : ''}: a retry repeats them exactly; a new start needs a new request_id`,
        { field: 'request_id' },
      );
    }
    await known.done;
    // Gone meanwhile (its first try failed, its session closed): this call is a first try.
    if (registry.find(ctx.client, requestId) === known) return replay(known, requestId, args, ctx);
  }
  const { entry, finish } = registry.begin(ctx.client, requestId, fingerprint);
  try {
    const answer = await start((session) => {
      entry.sessionId = session.id;
    });
    // An answer made after a cancel may lack its evidence: a retry then gets the session as it is.
    if (!ctx.signal.aborted && answer.session) {
      entry.answer = answer;
      entry.answeredAt = point(answer.session);
    }
    return answer;
  } catch (e) {
    const kept = entry.sessionId !== undefined && ctx.sessions.list(ctx.client).some((s) => s.id === entry.sessionId);
    if (!kept) registry.drop(entry);
    throw e;
  } finally {
    finish();
  }
}

async function replay<A extends Answer<object>>(
  known: StartRequest,
  requestId: string,
  args: Record<string, unknown> & { inspect?: readonly string[]; stack_depth?: number; include_locals?: boolean },
  ctx: ToolContext,
): Promise<A | Awaited<ReturnType<typeof sessionNowAnswer>>> {
  const session = ctx.sessions.get(known.sessionId ?? '', ctx.client);
  log('info', 'dbg_start retried', { client: ctx.client, session: session.id });
  const then = known.answeredAt;
  const now = point(session);
  if (known.answer && then && then.stopId === now.stopId && then.epoch === now.epoch && then.phase === now.phase) {
    return known.answer as A;
  }
  return sessionNowAnswer(
    session,
    planOf(args),
    ctx,
    `request_id ${JSON.stringify(requestId)}: session ${session.id}, which its first try opened, as it is now`,
  );
}
