// The server's settings. Each has a command-line flag and a DBG_MCP_* environment variable
// (src/cli/options.ts reads both); this file only says what they are and their defaults.

import type { BackendKind, RawPolicy } from '../backends/debuggerBackend.js';
import { rrRecorder } from '../backends/registry.js';
import type { LogLevel } from '../util/log.js';
import { type AttachPolicy, DEFAULT_REMOTE_HOSTS } from './policy.js';

export type RawMode = 'off' | RawPolicy;

/** Per backend: the executable to run (`backends.gdb.path`). */
export type BackendSettings = Partial<Record<BackendKind, { path?: string }>>;

export interface ServerConfig {
  /** Settings of each backend (`--gdb PATH` sets backends.gdb.path). */
  backends: BackendSettings;
  /** Workspace roots: programs, cores and working directories must lie under one of them. */
  roots: string[];
  /**
   * Raw debugger commands (dbg_command): `off` (no tool), `read` (the backend's allowlist of
   * read-only inspection commands, the default), or `full` (every command but those that would
   * break the session; no other policy binds it).
   */
  raw: RawMode;
  /** Breakpoints (of every kind) one session may hold. */
  maxBreakpoints: number;
  /** Inferior function calls (`print f(1)`) allowed. */
  allowInferiorCalls: boolean;
  maxSessions: number;
  /**
   * Debuggers kept started ahead of the next session, per backend kind that served one in the
   * last 10 minutes (not sessions: not under maxSessions); 0 = none.
   */
  warm: number;
  /** Most sessions one client may hold at once (undefined: only maxSessions). */
  clientSessions: number | undefined;
  /** Idle sessions are closed after this many ms (0 = never). */
  idleTimeoutMs: number;
  /** Deadline of one debugger command (ms). */
  commandTimeoutMs: number;
  /** Default wait of a run (ms) when a call gives no timeout_ms. */
  runTimeoutMs: number;
  /** Default answer budget, in characters of text. */
  answerBudget: number;
  /** Variables of the server's environment passed on to debuggers and programs. */
  passthroughEnv: string[];
  logLevel: LogLevel;
  /** Directory for MI transcripts (one file per session), or undefined for none. */
  transcriptDir: string | undefined;
  /** Where rr recordings go and are listed from (_RR_TRACE_DIR, else rr's default). */
  rrTraceDir: string;
  /** Processes a session may attach to (policy.ts). */
  /**
   * Whether the operator set --attach-pids (or its variable or config key): without it, clients
   * over HTTP and the unix socket may not attach at all; stdio's one client gets the default.
   */
  attachPidsFromOperator: boolean;
  attachPids: AttachPolicy;
  /** A Wine prefix of the operator's own for backend=winedbg (their ~/.wine); default: the server's own, in the cache. */
  winePrefix: string | undefined;
  /** Hosts a session may connect to as a remote target (policy.ts). */
  remoteHosts: readonly string[];
  /** Clients (by name) that may list and join the debuggers people share; stdio always may. */
  joinClients: readonly string[];
}

export function defaultConfig(): ServerConfig {
  return {
    backends: { gdb: { path: 'gdb' } },
    roots: [process.cwd()],
    raw: 'read',
    maxBreakpoints: 256,
    allowInferiorCalls: false,
    maxSessions: 16,
    warm: 1,
    clientSessions: undefined,
    idleTimeoutMs: 30 * 60_000,
    commandTimeoutMs: 30_000,
    runTimeoutMs: 30_000,
    answerBudget: 16 * 1024,
    passthroughEnv: [],
    logLevel: 'info',
    transcriptDir: undefined,
    rrTraceDir: rrRecorder.defaultDirectory(process.env),
    attachPids: 'own',
    attachPidsFromOperator: false,
    winePrefix: undefined,
    remoteHosts: DEFAULT_REMOTE_HOSTS,
    joinClients: [],
  };
}

/** The executables configured, by backend kind, as the registry takes them. */
export function backendPaths(config: Pick<ServerConfig, 'backends'>): Partial<Record<BackendKind, string>> {
  const paths: Partial<Record<BackendKind, string>> = {};
  for (const [kind, settings] of Object.entries(config.backends) as [BackendKind, { path?: string }][]) {
    if (settings?.path) paths[kind] = settings.path;
  }
  return paths;
}
