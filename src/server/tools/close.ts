// dbg_close: ends a session and everything it started. Closing twice is not an error: a client
// that repeats the call (or retries after a lost answer) gets closed=false and a note. With
// handoff_to it ends nothing: the session is offered to another client (handOff below).

import * as z from 'zod/v4';
import type { Session } from '../../session/session.js';
import { STDIO_CLIENT } from '../../session/sessionOwners.js';
import { DebuggerError } from '../../util/errors.js';
import { defineTool, type ToolContext } from '../defineTool.js';
import type { Answer } from '../response.js';
import { sessionId } from '../schemas.js';

const output = z.object({
  closed: z.boolean(),
  pids: z.array(z.number()).optional(),
  offered_to: z.string().optional().describe('Handed off: open, offered to this client.'),
  note: z.string(),
  session: z.looseObject({}).optional(),
});

/** A client's name as the token file writes it (src/transport/tokenStore.ts), or local/loopback. */
const clientName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/, 'a client name, as in the token file');

type CloseData = z.infer<typeof output>;

/** Offers the caller's session to another client: it stays open, the caller's until taken. */
function handOff(session: Session, to: string, ctx: ToolContext): Answer<Omit<CloseData, 'session'>> {
  const invalid = (why: string) => new DebuggerError('invalid_argument', `handoff_to: ${why}`, { field: 'handoff_to' });
  if (ctx.client === STDIO_CLIENT) {
    throw invalid('over stdio this server has one client: nobody else could take the session');
  }
  if (to === ctx.client) throw invalid('names you: the session is yours already');
  // The person let in the agent that joined, and their terminal said so; another client would
  // read their debugger unannounced, and past the --join-clients gate. It joins the share itself.
  if (session.capabilities.access !== undefined) {
    throw invalid(
      `session ${session.id} is a person's shared ${session.debugger.kind}, joined by you: it is not handed on. dbg_close it, and ${to} joins the share itself with dbg_start join=<the share's id in dbg_sessions> (if the operator's --join-clients names ${to}); the person sees it join`,
    );
  }
  ctx.sessions.offer(session.id, ctx.client, to);
  const note = `session ${session.id} stays open, offered to ${to}, who takes it with dbg_start join=${session.id}; it stays yours until then (dbg_close without handoff_to ends it)`;
  return { data: { closed: false, offered_to: to, note }, text: note, session };
}

export const closeTool = defineTool({
  name: 'dbg_close',
  title: 'Close',
  description:
    'Ends a session: kills the program (detaches an attached one; a joined one is left as it was) and the debugger. Idempotent: an unknown id gives closed=false. handoff_to: offer it to that client instead (dbg_start join takes it).',
  input: z.strictObject({
    session_id: sessionId,
    handoff_to: clientName.optional().describe('Offer to this client; stays open.'),
  }),
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, ctx) {
    const id = args.session_id;
    // Another client's session is, to this caller, one that is not open.
    const session = ctx.sessions.list(ctx.client).find((s) => s.id === id);
    if (!session) {
      const reaped = ctx.sessions.reapedSessions(ctx.client).find((r) => r.id === id);
      const note = reaped
        ? `session ${id} was already closed after ${Math.round(reaped.idleMs / 60_000)} idle minutes; nothing to do`
        : `no session ${id} is open (already closed, or never opened); nothing to do`;
      return { data: { closed: false, note }, text: note };
    }
    if (args.handoff_to !== undefined) return handOff(session, args.handoff_to, ctx);
    const target = session.target;
    // A core's pid names a process that is gone (the number may belong to another one now).
    const pids = target.kind === 'core' ? [] : [...session.snapshot.inferiors.values()];
    const debuggerPid = session.debugger.pid;
    const closed = await ctx.sessions.close(id, 'dbg_close ended it');
    const through = target.remote ? ` through ${target.remote}` : '';
    const joined = session.capabilities.access !== undefined;
    const what = joined
      ? `left the person's ${session.debugger.kind}${debuggerPid ? ` (pid ${debuggerPid})` : ''}: it and their program${pids.length > 0 ? ` (pid ${pids.join(', ')})` : ''} are as they were, and still theirs`
      : target.kind === 'core'
        ? `closed the core ${target.core}`
        : target.kind === 'remote'
          ? `disconnected from ${target.remote} (the stub ends a program it started, lets go of one it attached)`
          : pids.length === 0
            ? 'no program was running'
            : target.kind === 'attach'
              ? `detached from pid ${pids.join(', ')}${through}: it runs on`
              : `killed pid ${pids.join(', ')}${through}`;
    const note = !closed
      ? `session ${id} was closed meanwhile; nothing to do`
      : joined
        ? `closed session ${id}: ${what}`
        : `closed session ${id}: ${what}; the debugger${debuggerPid ? ` (pid ${debuggerPid})` : ''} has stopped`;
    return {
      data: { closed, ...(closed && pids.length > 0 && !joined ? { pids } : {}), note },
      text: note,
    };
  },
});
