// dbg_sessions: what the caller holds, where each program is, what was offered to it by another
// client, and what was closed for idleness. Another client's sessions are not listed.

import * as z from 'zod/v4';
import type { ShareListing } from '../../backends/debuggerBackend.js';
import { findShares } from '../../backends/registry.js';
import { summarizeStop } from '../../session/evidence.js';
import { LIMITS } from '../../session/limits.js';
import type { Session } from '../../session/session.js';
import type { ReapedSession, SessionManager } from '../../session/sessionManager.js';
import { DebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { printable, renderExit } from '../render.js';
import { sessionId } from '../schemas.js';
import { compact, type Wire } from '../wire.js';
import { mayJoin, shareWords } from './startTarget.js';

/** One line on where the program is: the last stop, the exit, or the phase. */
export function whereNow(session: Session): string {
  const s = session.snapshot.state;
  switch (s.phase) {
    case 'stopped':
      return `stop ${session.snapshot.stopId}: ${summarizeStop(s.stop)}`;
    case 'exited':
      return renderExit(s.exit);
    case 'dead':
      return `the debugger is gone: ${s.reason}`;
    case 'running':
      return 'running';
    case 'loaded':
      return 'loaded, not started';
    case 'starting':
      return 'starting';
  }
}

/** What a session debugs besides a program launched here: a core, an attached pid, a stub. */
export function targetWire(target: Session['target']): Wire | undefined {
  if (target.kind === 'launch' && target.remote === undefined) return undefined;
  return compact({
    kind: target.kind,
    core: target.kind === 'core' ? target.core : undefined,
    pid: target.kind === 'attach' || target.kind === 'joined' ? target.pid : undefined,
    remote: target.remote,
  });
}

/** Pids of the processes debugged; none for a core (its pid names a process that is gone). */
function livePids(session: Session): number[] {
  return session.target.kind === 'core' ? [] : [...session.snapshot.inferiors.values()];
}

function targetText(target: Session['target']): string {
  const via = target.remote ? ` via ${target.remote}` : '';
  if (target.kind === 'core') return ` core ${target.core}`;
  if (target.kind === 'attach') return ` attached${via}`;
  return via;
}

/** Runs whose end their caller may not have seen (a wait cut short, a dropped call), to read with wait. */
function operationsWire(session: Session): Wire[] | undefined {
  const ops = session.operations.list();
  if (ops.length === 0) return undefined;
  return ops.map((op) => ({ id: op.id, action: op.action, state: op.outcome ? 'done' : 'running' }));
}

export function sessionEntry(session: Session, now = Date.now()): Wire {
  const snap = session.snapshot;
  return compact({
    id: session.id,
    backend: session.debugger.kind,
    program: session.target.program,
    args: session.target.args,
    target: targetWire(session.target),
    state: snap.state.phase,
    stop_id: snap.stopId,
    summary: whereNow(session),
    pids: livePids(session),
    debugger_pid: session.debugger.pid,
    joined: session.capabilities.access,
    age_s: Math.round((now - session.createdAt) / 1000),
    idle_s: Math.round((now - session.lastUsedAt) / 1000),
    operations: operationsWire(session),
  });
}

export function reapedEntry(r: ReapedSession): Wire {
  return { id: r.id, program: r.program, idle_s: Math.round(r.idleMs / 1000), at: new Date(r.at).toISOString() };
}

/** What `client` may see: its sessions, those offered to it, and its own closed for idleness. */
export function listSessions(
  sessions: SessionManager,
  client: string,
): { sessions: Wire[]; offered?: Wire[]; reaped?: Wire[] } {
  const now = Date.now();
  const reaped = sessions.reapedSessions(client).map(reapedEntry);
  const offered = sessions.offeredTo(client).map(({ session, offer }) => ({
    id: session.id,
    from: offer.from,
    program: session.target.program,
    summary: whereNow(session),
  }));
  return {
    sessions: sessions.list(client).map((s) => sessionEntry(s, now)),
    ...(offered.length > 0 ? { offered } : {}),
    ...(reaped.length > 0 ? { reaped } : {}),
  };
}

const output = z.object({
  sessions: z.array(z.looseObject({})).optional().describe('Absent with history.'),
  history: z
    .object({
      session_id: z.string(),
      entries: z.array(z.looseObject({})).describe('call, stop, observation entries, each with seq and at.'),
      next: z.number().int().optional().describe('from for the next page; absent on the last.'),
      total: z.number().int().describe('Entries ever noted (the oldest past the limit are dropped).'),
      dropped: z.number().int().optional(),
    })
    .optional(),
  offered: z.array(z.looseObject({})).optional(),
  reaped: z.array(z.looseObject({})).optional(),
  shares: z.array(z.looseObject({})).optional().describe("People's debuggers to join (dbg_start join)."),
  shares_ignored: z.array(z.looseObject({})).optional(),
});

/** The shares found on this machine, as the answer lists them. */
function sharesWire(listing: ShareListing): { shares?: Wire[]; shares_ignored?: Wire[] } {
  const shares = listing.shares.map((s) =>
    compact({
      id: s.id,
      debugger: s.debugger,
      owner: s.owner,
      access: s.access,
      program: s.program,
      pid: s.pid,
      debugger_pid: s.debuggerPid,
      state: s.state,
      joined: s.joined || undefined,
    }),
  );
  const ignored = listing.ignored.map((i) => compact({ file: i.file, why: i.why, stale: i.stale }));
  return { ...(shares.length > 0 ? { shares } : {}), ...(ignored.length > 0 ? { shares_ignored: ignored } : {}) };
}

export const sessionsTool = defineTool({
  name: 'dbg_sessions',
  title: 'Sessions',
  description:
    'Your open sessions (id, program, state, stop_id, last stop, pids, idle_s), those offered to you, those closed for idleness, and debuggers people share on this machine (dbg_start join=ID). session_id+history: its calls, stops, observations.',
  input: z.strictObject({
    session_id: sessionId.optional().describe('For history.'),
    history: z.boolean().optional().describe('In order, paged.'),
    from: z.number().int().min(1).optional().describe('History: first seq.'),
    limit: z.number().int().min(1).max(LIMITS.historyPage).optional().describe('History entries per page.'),
  }),
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    if (args.history || args.from !== undefined || args.limit !== undefined) {
      if (args.session_id === undefined) {
        throw new DebuggerError('invalid_argument', 'history needs session_id: the session whose history to list', {
          fields: ['session_id'],
        });
      }
      return historyAnswer(ctx.sessions, ctx.client, args.session_id, args.from ?? 1, args.limit ?? 50);
    }
    if (args.session_id !== undefined) {
      throw new DebuggerError('invalid_argument', 'session_id goes with history=true (the list shows every session)', {
        fields: ['session_id'],
      });
    }
    const now = Date.now();
    const list = ctx.sessions.list(ctx.client);
    const lines = list.map((s) => {
      const pids = livePids(s);
      const args = s.target.args.length > 0 ? ` ${s.target.args.map((a) => JSON.stringify(a)).join(' ')}` : '';
      const ops = s.operations.list().map((op) => `${op.id} (${op.action}, ${op.outcome ? 'done' : 'running'})`);
      return printable(
        `${s.id} ${s.debugger.kind}${s.capabilities.access ? ` (joined, ${s.capabilities.access === 'control' ? 'read and run' : 'read only'})` : ''} ${s.phase} ${s.target.program || '(program unknown)'}${args}${s.capabilities.access ? '' : targetText(s.target)}${pids.length ? ` pid ${pids.join(',')}` : ''} idle ${Math.round((now - s.lastUsedAt) / 1000)}s: ${whereNow(s)}${ops.length ? `; operations to read with dbg_run action=wait: ${ops.join(', ')}` : ''}`,
      );
    });
    if (lines.length === 0) lines.push('no sessions open (dbg_start opens one)');
    for (const { session, offer } of ctx.sessions.offeredTo(ctx.client)) {
      lines.push(
        printable(
          `offered to you by ${offer.from}: ${session.id} ${session.target.program || '(program unknown)'}: ${whereNow(session)} (dbg_start join=${session.id} takes it)`,
        ),
      );
    }
    const reaped = ctx.sessions.reapedSessions(ctx.client);
    for (const r of reaped) {
      lines.push(
        `closed for idleness: ${r.id} (${r.program}) after ${Math.round(r.idleMs / 60_000)} idle minutes, at ${new Date(r.at).toISOString()}`,
      );
    }
    let shared: ReturnType<typeof sharesWire> = {};
    if (mayJoin(ctx)) {
      const listing = await findShares();
      shared = sharesWire(listing);
      for (const share of listing.shares) {
        lines.push(
          printable(
            `shared: ${share.id} ${shareWords(share)}; ${share.state}${share.joined ? ', joined' : ''} (dbg_start join=${share.id})`,
          ),
        );
      }
      for (const i of listing.ignored) lines.push(printable(`share passed over: ${i.file} ${i.why}`));
    }
    return { data: { ...listSessions(ctx.sessions, ctx.client), ...shared }, text: lines.join('\n') };
  },
});

/** A session's history page: each call (tool, arguments redacted, outcome, ids), stop and observation. */
function historyAnswer(sessions: SessionManager, client: string, id: string, from: number, limit: number) {
  const log = sessions.observations(id, client);
  const page = log.history(from, limit);
  const lines = [`history of session ${id}: ${page.entries.length} of ${page.total} entries from ${from}`];
  const entries = page.entries.map((e) => {
    const at = new Date(e.at).toISOString();
    switch (e.kind) {
      case 'call':
        lines.push(
          printable(
            `${e.seq} ${at} ${e.tool} ${JSON.stringify(e.arguments)} → ${e.outcome}${e.stopId ? ` · stop ${e.stopId}` : ''}${e.observations.length ? ` · ${e.observations.join(', ')}` : ''}`,
          ),
        );
        return compact({
          seq: e.seq,
          kind: e.kind,
          at,
          tool: e.tool,
          arguments: e.arguments as Wire,
          outcome: e.outcome,
          duration_ms: e.durationMs,
          stop_id: e.stopId,
          observations: e.observations.length > 0 ? e.observations : undefined,
        });
      case 'stop':
        lines.push(printable(`${e.seq} ${at} stop ${e.stopId}${e.summary ? `: ${e.summary}` : ''}`));
        return compact({ seq: e.seq, kind: e.kind, at, stop_id: e.stopId, summary: e.summary });
      default:
        lines.push(`${e.seq} ${at} observation ${e.id}: ${e.of} at stop ${e.stopId}`);
        return { seq: e.seq, kind: e.kind, at, id: e.id, of: e.of, stop_id: e.stopId };
    }
  });
  if (page.next !== undefined) lines.push(`more: from=${page.next}`);
  if (log.historyDropped > 0)
    lines.push(`${log.historyDropped} older entries dropped (${LIMITS.historyPerSession} kept)`);
  return {
    data: {
      history: {
        session_id: id,
        entries,
        ...(page.next !== undefined ? { next: page.next } : {}),
        total: page.total,
        ...(log.historyDropped > 0 ? { dropped: log.historyDropped } : {}),
      },
    },
    text: lines.join('\n'),
  };
}
