// What every winedbg session of one server shares: the Wine prefix (opened at the first session,
// made ready once, closed when the server ends), the launcher .exe (built once per cache), the
// `Wine-dbg>` prompt (started at the first command that needs it) and Wine's version. Nothing
// happens at import: a server that never debugs a Windows program starts no Wine process.
//
// The end: WinePrefix.close() (wineserver -k, then every process with our WINEPREFIX, the lease
// returned) on the server's orderly end, closeSync() from the process 'exit' handler for every
// other way out that still runs JavaScript, and wineGuard.ts for SIGKILL.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import { type PromptReply, WinedbgPrompt } from './winedbgPrompt.js';
import { parseInfoProcess, type WindowsProcess } from './winedbgText.js';
import { ensureLauncher } from './wineLauncher.js';
import { cacheDirectory, findWineTools, WinePrefix } from './winePrefix.js';

const run = promisify(execFile);

export interface WineServicesOptions {
  /** A prefix of the caller's own, used as it is (else ours, in the cache). */
  prefixDir?: string;
  /** Extra variable names let through to Wine and the program. */
  passthrough?: readonly string[];
  /** Where our prefixes, locks and the launcher live (default cacheDirectory()). */
  cacheDir?: string;
}

export class WineServices {
  private options: WineServicesOptions = {};
  private opening: Promise<WinePrefix> | undefined;
  private opened: WinePrefix | undefined;
  private launcherBuild: Promise<string> | undefined;
  private promptStart: Promise<WinedbgPrompt> | undefined;
  private version: Promise<string> | undefined;
  private exitHook: (() => void) | undefined;
  private closed = false;

  /** Settings of the first session; later ones cannot move a prefix that is already open. */
  configure(options: WineServicesOptions): void {
    if (this.opening) return;
    this.options = { ...options };
  }

  get cacheDir(): string {
    return this.options.cacheDir ?? cacheDirectory();
  }

  /** The prefix, opened and made ready (created on first use: 10-60 s, 700 MB, once per machine). */
  prefix(): Promise<WinePrefix> {
    if (this.closed) return Promise.reject(new DebuggerError('wrong_state', 'the server is shutting down'));
    this.opening ??= (async () => {
      const prefix = await WinePrefix.open({
        ...(this.options.prefixDir !== undefined ? { dir: this.options.prefixDir } : {}),
        ...(this.options.passthrough ? { passthrough: this.options.passthrough } : {}),
        cacheDir: this.cacheDir,
      });
      this.opened = prefix;
      // Every way out that still runs JavaScript (process.exit, the end of the event loop).
      this.exitHook = () => this.closeSync();
      process.once('exit', this.exitHook);
      const report = await prefix.prepare();
      log('info', 'Wine prefix ready', { prefix: prefix.dir, ...report });
      return prefix;
    })().catch((e: unknown) => {
      this.opening = undefined;
      throw e;
    });
    return this.opening;
  }

  /** The prefix when a session has opened it (the doctor does not open one). */
  get openedPrefix(): WinePrefix | undefined {
    return this.opened;
  }

  /** The launcher .exe, built with mingw once per cache. */
  launcher(): Promise<string> {
    this.launcherBuild ??= ensureLauncher(this.cacheDir).catch((e: unknown) => {
      this.launcherBuild = undefined;
      throw e;
    });
    return this.launcherBuild;
  }

  /** `wine --version`, once. */
  wineVersion(): Promise<string> {
    this.version ??= (async () => {
      const tools = findWineTools();
      if ('missing' in tools) return 'Wine (not installed)';
      const { stdout } = await run(tools.wine, ['--version'], {
        timeout: 10_000,
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      });
      return stdout.trim();
    })().catch(() => 'Wine');
    return this.version;
  }

  /** One command at the shared `Wine-dbg>` prompt (no process loaded), started when first needed. */
  async promptCommand(
    command: string,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<PromptReply> {
    const prompt = await this.prompt();
    return prompt.execute(command, options);
  }

  private async prompt(): Promise<WinedbgPrompt> {
    const current = await this.promptStart?.catch(() => undefined);
    if (current?.alive) return current;
    const prefix = await this.prefix();
    this.promptStart = WinedbgPrompt.start({ prefix });
    this.promptStart.catch(() => {
      this.promptStart = undefined;
    });
    return this.promptStart;
  }

  /** The Windows processes of the prefix, as winedbg's `info process` lists them. */
  async processes(signal?: AbortSignal): Promise<WindowsProcess[]> {
    const reply = await this.promptCommand('info process', { timeoutMs: 30_000, ...(signal ? { signal } : {}) });
    return parseInfoProcess(reply.text);
  }

  /** The server's orderly end: the prompt, then the prefix (every Wine process of ours). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const prompt = await this.promptStart?.catch(() => undefined);
    await prompt?.close();
    const prefix = await this.opening?.catch(() => undefined);
    await (prefix ?? this.opened)?.close();
    if (this.exitHook) process.removeListener('exit', this.exitHook);
  }

  /** The same end for a process 'exit' handler: no waiting, SIGKILL by environment. */
  closeSync(): void {
    this.closed = true;
    this.opened?.closeSync();
  }
}

/** The one set of Wine services of this server process. */
export const wineServices = new WineServices();
