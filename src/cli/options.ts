// Command-line flags and DBG_MCP_* environment variables: one table, read in one place. A flag
// wins over its variable. An unknown DBG_MCP_* name or an unusable value stops start-up with the
// name in the message, rather than running on defaults the operator did not choose.

import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { defaultConfig, type RawMode, type ServerConfig } from '../server/config.js';
import { parseAttachPolicy, parseRemoteHosts } from '../server/policy.js';
import { parseListenAddress } from '../transport/listenAddress.js';
import { defaultTransportConfig, type TransportConfig } from '../transport/transportConfig.js';
import { defaultSocketPath } from '../transport/unixSocket.js';
import { didYouMean } from '../util/didYouMean.js';
import type { LogLevel } from '../util/log.js';

export class OptionError extends Error {}

interface OptionSpec {
  flag: string;
  env: string;
  value: string;
  help: string;
  /** An on|off flag that may stand alone, meaning on (`--allow-remote`). */
  bare?: true;
  apply(config: ServerConfig, raw: string, from: string, transport: TransportConfig): void;
}

function positiveInt(raw: string, from: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new OptionError(`${from}: ${JSON.stringify(raw)} is not a whole number`);
  const n = Number(raw);
  if (n < min || n > max) throw new OptionError(`${from}: ${n} is out of range (${min} to ${max})`);
  return n;
}

function onOff(raw: string, from: string): boolean {
  if (/^(on|true|1|yes)$/i.test(raw)) return true;
  if (/^(off|false|0|no)$/i.test(raw)) return false;
  throw new OptionError(`${from}: ${JSON.stringify(raw)} is not on or off`);
}

function rawMode(raw: string, from: string): RawMode {
  if (raw === 'off' || raw === 'read' || raw === 'full') return raw;
  // `on` meant every command before read existed: make the operator choose, not guess.
  const was = /^(on|true|1|yes)$/i.test(raw) ? ' (on is gone: read is the default, full the old on)' : '';
  throw new OptionError(`${from}: ${JSON.stringify(raw)} is not off, read or full${was}`);
}

function nonEmpty(raw: string, from: string): string {
  if (raw.trim() === '') throw new OptionError(`${from}: the value is empty`);
  return raw;
}

export const OPTIONS: OptionSpec[] = [
  {
    flag: '--gdb',
    env: 'DBG_MCP_GDB',
    value: 'PATH',
    help: 'gdb executable (default: gdb on PATH)',
    apply: (c, raw, from) => {
      c.backends = { ...c.backends, gdb: { ...c.backends.gdb, path: nonEmpty(raw, from) } };
    },
  },
  {
    flag: '--lldb-dap',
    env: 'DBG_MCP_LLDB_DAP',
    value: 'PATH',
    help: 'lldb-dap executable for backend=lldb (default: the newest lldb-dap-NN, else lldb-dap, on PATH)',
    apply: (c, raw, from) => {
      c.backends = { ...c.backends, lldb: { ...c.backends.lldb, path: nonEmpty(raw, from) } };
    },
  },
  {
    flag: '--wine-prefix',
    env: 'DBG_MCP_WINE_PREFIX',
    value: 'DIR',
    help: "a Wine prefix of your own for backend=winedbg, used as it is (default: the server's own, in the cache)",
    apply: (c, raw, from) => {
      c.winePrefix = nonEmpty(raw, from);
    },
  },
  {
    flag: '--root',
    env: 'DBG_MCP_ROOT',
    value: 'DIR',
    help: `workspace root: programs, cores and cwd must lie under one (repeat the flag, or join with "${delimiter}"; default: the current directory)`,
    apply: (c, raw, from) => {
      const dirs = raw.split(delimiter).filter((d) => d !== '');
      if (dirs.length === 0) throw new OptionError(`${from}: no directory given`);
      c.roots = dirs;
    },
  },
  {
    flag: '--config',
    env: 'DBG_MCP_CONFIG',
    value: 'FILE',
    help: 'a JSON object of settings named as these flags without the dashes ({"root": ["/src"], "max-sessions": 4}); variables and flags override it',
    // Read before the variables and the flags (readConfigFile); nothing to apply in their pass.
    apply: () => {},
  },
  {
    flag: '--raw',
    env: 'DBG_MCP_RAW',
    value: 'off|read|full',
    help:
      'raw debugger commands (dbg_command): read (default) allows read-only inspection commands only; ' +
      "full allows every command with the server's authority, and then no policy binds it: not the roots, " +
      'remote hosts, attach pids, inferior calls nor the environment filter; off removes the tool',
    apply: (c, raw, from) => {
      c.raw = rawMode(raw, from);
    },
  },
  {
    flag: '--inferior-calls',
    env: 'DBG_MCP_INFERIOR_CALLS',
    value: 'on|off',
    help: 'allow expressions that call functions in the program (default off)',
    apply: (c, raw, from) => {
      c.allowInferiorCalls = onOff(raw, from);
    },
  },
  {
    flag: '--max-breakpoints',
    env: 'DBG_MCP_MAX_BREAKPOINTS',
    value: 'N',
    help: 'breakpoints, watchpoints, catchpoints and dprintfs one session may hold (default 256)',
    apply: (c, raw, from) => {
      c.maxBreakpoints = positiveInt(raw, from, 1, 100_000);
    },
  },
  {
    flag: '--max-sessions',
    env: 'DBG_MCP_MAX_SESSIONS',
    value: 'N',
    help: 'sessions open at once (default 16)',
    apply: (c, raw, from) => {
      c.maxSessions = positiveInt(raw, from, 1, 1024);
    },
  },
  {
    flag: '--warm',
    env: 'DBG_MCP_WARM',
    value: 'N',
    help: 'debuggers kept started ahead of the next dbg_start, per backend used in the last 10 minutes; 0 = none (default 1)',
    apply: (c, raw, from) => {
      c.warm = positiveInt(raw, from, 0, 8);
    },
  },
  {
    flag: '--idle-timeout',
    env: 'DBG_MCP_IDLE_TIMEOUT',
    value: 'MINUTES',
    help: 'close sessions unused this long; 0 = never (default 30)',
    apply: (c, raw, from) => {
      c.idleTimeoutMs = positiveInt(raw, from, 0, 7 * 24 * 60) * 60_000;
    },
  },
  {
    flag: '--command-timeout',
    env: 'DBG_MCP_COMMAND_TIMEOUT',
    value: 'MS',
    help: 'deadline of one debugger command (default 30000)',
    apply: (c, raw, from) => {
      c.commandTimeoutMs = positiveInt(raw, from, 100, 3_600_000);
    },
  },
  {
    flag: '--run-timeout',
    env: 'DBG_MCP_RUN_TIMEOUT',
    value: 'MS',
    help: 'default wait for a run to stop when a call gives no timeout_ms (default 30000)',
    apply: (c, raw, from) => {
      c.runTimeoutMs = positiveInt(raw, from, 1, 3_600_000);
    },
  },
  {
    flag: '--answer-budget',
    env: 'DBG_MCP_ANSWER_BUDGET',
    value: 'CHARS',
    help: 'most characters of text in one answer (default 16384)',
    apply: (c, raw, from) => {
      c.answerBudget = positiveInt(raw, from, 1024, 1_048_576);
    },
  },
  {
    flag: '--passthrough-env',
    env: 'DBG_MCP_PASSTHROUGH_ENV',
    value: 'NAMES',
    help: "comma-separated variables of the server's environment passed to debuggers and programs",
    apply: (c, raw, from) => {
      const names = raw
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '');
      for (const n of names) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n))
          throw new OptionError(`${from}: ${JSON.stringify(n)} is not a variable name`);
      }
      c.passthroughEnv = names;
    },
  },
  {
    flag: '--attach-pids',
    env: 'DBG_MCP_ATTACH_PIDS',
    value: 'own|any|none|PIDS',
    help: "processes a session may attach to: the server user's own (default; for clients over HTTP and the unix socket: none unless this is set), any, none, or comma-separated pids; never the server's own sessions' debuggers and programs",
    apply: (c, raw, from) => {
      try {
        c.attachPids = parseAttachPolicy(raw);
        c.attachPidsFromOperator = true;
      } catch (e) {
        throw new OptionError(`${from}: ${(e as Error).message}`);
      }
    },
  },
  {
    flag: '--remote-hosts',
    env: 'DBG_MCP_REMOTE_HOSTS',
    value: 'PATTERNS',
    help: 'comma-separated hosts a remote target may be on: names (*.lab), addresses, CIDR blocks, or * (default: localhost,127.0.0.0/8,::1)',
    apply: (c, raw, from) => {
      try {
        c.remoteHosts = parseRemoteHosts(raw);
      } catch (e) {
        throw new OptionError(`${from}: ${(e as Error).message}`);
      }
    },
  },
  {
    flag: '--rr-trace-dir',
    env: 'DBG_MCP_RR_TRACE_DIR',
    value: 'DIR',
    help: 'where dbg_record writes rr traces and dbg://traces lists them (default: _RR_TRACE_DIR, else ~/.local/share/rr)',
    apply: (c, raw, from) => {
      c.rrTraceDir = nonEmpty(raw, from);
    },
  },
  {
    flag: '--http',
    env: 'DBG_MCP_HTTP',
    value: 'HOST:PORT',
    help: 'serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio (loopback only unless --allow-remote; port 0 picks a free one)',
    apply: (_c, raw, from, t) => {
      try {
        t.http = parseListenAddress(raw);
      } catch (e) {
        throw new OptionError(`${from}: ${(e as Error).message}`);
      }
    },
  },
  {
    flag: '--unix',
    env: 'DBG_MCP_UNIX',
    value: 'PATH',
    help: "serve MCP over Streamable HTTP on an owner-only (0600) unix socket, in a directory of the server's user that nobody else may write (0700 or 0755; not /); alone: $XDG_RUNTIME_DIR/dbg-mcp.sock, else ~/.local/state/dbg-mcp/dbg-mcp.sock",
    bare: true,
    apply: (_c, raw, from, t) => {
      t.unix = raw === 'on' ? defaultSocketPath() : nonEmpty(raw, from);
    },
  },
  {
    flag: '--token-file',
    env: 'DBG_MCP_TOKEN_FILE',
    value: 'FILE',
    help: 'bearer tokens, one name:token a line (mode 0600, owned by the server user); the name identifies the client; reloaded on SIGHUP',
    apply: (_c, raw, from, t) => {
      t.tokenFile = nonEmpty(raw, from);
    },
  },
  {
    flag: '--allow-remote',
    env: 'DBG_MCP_ALLOW_REMOTE',
    value: 'on|off',
    help: 'let --http bind an address other than loopback (needs --token-file; plain HTTP: put a TLS proxy in front); alone means on',
    bare: true,
    apply: (_c, raw, from, t) => {
      t.allowRemote = onOff(raw, from);
    },
  },
  {
    flag: '--client-sessions',
    env: 'DBG_MCP_CLIENT_SESSIONS',
    value: 'N',
    help: "sessions one network client may hold open at once (default: half of --max-sessions, at least one; stdio's one client: --max-sessions)",
    apply: (c, raw, from) => {
      c.clientSessions = positiveInt(raw, from, 1, 1024);
    },
  },
  {
    flag: '--join-clients',
    env: 'DBG_MCP_JOIN_CLIENTS',
    value: 'NAMES',
    help: "comma-separated HTTP/socket clients (token names, local, loopback) that may list and join the debuggers people share (dbg-mcp share, LLDB's protocol server); stdio always may",
    apply: (c, raw) => {
      c.joinClients = raw
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '');
    },
  },
  {
    flag: '--log-level',
    env: 'DBG_MCP_LOG_LEVEL',
    value: 'LEVEL',
    help: 'debug, info, warn or error (default info); logs are JSON lines on stderr',
    apply: (c, raw, from) => {
      if (!['debug', 'info', 'warn', 'error'].includes(raw)) {
        throw new OptionError(`${from}: ${JSON.stringify(raw)} is not one of debug, info, warn, error`);
      }
      c.logLevel = raw as LogLevel;
    },
  },
  {
    flag: '--transcript-dir',
    env: 'DBG_MCP_TRANSCRIPT_DIR',
    value: 'DIR',
    help: "write each session's GDB/MI transcript to a file here (debugging aid)",
    apply: (c, raw, from) => {
      c.transcriptDir = nonEmpty(raw, from);
    },
  },
];

export interface ParsedCommandLine {
  command: 'serve' | 'doctor' | 'demo' | 'share' | 'help' | 'version';
  /** What follows `share` (its own flags, read by src/cli/share.ts). */
  rest?: string[];
  config: ServerConfig;
  /** How serve is reached: stdio unless --http or --unix. */
  transport: TransportConfig;
  json: boolean;
}

/** Reads the environment first, then the flags, into a config. Throws OptionError on bad input. */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  // `share` is a person's command, not the server's: it reads its own flags, and no server setting.
  if (argv[0] === 'share') {
    return {
      command: 'share',
      rest: argv.slice(1),
      config: defaultConfig(),
      transport: defaultTransportConfig(),
      json: false,
    };
  }
  // --help and --version work whatever the environment holds.
  if (argv.includes('--help') || argv.includes('-h'))
    return { command: 'help', config: defaultConfig(), transport: defaultTransportConfig(), json: false };
  if (argv.includes('--version') || argv.includes('-V'))
    return { command: 'version', config: defaultConfig(), transport: defaultTransportConfig(), json: false };
  const config = defaultConfig();
  const transport = defaultTransportConfig();
  const file = configFileNamed(argv, env);
  if (file !== undefined) applyConfigFile(file, config, transport);
  const known = new Map(OPTIONS.map((o) => [o.env, o]));
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('DBG_MCP_') || value === undefined || name === 'DBG_MCP_CONFIG') continue;
    const spec = known.get(name);
    if (!spec) {
      throw new OptionError(
        `${name} is not a setting of dbg-mcp (known: ${[...known.keys()].join(', ')}); unset it or fix the name`,
      );
    }
    spec.apply(config, value, name, transport);
  }
  let command: ParsedCommandLine['command'] = 'serve';
  let json = false;
  const flags = new Map(OPTIONS.map((o) => [o.flag, o]));
  const flagRoots: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (i === 0 && (arg === 'serve' || arg === 'doctor' || arg === 'demo')) {
      command = arg;
      continue;
    }
    if (arg === '--json') {
      json = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = flags.get(name);
    if (!spec) {
      const near = name.startsWith('--') ? didYouMean(name, [...flags.keys()]) : undefined;
      throw new OptionError(
        `unknown argument ${JSON.stringify(arg)}${near !== undefined ? ` (did you mean ${near}?)` : ''} (dbg-mcp --help lists the options)`,
      );
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (spec.bare && (argv[i + 1] === undefined || argv[i + 1]?.startsWith('--'))) value = 'on';
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined) throw new OptionError(`${name} needs a value (${spec.value})`);
    spec.apply(config, value, name, transport);
    // Several --root flags add up (and replace DBG_MCP_ROOT).
    if (name === '--root') flagRoots.push(...config.roots);
  }
  if (flagRoots.length > 0) config.roots = flagRoots;
  return { command, config, transport, json };
}

export function helpText(version: string): string {
  const lines = [
    `dbg-mcp ${version}: an MCP server that debugs native programs with real debuggers.`,
    '',
    'Usage:',
    '  dbg-mcp [serve] [OPTIONS]   serve MCP on stdio (what an MCP client runs)',
    '  dbg-mcp serve --http 127.0.0.1:PORT | --unix PATH [--token-file F] [OPTIONS]',
    '                              one server for several clients, MCP at /mcp (and /healthz, /metrics)',
    '  dbg-mcp doctor [--json]     what this machine can debug, and how to fix what is missing',
    '  dbg-mcp demo                debug a bundled crashing program through the real server',
    '  dbg-mcp share [--allow-control] | --stop [ID] | --list',
    '                              share the gdb you are using with an agent (dbg-mcp share --help)',
    '  dbg-mcp --help | --version',
    '',
    'Options (each also read from its environment variable; the flag wins):',
  ];
  for (const o of OPTIONS) lines.push(`  ${`${o.flag} ${o.value}`.padEnd(28)} ${o.env}`, `      ${o.help}`);
  return lines.join('\n');
}

/** The config file `--config FILE` (or `--config=FILE`) names, else DBG_MCP_CONFIG's. */
function configFileNamed(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--config') {
      const value = argv[i + 1];
      if (value === undefined || value === '') throw new OptionError('--config needs a value (FILE)');
      return value;
    }
    if (arg.startsWith('--config=')) return nonEmpty(arg.slice('--config='.length), '--config');
  }
  const fromEnv = env['DBG_MCP_CONFIG'];
  return fromEnv === undefined ? undefined : nonEmpty(fromEnv, 'DBG_MCP_CONFIG');
}

/** A setting's JSON value as the flag's text: on/off for booleans, lists joined as the flag takes them. */
function configValue(key: string, value: unknown, from: string, spec: OptionSpec): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    if (key === 'root') return value.join(delimiter);
    if (/comma-separated/.test(spec.help)) return value.join(',');
    throw new OptionError(`${from}: a list is not a value of --${key} (${spec.value})`);
  }
  throw new OptionError(`${from}: ${JSON.stringify(value)} is not a value of --${key} (${spec.value})`);
}

/**
 * Applies a JSON config file: one object whose keys are the flags' names without the dashes,
 * checked by the same code as the flags, so a bad value says the file and the key.
 */
function applyConfigFile(file: string, config: ServerConfig, transport: TransportConfig): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new OptionError(
      code === 'ENOENT'
        ? `--config ${file}: no such file (a JSON object of settings, e.g. {"root": ["/path/to/project"]})`
        : `--config ${file}: ${(e as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new OptionError(`--config ${file}: not JSON (${(e as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new OptionError(
      `--config ${file}: must hold one JSON object of settings, e.g. {"root": ["/path/to/project"]}`,
    );
  }
  const flags = new Map(OPTIONS.map((o) => [o.flag.slice(2), o]));
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const from = `${file}: "${key}"`;
    const spec = flags.get(key);
    if (spec === undefined || key === 'config') {
      const near = didYouMean(
        key,
        [...flags.keys()].filter((k) => k !== 'config'),
      );
      throw new OptionError(
        `${from} is not a setting of dbg-mcp${near !== undefined ? ` (did you mean "${near}"?)` : ''}; the keys are the flags of dbg-mcp --help without the dashes`,
      );
    }
    spec.apply(config, configValue(key, value, from, spec), from, transport);
  }
}
