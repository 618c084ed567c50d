// One Wine prefix per dbg-mcp server, created on first use in our cache directory and reused by
// later runs, with a wineserver that lives as long as the server.
//
// Measured here (Wine 8.0, Debian 12, a loaded 2-core VM): a new prefix takes 10 s (up to 40 s
// under load) and 695 MB; with no wineserver running, every `wine` start pays for a fresh server
// and `wineboot --init` starting services.exe and its kin (1.1 s idle, 2-10 s loaded), and the
// server exits about 3 s after its last client; with a persistent `wineserver -p` that cost is
// paid once and a console program starts in about 50 ms. So the prefix keeps `wineserver -f -p`
// as our child and warms it up once, before any session: whatever Wine starts on the first use
// (services.exe, explorer.exe /desktop) then carries no session's mark (wineProcesses.ts).
//
// Our own prefix is leased, one server at a time (`<dir>.lease`, lockFile.ts), because its end
// kills every process of the prefix; a second server running at the same time takes the next slot
// (wine-prefix-2, …) and pays for a prefix of its own. A prefix the caller names (their ~/.wine)
// is used as it is: never leased, no persistent server started in it, and at the end only our
// sessions' processes are killed, never its wineserver.

import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { childEnvironment } from '../../process/childEnvironment.js';
import { sealedStdio } from '../../process/sealedStdio.js';
import { sleep } from '../../util/deadline.js';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import { findOnPath } from '../../util/which.js';
import { lock, tryLock, unlock } from './lockFile.js';
import { guardEnvironment, releaseEnvironment } from './wineGuard.js';
import { killWineProcesses, killWineProcessesSync, prefixProcesses } from './wineProcesses.js';

/** DLLs Wine would offer to download (Mono, Gecko) and the menu builder that writes .desktop
 * files into the user's ~/.local/share/applications (measured: it made ~/.config/menus). */
export const WINE_DLL_OVERRIDES = 'mscoree,mshtml=;winemenubuilder.exe=d';

const READY_MARK = '.dbg-mcp-ready';
const SLOTS = 8;

/** Our prefixes leased by this process: a lock file cannot tell two of our own openers apart. */
const leasedHere = new Set<string>();

export interface WineTools {
  wine: string;
  wineserver: string;
  wineboot: string;
  winedbg: string;
}

/** The Wine programs on PATH, or the names of those missing. */
export function findWineTools(path = process.env['PATH'] ?? ''): WineTools | { missing: string[] } {
  const found: Partial<WineTools> = {};
  const missing: string[] = [];
  for (const name of ['wine', 'wineserver', 'wineboot', 'winedbg'] as const) {
    const at = findOnPath([name], path);
    if (at) found[name] = at;
    else missing.push(name);
  }
  return missing.length > 0 ? { missing } : (found as WineTools);
}

/** `$XDG_CACHE_HOME/dbg-mcp`, or `~/.cache/dbg-mcp`. */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CACHE_HOME'];
  const base = xdg && isAbsolute(xdg) ? xdg : join(env['HOME'] || homedir(), '.cache');
  return join(base, 'dbg-mcp');
}

export interface WinePrefixOptions {
  /** A prefix the caller chose (their ~/.wine): used as is, never leased, its wineserver left alone. */
  dir?: string;
  /** The environment the server was started with, filtered by the allowlist (default process.env). */
  sourceEnv?: NodeJS.ProcessEnv;
  /** Extra variable names let through to Wine and the program. */
  passthrough?: readonly string[];
  /** Where our prefixes and locks live (default cacheDirectory()). */
  cacheDir?: string;
  tools?: WineTools;
}

export interface PrepareReport {
  /** The prefix was made now (false: it existed). */
  created: boolean;
  createMs: number;
  /** Starting the persistent wineserver and its first client (wineboot's services). */
  warmMs: number;
}

export interface PrefixInfo {
  path: string;
  /** Ours (in the cache, leased) or the caller's. */
  owned: boolean;
  exists: boolean;
  /** Bytes on disk, counted as du does (allocated blocks, symlinks not followed). */
  sizeBytes: number;
}

/** Disk use of a directory tree without following symlinks (dosdevices/z: points at /). */
export function diskUsage(dir: string): number {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const d = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const name of names) {
      const p = join(d, name);
      try {
        const st = lstatSync(p);
        total += st.blocks * 512;
        if (st.isDirectory()) pending.push(p);
      } catch {
        // removed while we looked
      }
    }
  }
  return total;
}

/**
 * Runs a Wine command to its exit. Not execFile: it waits for the output pipes to close, and the
 * services a first Wine client starts (services.exe, winedevice.exe…) inherit them and live as
 * long as the wineserver (measured: wineboot --init "hung" until the server ended). So stdout
 * goes nowhere and stderr to a file that is read at the exit.
 */
function run(file: string, args: readonly string[], env: Record<string, string>, timeoutMs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-wine-'));
  const errPath = join(dir, 'stderr');
  const errFd = openSync(errPath, 'w+', 0o600);
  const cleanup = (): string => {
    let text = '';
    try {
      text = readFileSync(errPath, 'utf8').slice(-4096);
    } catch {
      // unreadable: report without it
    }
    closeSync(errFd);
    rmSync(dir, { recursive: true, force: true });
    return text;
  };
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, [...args], { env, stdio: sealedStdio(['ignore', 'ignore', errFd]) });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    timer.unref();
    child.once('error', (e) => {
      clearTimeout(timer);
      cleanup();
      reject(new Error(`${file}: ${e.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const said = cleanup()
        .split('\n')
        .filter((l) => l && !/wine32|multiarch|dpkg|apt-get/.test(l));
      if (code === 0) resolvePromise();
      else {
        const why = signal === 'SIGKILL' ? `no exit within ${timeoutMs} ms` : `exit ${signal ?? code}`;
        reject(new Error(`${file} ${args.join(' ')}: ${why}${said.length ? ` (${said.slice(-3).join(' | ')})` : ''}`));
      }
    });
  });
}

export class WinePrefix {
  readonly dir: string;
  readonly owned: boolean;
  private readonly tools: WineTools;
  private readonly baseEnv: Record<string, string>;
  private readonly leasePath: string | undefined;
  private readonly creationLock: string;
  private preparing: Promise<PrepareReport> | undefined;
  private server: ChildProcess | undefined;
  private closed = false;
  /** The tail of the chain serially() runs its jobs on. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(dir: string, owned: boolean, tools: WineTools, options: WinePrefixOptions, cacheDir: string) {
    this.dir = dir;
    this.owned = owned;
    this.tools = tools;
    this.leasePath = owned ? `${dir}.lease` : undefined;
    // Locks live in our cache even for the caller's prefix: nothing is written beside their ~/.wine.
    this.creationLock = join(
      cacheDir,
      'locks',
      `${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.creating`,
    );
    const env = childEnvironment(options.sourceEnv ?? process.env, options.passthrough ?? []);
    // Console programs need no display; a GUI one would find none and fail rather than open a window.
    for (const name of ['DISPLAY', 'WAYLAND_DISPLAY']) delete env[name];
    env['WINEPREFIX'] = dir;
    env['WINEDEBUG'] = '-all';
    env['WINEDLLOVERRIDES'] = WINE_DLL_OVERRIDES;
    this.baseEnv = env;
  }

  /**
   * Our prefix (the first free slot in the cache, leased to this process) or the caller's. A
   * slot whose lease holder died may hold its leftover processes: they are killed first.
   */
  static async open(options: WinePrefixOptions = {}): Promise<WinePrefix> {
    const tools = options.tools ?? findWineTools();
    if ('missing' in tools) {
      throw new DebuggerError(
        'backend_unavailable',
        `Wine is not installed (${tools.missing.join(', ')} not found): apt-get install -y --no-install-recommends wine wine64`,
      );
    }
    const cacheDir = options.cacheDir ?? cacheDirectory(options.sourceEnv ?? process.env);
    mkdirSync(join(cacheDir, 'locks'), { recursive: true, mode: 0o700 });
    if (options.dir !== undefined) {
      if (/[\n\r\0]/.test(options.dir))
        throw new DebuggerError('invalid_argument', 'the Wine prefix path holds a line break or NUL');
      return new WinePrefix(resolve(options.dir), false, tools, options, cacheDir);
    }
    for (let slot = 1; slot <= SLOTS; slot++) {
      const dir = join(cacheDir, slot === 1 ? 'wine-prefix' : `wine-prefix-${slot}`);
      if (leasedHere.has(dir)) continue;
      const lease = tryLock(`${dir}.lease`);
      if (!lease.acquired) continue;
      leasedHere.add(dir);
      const prefix = new WinePrefix(dir, true, tools, options, cacheDir);
      // From now on a SIGKILLed server leaves nothing of this prefix running (wineGuard.ts).
      guardEnvironment('WINEPREFIX', dir);
      const leftovers = await killWineProcesses(() => prefixProcesses(dir));
      if (leftovers.length > 0) {
        log('warn', 'killed processes a previous server left in its Wine prefix', { prefix: dir, pids: leftovers });
      }
      return prefix;
    }
    throw new DebuggerError(
      'backend_unavailable',
      `all ${SLOTS} Wine prefixes in ${cacheDir} are leased by running dbg-mcp servers; stop one, or pass a prefix of your own`,
    );
  }

  /** The environment of every Wine process of this prefix, with `extra` on top. */
  environment(extra: Record<string, string> = {}): Record<string, string> {
    return { ...this.baseEnv, ...extra };
  }

  get wineTools(): WineTools {
    return this.tools;
  }

  /** Creates the prefix if needed and starts its wineserver; concurrent callers share one run. */
  prepare(): Promise<PrepareReport> {
    if (this.closed) return Promise.reject(new DebuggerError('wrong_state', 'the Wine prefix was closed'));
    this.preparing ??= this.doPrepare().catch((e: unknown) => {
      this.preparing = undefined; // a later call tries again
      throw e instanceof DebuggerError
        ? e
        : new DebuggerError('backend_unavailable', (e as Error).message, undefined, { cause: e });
    });
    return this.preparing;
  }

  private isCreated(): boolean {
    return this.owned ? existsSync(join(this.dir, READY_MARK)) : existsSync(join(this.dir, 'system.reg'));
  }

  private async doPrepare(): Promise<PrepareReport> {
    let created = false;
    let createMs = 0;
    if (!this.isCreated()) {
      // Another server may be making the caller's prefix, or a session of ours the same one.
      await lock(this.creationLock);
      try {
        if (!this.isCreated()) {
          const started = Date.now();
          await this.create();
          createMs = Date.now() - started;
          created = true;
        }
      } finally {
        unlock(this.creationLock);
      }
    }
    const started = Date.now();
    if (this.owned) this.startServer();
    // The first client of a server runs wineboot --init (services.exe, winedevice.exe…): pay it
    // here, with no session's mark in the environment, rather than in the first session.
    await run(this.tools.wine, ['cmd.exe', '/c', 'exit'], this.environment(), 120_000);
    return { created, createMs, warmMs: Date.now() - started };
  }

  private async create(): Promise<void> {
    if (this.owned && existsSync(this.dir)) {
      // A creation that died half way (no ready mark): start over rather than trust it.
      log('warn', 'removing an unfinished Wine prefix', { prefix: this.dir });
      rmSync(this.dir, { recursive: true, force: true });
    }
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    if (this.owned) this.startServer();
    log('info', 'creating a Wine prefix (about 10 s and 700 MB, once)', { prefix: this.dir });
    await run(this.tools.wineboot, ['--init'], this.environment(), 600_000);
    if (this.owned) writeFileSync(join(this.dir, READY_MARK), `${new Date().toISOString()}\n`);
  }

  /** `wineserver -f -p`: in the foreground (our child, its pid known), persistent (no 3 s exit). */
  private startServer(): void {
    if (this.server && this.server.exitCode === null && this.server.signalCode === null) return;
    const server = spawn(this.tools.wineserver, ['-f', '-p'], {
      env: this.environment(),
      detached: true,
      stdio: sealedStdio(['ignore', 'ignore', 'pipe']),
    });
    server.stderr?.resume();
    server.on('error', (e) => log('warn', 'the wineserver did not start', { prefix: this.dir, error: e.message }));
    server.on('exit', (code, signal) => {
      if (this.server === server) this.server = undefined;
      if (!this.closed) log('info', 'the wineserver exited', { prefix: this.dir, code, signal });
    });
    server.unref();
    this.server = server;
  }

  /** The prefix's wineserver, wherever it was started from, or undefined while none runs. */
  serverPid(): number | undefined {
    if (this.server?.pid !== undefined && this.server.exitCode === null && this.server.signalCode === null) {
      return this.server.pid;
    }
    return prefixProcesses(this.dir).find((p) => /(^|\/)wineserver(64)?$/.test(p.command))?.pid;
  }

  /**
   * Runs `job` after every job queued before it has settled: for what must not overlap in one
   * prefix (a proxy start, whose listening socket is told apart by being the wineserver's newest).
   */
  serially<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Where the prefix is and how big, for the doctor. */
  info(): PrefixInfo {
    const exists = this.isCreated();
    return { path: this.dir, owned: this.owned, exists, sizeBytes: exists ? diskUsage(this.dir) : 0 };
  }

  /**
   * The server is ending: our prefix's wineserver stops its clients (`wineserver -k`), then
   * whatever still runs with our WINEPREFIX is killed, and the lease is returned. The caller's
   * prefix is left as it is (its sessions are closed by their own end).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.owned) return;
    try {
      await run(this.tools.wineserver, ['-k'], this.environment(), 5000);
    } catch {
      // no server running, or it did not answer: the sweep below does the work
    }
    const server = this.server;
    for (let i = 0; i < 100 && server && server.exitCode === null && server.signalCode === null; i++) await sleep(20);
    const left = await killWineProcesses(() => prefixProcesses(this.dir));
    if (left.length > 0) log('info', 'killed Wine processes wineserver -k left', { prefix: this.dir, pids: left });
    releaseEnvironment('WINEPREFIX', this.dir);
    this.returnLease();
  }

  private returnLease(): void {
    if (!this.leasePath) return;
    unlock(this.leasePath);
    leasedHere.delete(this.dir);
  }

  /** The same end for a process 'exit' handler: no waiting, SIGKILL only. */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.owned) return;
    killWineProcessesSync(() => prefixProcesses(this.dir));
    this.returnLease();
  }
}
