// All sessions of one server: opening with a cap (and a cap per client), lookup by the client
// that holds the session, handoffs between clients, idle reaping, and closing everything at
// shutdown. Backends come from the registry; the manager knows them only by kind.

import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { BackendKind, DebuggerBackend, LaunchSpec, OpenReport, TargetSpec } from '../backends/debuggerBackend.js';
import {
  type BackendOptions,
  createBackend,
  createDebuggerPool,
  type DebuggerPool,
  type PoolStats,
} from '../backends/registry.js';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { LIMITS } from './limits.js';
import type { CallNote, ObservationLog } from './observations.js';
import type { RunOutcome } from './runControl.js';
import { Session } from './session.js';
import type { SessionObserver } from './sessionObserver.js';
import { type Offer, SessionOwners, STDIO_CLIENT } from './sessionOwners.js';
import { StartRequests } from './startRequests.js';
import type { SessionTarget } from './targetRules.js';

/** A pooled debugger died as the session opened on it: the open may be tried again on a fresh one. */
class PooledDebuggerDied extends Error {
  constructor(readonly error: unknown) {
    super('the pooled debugger died');
  }
}

export interface SessionManagerOptions {
  /** Most sessions open at once. */
  maxSessions?: number;
  /** Most sessions one client may hold at once (undefined: half of maxSessions, at least one, for a network client; all for stdio). */
  clientSessions?: number | undefined;
  /** Close a session nobody used for this long (ms); 0 = never. */
  idleTimeoutMs?: number;
  /** What every backend is created with (executables, environment, deadlines, source roots). */
  backends?: Omit<BackendOptions, 'transcript' | 'openTimeoutMs'>;
  /** A directory for debugger transcripts, one file per session (`<id>.mi`), or undefined for none. */
  transcriptDir?: string;
  /** Told of debugger deaths, idle closes and leftover sweeps (for /metrics). */
  observer?: SessionObserver | undefined;
  /**
   * Debuggers kept started ahead of sessions, per backend kind that served one in the last 10
   * minutes (--warm); 0 or absent: none, every session starts its own.
   */
  warm?: number;
}

export interface ReapedSession {
  id: string;
  program: string;
  idleMs: number;
  at: number;
  /** Who held it: only they are told it was closed. */
  client: string;
}

export interface OpenRequest {
  /** How long to wait for the target's first stop (and for a server it needs to start). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** A backend made by the caller instead of the registry's (tests stand in a replay server). */
  backend?: (options: BackendOptions) => Promise<DebuggerBackend>;
  /** Who opens it: the session is theirs alone (default: the stdio client); a person's shared debugger is told who joins. */
  client?: string;
}

export interface OpenedSession {
  session: Session;
  report: OpenReport;
  /** The first stop of a target that reports one (a core's signal, where an attach stopped it). */
  outcome?: RunOutcome;
}

/** What the session lists as its target, from what was opened. */
function sessionTarget(target: TargetSpec): SessionTarget {
  const program = target.program?.program ?? '';
  const args = target.program?.args ?? [];
  const remote = 'remote' in target && target.remote !== undefined ? { remote: target.remote } : {};
  switch (target.kind) {
    case 'launch':
      return { kind: 'launch', program, args, ...remote };
    case 'core':
      return { kind: 'core', program, args, core: target.core };
    case 'attach':
      return { kind: 'attach', program, args, pid: target.pid, ...remote };
    case 'remote':
      return { kind: 'remote', program, args, ...remote };
    case 'replay':
      return { kind: 'replay', program, args: [], trace: target.trace };
    case 'joined':
      // A person's session: not started here and never killed from here (the backend refuses to).
      return {
        kind: 'joined',
        program: target.share.program ?? '',
        args: [],
        ...(target.share.pid !== undefined && target.share.pid > 0 ? { pid: target.share.pid } : {}),
      };
  }
}

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly reaped: ReapedSession[] = [];
  /** Closed sessions' observations, with who held them, oldest first (LIMITS.closedSessionsKept). */
  private readonly closedLogs = new Map<string, { client: string | undefined; log: ObservationLog }>();
  private reaper: NodeJS.Timeout | undefined;
  private shuttingDown = false;
  /** Slots taken by opens still under way: counted before the first await, so a burst cannot pass the cap. */
  private reserved = 0;
  private readonly owners = new SessionOwners();
  /** Starts that carried a request_id, for their retries (forgotten with their session). */
  readonly startRequests = new StartRequests();
  readonly options: Required<Pick<SessionManagerOptions, 'maxSessions' | 'idleTimeoutMs'>> & SessionManagerOptions;
  /** Debuggers started ahead of the sessions that will take them: not sessions, not under the cap. */
  private readonly pool: DebuggerPool;

  constructor(options: SessionManagerOptions = {}) {
    this.options = { maxSessions: 16, idleTimeoutMs: 30 * 60_000, ...options };
    // Nothing starts here: the pool fills once a session of a kind has been asked for, so a
    // server's start (initialize) never waits for it.
    this.pool = createDebuggerPool({ paths: {}, ...this.options.backends }, this.options.warm ?? 0);
    if (this.options.idleTimeoutMs > 0) {
      const every = Math.min(60_000, Math.max(1000, Math.floor(this.options.idleTimeoutMs / 4)));
      this.reaper = setInterval(() => void this.reapIdle(), every);
      this.reaper.unref();
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Every session, or those `client` holds. */
  list(client?: string): Session[] {
    const all = [...this.sessions.values()];
    return client === undefined ? all : all.filter((s) => this.owners.holds(s.id, client));
  }

  /** Sessions closed for idleness, most recent last (a bounded notice list): all, or those `client` held. */
  reapedSessions(client?: string): readonly ReapedSession[] {
    return client === undefined ? this.reaped : this.reaped.filter((r) => r.client === client);
  }

  /** Who holds a session (for the log), or undefined. */
  holderOf(id: string): string | undefined {
    return this.owners.holder(id);
  }

  /**
   * The session `id`; with `client`, only if that client holds it. A session held by another
   * client gets the very answer an unknown id gets: its existence is not the caller's to learn.
   */
  get(id: string, client?: string): Session {
    const s = this.sessions.get(id);
    if (!s || (client !== undefined && !this.owners.holds(id, client))) {
      const reaped = this.reaped.find((r) => r.id === id && (client === undefined || r.client === client));
      const why = reaped
        ? `session ${id} was closed after ${Math.round(reaped.idleMs / 60_000)} idle minutes`
        : `no session ${JSON.stringify(id)}`;
      throw new DebuggerError('no_session', `${why}: call dbg_sessions to list sessions, or dbg_start for a new one`);
    }
    return s;
  }

  /**
   * Takes a slot under the cap and under `client`'s quota now, synchronously (a burst of starts
   * cannot pass either); the returned function gives it back.
   */
  private reserve(client: string): () => void {
    if (this.shuttingDown) throw new DebuggerError('wrong_state', 'the server is shutting down');
    const open = this.sessions.size + this.reserved;
    if (open >= this.options.maxSessions) {
      throw new DebuggerError(
        'limit_exceeded',
        `${open} sessions are open, the most this server allows (--max-sessions): close one with dbg_close`,
        { limit: this.options.maxSessions, refusal: 'session_limit' },
      );
    }
    this.checkClientQuota(client);
    this.reserved++;
    const releaseClient = this.owners.reserve(client);
    let released = false;
    return () => {
      if (!released) {
        this.reserved--;
        releaseClient();
      }
      released = true;
    };
  }

  private checkClientQuota(client: string): void {
    // A network client's fair share by default: half of --max-sessions (at least one), so one
    // client cannot take every slot. The one client of stdio has all of them.
    const limit =
      this.options.clientSessions ??
      (client === STDIO_CLIENT ? undefined : Math.max(1, Math.floor(this.options.maxSessions / 2)));
    if (limit === undefined) return;
    const held = this.owners.count(client);
    if (held >= limit) {
      throw new DebuggerError(
        'limit_exceeded',
        `you hold ${held} sessions, the most one client may (--client-sessions): close one with dbg_close`,
        { limit, refusal: 'client_session_limit' },
      );
    }
  }

  /**
   * A new session of `kind` on `target`: the debugger started, the target opened (a launch is
   * loaded, not started; a core, an attach or a stub at its first stop). A failure leaves nothing.
   */
  async open(kind: BackendKind, target: TargetSpec, request: OpenRequest): Promise<OpenedSession> {
    const client = request.client ?? STDIO_CLIENT;
    try {
      return await this.openOnce(kind, target, request, client, this.reserve(client), this.pool);
    } catch (e) {
      if (!(e instanceof PooledDebuggerDied)) throw e;
      if (request.signal?.aborted) throw e.error;
      // A ready debugger died between the pool's check and the open (killed from outside): the
      // session starts again on a debugger of its own (no pool: this cannot happen twice);
      // nothing of the program had started.
      log('info', 'the pooled debugger died as its session opened; starting a fresh one', { kind });
      return this.openOnce(kind, target, request, client, this.reserve(client), undefined);
    }
  }

  private async openOnce(
    kind: BackendKind,
    target: TargetSpec,
    request: OpenRequest,
    client: string,
    release: () => void,
    pool: DebuggerPool | undefined,
  ): Promise<OpenedSession> {
    let session: Session | undefined;
    let backend: DebuggerBackend | undefined;
    let diedEarly = false;
    try {
      const id = randomBytes(4).toString('hex');
      const transcript = this.openTranscript(id);
      const options: BackendOptions = {
        paths: {},
        ...this.options.backends,
        openTimeoutMs: request.timeoutMs,
        ...(this.options.observer ? { onSweep: (killed: number) => this.options.observer?.sweep(killed) } : {}),
        ...(request.client !== undefined ? { client: request.client } : {}),
        ...(transcript
          ? { transcript: (dir, line) => transcript.write(`${dir === 'send' ? '>' : '<'} ${line}\n`) }
          : {}),
      };
      const started = await (request.backend
        ? request.backend(options)
        : createBackend(kind, options, target, pool)
      ).catch((e: unknown) => {
        transcript?.end();
        throw e;
      });
      backend = started;
      if (transcript) started.subscribe((e) => e.type === 'died' && transcript.end());
      const opened = new Session(id, started, sessionTarget(target));
      session = opened;
      // gdb reports `died` on an orderly close too: only a death nobody asked for counts.
      started.subscribe((e) => {
        if (e.type !== 'died' || opened.closed) return;
        diedEarly = true;
        this.options.observer?.debuggerDied(started.info.kind);
      });
      this.sessions.set(id, opened);
      this.owners.assign(id, client);
      release();
      const first = await opened.open(target, request.timeoutMs, request.signal);
      return { session: opened, ...first };
    } catch (e) {
      release();
      if (session) await this.close(session.id, 'the target did not open');
      if (diedEarly && backend && pool?.diedAfterTake(backend)) throw new PooledDebuggerDied(e);
      throw e;
    }
  }

  /** A new GDB session with `spec` loaded (not started): the common case, for tests and tools alike. */
  async launch(spec: LaunchSpec, signal?: AbortSignal): Promise<{ session: Session; report: OpenReport }> {
    const { session, report } = await this.open(
      'gdb',
      { kind: 'launch', program: spec },
      { timeoutMs: 30_000, ...(signal ? { signal } : {}) },
    );
    return { session, report };
  }

  private openTranscript(id: string): WriteStream | undefined {
    const dir = this.options.transcriptDir;
    if (!dir) return undefined;
    try {
      mkdirSync(dir, { recursive: true });
      const stream = createWriteStream(join(dir, `${id}.mi`), { flags: 'w', mode: 0o600 });
      stream.on('error', (e) => log('warn', 'transcript not written', { session: id, error: e.message }));
      return stream;
    } catch (e) {
      log('warn', 'transcript not opened', { session: id, error: (e as Error).message });
      return undefined;
    }
  }

  /**
   * Closes one session; closing an unknown or already closed id is not an error. `reason` is what
   * calls still waiting on it are told.
   */
  async close(id: string, reason?: string): Promise<boolean> {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.keepObservations(id, this.owners.holder(id), s.observations);
    this.sessions.delete(id);
    this.owners.remove(id);
    this.startRequests.forgetSession(id);
    await s.close(reason);
    return true;
  }

  /**
   * The observations of session `id`, open or closed (within LIMITS.closedSessionsKept); with
   * `client`, only a session that client holds or held. Unknown: no_session, as get says it.
   */
  observations(id: string, client?: string): ObservationLog {
    const open = this.sessions.get(id);
    if (open && (client === undefined || this.owners.holds(id, client))) return open.observations;
    const closed = this.closedLogs.get(id);
    if (closed && (client === undefined || closed.client === client)) return closed.log;
    return this.get(id, client).observations;
  }

  /** Notes a call in session `id`'s history when `client` holds (or held) it; nothing otherwise. */
  noteCall(id: string, client: string, note: CallNote): void {
    let log: ObservationLog;
    try {
      log = this.observations(id, client);
    } catch {
      return;
    }
    log.noteCall(note);
  }

  private keepObservations(id: string, client: string | undefined, log: ObservationLog): void {
    this.closedLogs.delete(id);
    this.closedLogs.set(id, { client, log });
    let bytes = 0;
    for (const kept of this.closedLogs.values()) bytes += kept.log.bytes;
    for (const [oldest, kept] of this.closedLogs) {
      if (this.closedLogs.size <= LIMITS.closedSessionsKept && bytes <= LIMITS.closedObservationBytes) break;
      this.closedLogs.delete(oldest);
      bytes -= kept.log.bytes;
    }
  }

  async closeAll(reason = 'the server is shutting down'): Promise<void> {
    this.shuttingDown = true;
    if (this.reaper) clearInterval(this.reaper);
    await Promise.allSettled<unknown>([
      ...[...this.sessions.keys()].map((id) => this.close(id, reason)),
      this.pool.close(),
    ]);
  }

  /** What the debugger pool did so far and holds now (tests, diagnostics). */
  poolStats(): PoolStats {
    return this.pool.stats();
  }

  /** A call has answered: the pool refills what was taken from it, between the agent's calls. */
  callAnswered(): void {
    this.pool.topUp();
  }

  /** Pids of the debuggers the pool holds ready now. */
  pooledPids(): number[] {
    return this.pool.pids();
  }

  // ---- handoffs -----------------------------------------------------------------------------

  /**
   * `from` offers its session to `to`: it stays open (its idle clock restarts, so the receiver
   * gets the whole idle timeout to take it), and stays `from`'s until `to` takes it.
   */
  offer(id: string, from: string, to: string): { session: Session; offer: Offer } {
    const session = this.get(id, from);
    const offer = this.owners.offer(id, to);
    session.lastUsedAt = Date.now();
    log('info', 'session offered', { session: id, from, to });
    return { session, offer };
  }

  /**
   * `client` takes the session offered to it, or undefined when none with that id is: then the
   * id is someone else's business (a person's shared debugger, or nothing).
   */
  take(id: string, client: string): Session | undefined {
    const session = this.sessions.get(id);
    const offer = this.owners.offerTo(id, client);
    if (!session || !offer) return undefined;
    this.checkClientQuota(client);
    this.owners.assign(id, client);
    // The giver's retries of its start must not find a session that is no longer theirs.
    this.startRequests.forgetSession(id);
    session.lastUsedAt = Date.now();
    log('info', 'session handed over', { session: id, from: offer.from, to: client });
    return session;
  }

  /** The sessions offered to `client`, with who offered them. */
  offeredTo(client: string): { session: Session; offer: Offer }[] {
    return this.owners.offeredTo(client).flatMap(([id, offer]) => {
      const session = this.sessions.get(id);
      return session ? [{ session, offer }] : [];
    });
  }

  async reapIdle(now = Date.now()): Promise<void> {
    const limit = this.options.idleTimeoutMs;
    if (limit <= 0) return;
    for (const s of this.list()) {
      const idleMs = now - s.lastUsedAt;
      if (idleMs < limit) continue;
      const client = this.owners.holder(s.id) ?? STDIO_CLIENT;
      log('info', 'closing idle session', { session: s.id, client, idleMs });
      this.reaped.push({ id: s.id, program: s.target.program, idleMs, at: now, client });
      if (this.reaped.length > 32) this.reaped.shift();
      this.options.observer?.reaped(client);
      await this.close(s.id, `nobody used it for ${Math.round(idleMs / 60_000)} minutes`);
    }
  }
}
