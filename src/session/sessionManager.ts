// All sessions of one server: creation with a cap, lookup, idle reaping, and closing everything
// at shutdown.

import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { LaunchSpec, LoadReport } from '../backends/debuggerBackend.js';
import { GdbBackend, type GdbBackendOptions } from '../backends/gdb/gdbBackend.js';
import { childEnvironment } from '../process/childEnvironment.js';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { Session, type SessionTarget } from './session.js';

export interface SessionManagerOptions {
  /** Most sessions open at once. */
  maxSessions?: number;
  /** Close a session nobody used for this long (ms); 0 = never. */
  idleTimeoutMs?: number;
  /** gdb executable. */
  gdbPath?: string;
  /** Extra variables of the server's environment passed on to debuggers and programs. */
  passthroughEnv?: readonly string[];
  /** Deadline of one debugger command (ms). */
  commandTimeoutMs?: number;
  allowInferiorCalls?: boolean;
  /** Bytes of program output kept per session. */
  outputCapacity?: number;
  /** Resolved directories whose files answers may quote as source (undefined: any). */
  sourceRoots?: readonly string[];
  /** A directory for MI transcripts, one file per session (`<id>.mi`), or undefined for none. */
  transcriptDir?: string;
}

export interface ReapedSession {
  id: string;
  program: string;
  idleMs: number;
  at: number;
}

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly reaped: ReapedSession[] = [];
  private reaper: NodeJS.Timeout | undefined;
  private shuttingDown = false;
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

  /** A new GDB session with `spec` loaded (not started). */
  async launch(spec: LaunchSpec, signal?: AbortSignal): Promise<{ session: Session; report: LoadReport }> {
    const session = await this.create({ kind: 'launch', program: spec.program, args: spec.args });
    try {
      const report = await session.load(spec, signal);
      return { session, report };
    } catch (e) {
      await this.close(session.id);
      throw e;
    }
  }

  /** A new session whose debugger runs with nothing loaded yet (sessionTargets.ts loads the rest). */
  async create(target: SessionTarget, backend: Partial<GdbBackendOptions> = {}): Promise<Session> {
    if (this.shuttingDown) throw new DebuggerError('wrong_state', 'the server is shutting down');
    if (this.sessions.size >= this.options.maxSessions) {
      throw new DebuggerError(
        'limit_exceeded',
        `${this.sessions.size} sessions are open, the most this server allows (--max-sessions): close one with dbg_close`,
        { limit: this.options.maxSessions },
      );
    }
    const id = randomBytes(4).toString('hex');
    const transcript = this.openTranscript(id);
    const debuggerBackend = await GdbBackend.launch({
      gdbPath: this.options.gdbPath,
      env: childEnvironment(process.env, this.options.passthroughEnv),
      commandTimeoutMs: this.options.commandTimeoutMs,
      allowInferiorCalls: this.options.allowInferiorCalls,
      outputCapacity: this.options.outputCapacity,
      ...(this.options.sourceRoots ? { sourceRoots: this.options.sourceRoots } : {}),
      ...backend,
      ...(transcript ? { transcript: (dir, line) => transcript.write(`${dir === 'send' ? '>' : '<'} ${line}\n`) } : {}),
    }).catch((e: unknown) => {
      transcript?.end();
      throw e;
    });
    if (transcript) debuggerBackend.subscribe((e) => e.type === 'died' && transcript.end());
    const session = new Session(id, debuggerBackend, target);
    this.sessions.set(id, session);
    return session;
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
