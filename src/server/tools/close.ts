// dbg_close: ends a session and everything it started. Closing twice is not an error: a client
// that repeats the call (or retries after a lost answer) gets closed=false and a note.

import * as z from 'zod/v4';
import { defineTool } from '../defineTool.js';
import { sessionId } from '../schemas.js';

const output = z.object({
  closed: z.boolean(),
  pids: z.array(z.number()).optional(),
  note: z.string(),
});

export const closeTool = defineTool({
  name: 'dbg_close',
  title: 'Close',
  description:
    'Ends a session: kills the program (detaches an attached one; a joined one is left as it was) and the debugger. Idempotent: an unknown id gives closed=false.',
  input: z.strictObject({ session_id: sessionId }),
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, ctx) {
    const id = args.session_id;
    const session = ctx.sessions.list().find((s) => s.id === id);
    if (!session) {
      const reaped = ctx.sessions.reapedSessions.find((r) => r.id === id);
      const note = reaped
        ? `session ${id} was already closed after ${Math.round(reaped.idleMs / 60_000)} idle minutes; nothing to do`
        : `no session ${id} is open (already closed, or never opened); nothing to do`;
      return { data: { closed: false, note }, text: note };
    }
    const target = session.target;
    // A core's pid names a process that is gone (the number may belong to another one now).
    const pids = target.kind === 'core' ? [] : [...session.snapshot.inferiors.values()];
    const debuggerPid = session.debugger.pid;
    const closed = await ctx.sessions.close(id);
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
