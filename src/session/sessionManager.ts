// All sessions of one server: opening with a cap, lookup, idle reaping, and closing everything
// at shutdown. Backends come from the registry; the manager knows them only by kind.

import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { BackendKind, DebuggerBackend, LaunchSpec, OpenReport, TargetSpec } from '../backends/debuggerBackend.js';
import { type BackendOptions, createBackend } from '../backends/registry.js';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import type { RunOutcome } from './runControl.js';
import { Session } from './session.js';
import type { SessionTarget } from './targetRules.js';

export interface SessionManagerOptions {
  /** Most sessions open at once. */
  maxSessions?: number;
  /** Close a session nobody used for this long (ms); 0 = never. */
  idleTimeoutMs?: number;
  /** What every backend is created with (executables, environment, deadlines, source roots). */
  backends?: Omit<BackendOptions, 'transcript' | 'openTimeoutMs'>;
  /** A directory for debugger transcripts, one file per session (`<id>.mi`), or undefined for none. */
  transcriptDir?: string;
}

export interface ReapedSession {
  id: string;
  program: string;
  idleMs: number;
  at: number;
}

export interface OpenRequest {
  /** How long to wait for the target's first stop (and for a server it needs to start). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** A backend made by the caller instead of the registry's (tests stand in a replay server). */
  backend?: (options: BackendOptions) => Promise<DebuggerBackend>;
  /** Who opens it (the MCP client's name): a person's shared debugger is told who joins. */
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
      // A person's session: like an attached process, it was not started here and is never
      // killed from here (the backend refuses to), whatever it is called in the listing.
      return { kind: 'attach', program: target.share.program ?? '', args: [], pid: target.share.pid ?? 0 };
  }
}

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly reaped: ReapedSession[] = [];
  private reaper: NodeJS.Timeout | undefined;
  private shuttingDown = false;
  /** Slots taken by opens still under way: counted before the first await, so a burst cannot pass the cap. */
  private reserved = 0;
  readonly options: Required<Pick<SessionManagerOptions, 'maxSessions' | 'idleTimeoutMs'>> & SessionManagerOptions;

  constructor(options: SessionManagerOptions = {}) {
    this.options = { maxSessions: 16, idleTimeoutMs: 30 * 60_000, ...options };
    if (this.options.idleTimeoutMs > 0) {
      const every = Math.min(60_000, Math.max(1000, Math.floor(this.options.idleTimeoutMs / 4)));
      this.reaper = setInterval(() => void this.reapIdle(), every);
      this.reaper.unref();
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** Sessions closed for idleness, most recent last (a bounded notice list). */
  get reapedSessions(): readonly ReapedSession[] {
    return this.reaped;
  }

  get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) {
      const reaped = this.reaped.find((r) => r.id === id);
      const why = reaped
        ? `session ${id} was closed after ${Math.round(reaped.idleMs / 60_000)} idle minutes`
        : `no session ${JSON.stringify(id)}`;
      throw new DebuggerError('no_session', `${why}: call dbg_sessions to list sessions, or dbg_start for a new one`);
    }
    return s;
  }

  /** Takes a slot under the cap now, synchronously; the returned function gives it back. */
  private reserve(): () => void {
    if (this.shuttingDown) throw new DebuggerError('wrong_state', 'the server is shutting down');
    const open = this.sessions.size + this.reserved;
    if (open >= this.options.maxSessions) {
      throw new DebuggerError(
        'limit_exceeded',
        `${open} sessions are open, the most this server allows (--max-sessions): close one with dbg_close`,
        { limit: this.options.maxSessions },
      );
    }
    this.reserved++;
    let released = false;
    return () => {
      if (!released) this.reserved--;
      released = true;
    };
  }

  /**
   * A new session of `kind` on `target`: the debugger started, the target opened (a launch is
   * loaded, not started; a core, an attach or a stub at its first stop). A failure leaves nothing.
   */
  async open(kind: BackendKind, target: TargetSpec, request: OpenRequest): Promise<OpenedSession> {
    const release = this.reserve();
    let session: Session | undefined;
    try {
      const id = randomBytes(4).toString('hex');
      const transcript = this.openTranscript(id);
      const options: BackendOptions = {
        paths: {},
        ...this.options.backends,
        openTimeoutMs: request.timeoutMs,
        ...(request.client !== undefined ? { client: request.client } : {}),
        ...(transcript
          ? { transcript: (dir, line) => transcript.write(`${dir === 'send' ? '>' : '<'} ${line}\n`) }
          : {}),
      };
      const backend = await (request.backend ? request.backend(options) : createBackend(kind, options, target)).catch(
        (e: unknown) => {
          transcript?.end();
          throw e;
        },
      );
      if (transcript) backend.subscribe((e) => e.type === 'died' && transcript.end());
      session = new Session(id, backend, sessionTarget(target));
      this.sessions.set(id, session);
      release();
      const opened = await session.open(target, request.timeoutMs, request.signal);
      return { session, ...opened };
    } catch (e) {
      release();
      if (session) await this.close(session.id);
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

  /** Closes one session; closing an unknown or already closed id is not an error. */
  async close(id: string): Promise<boolean> {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    await s.close();
    return true;
  }

  async closeAll(): Promise<void> {
    this.shuttingDown = true;
    if (this.reaper) clearInterval(this.reaper);
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.close(id)));
  }

  async reapIdle(now = Date.now()): Promise<void> {
    const limit = this.options.idleTimeoutMs;
    if (limit <= 0) return;
    for (const s of this.list()) {
      const idleMs = now - s.lastUsedAt;
      if (idleMs < limit) continue;
      log('info', 'closing idle session', { session: s.id, idleMs });
      this.reaped.push({ id: s.id, program: s.target.program, idleMs, at: now });
      if (this.reaped.length > 32) this.reaped.shift();
      await this.close(s.id);
    }
  }
}
