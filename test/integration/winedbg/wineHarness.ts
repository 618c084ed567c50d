// What the winedbg tests share: one leased Wine prefix per test file (in the system temp
// directory, made once per machine, reused by later runs; never under test/: a prefix's
// dosdevices/z: links to /, and vitest would follow it and find every test file twice) and GDB driven over MI through winedbg's gdb proxy.
// This is test scaffolding, not the backend: it sends the MI a measurement needs and keeps every
// async record so a test can say what GDB reported.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProxyTarget, WinedbgProxy } from '../../../src/backends/winedbg/winedbgProxy.js';
import { WinePrefix } from '../../../src/backends/winedbg/winePrefix.js';
import { signalGroup, spawnInGroup, waitForExit } from '../../../src/process/spawnGroup.js';
import { type MiCommandResult, MiConnection } from '../../../src/protocols/mi/miConnection.js';
import type { MiAsyncRecord, MiRecord, MiTuple } from '../../../src/protocols/mi/miRecords.js';
import { windowsFixturesDir } from './windowsFixtures.js';

/**
 * XDG_CACHE_HOME of the servers the tests start: their cache (prefixes, locks, the launcher) is
 * `<this>/dbg-mcp`, the same directory the harness uses, so every test process shares the
 * prefixes made once per machine.
 */
export const testXdgCache = join(tmpdir(), `dbg-mcp-test-xdg-${process.getuid?.() ?? 0}`);
export const testCacheDir = join(testXdgCache, 'dbg-mcp');

/** A cold prefix is 10-60 s on a loaded 2-core VM; this bounds a hang, not the speed. */
export const PREFIX_TIMEOUT_MS = 300_000;
export const WAIT_MS = 60_000;

let shared: Promise<WinePrefix> | undefined;

/** This test file's prefix, made ready once. */
export function testPrefix(): Promise<WinePrefix> {
  shared ??= (async () => {
    const prefix = await WinePrefix.open({ cacheDir: testCacheDir });
    // The prefix is shared with the other Wine test files, whose server ends stop its wineserver:
    // a prepare that ran into such an end (`wine cmd.exe /c exit` failing at once, seen in a full
    // run) is tried again, twice at most, saying so.
    let report: unknown;
    for (let attempt = 1; ; attempt++) {
      try {
        report = await prefix.prepare();
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
        console.log(`wine prefix: prepare failed (${(e as Error).message}); trying again`);
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
    console.log(`wine prefix ${prefix.dir}: ${JSON.stringify(report)}`);
    return prefix;
  })();
  return shared;
}

export async function closeTestPrefix(): Promise<void> {
  const p = shared;
  shared = undefined;
  if (p) await (await p).close();
}

export function newSessionId(): string {
  return `t${randomBytes(6).toString('hex')}`;
}

/** GDB over MI, connected to winedbg's proxy. */
export class ProxyGdb {
  readonly records: MiRecord[] = [];
  private readonly waiters = new Set<() => void>();
  private constructor(
    readonly proxy: WinedbgProxy,
    readonly gdb: ChildProcessWithoutNullStreams,
    readonly mi: MiConnection,
    /** ms from winedbg spawn to the first *stopped after target-select. */
    public connectMs = 0,
  ) {}

  static async start(target: ProxyTarget, program?: string, sessionId = newSessionId()): Promise<ProxyGdb> {
    const prefix = await testPrefix();
    const started = Date.now();
    const proxy = await WinedbgProxy.start({ prefix, target, sessionId, cwd: windowsFixturesDir });
    const gdb = spawnInGroup('gdb', ['--interpreter=mi4', '-nx', '-q'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' },
      cwd: windowsFixturesDir,
    });
    const self: ProxyGdb = new ProxyGdb(
      proxy,
      gdb,
      new MiConnection(gdb.stdin, {
        defaultTimeoutMs: WAIT_MS,
        onRecord: (r) => {
          self.records.push(r);
          for (const w of [...self.waiters]) w();
        },
      }),
    );
    gdb.stdout.on('data', (c: Buffer) => self.mi.receive(c));
    gdb.stdout.on('end', () => self.mi.receiveEnd());
    gdb.on('exit', () => self.mi.fail('gdb exited'));
    gdb.stderr.resume();
    // remotetimeout as the backend sets it (gdbTargets.ts connectRemote): no resent packets under load.
    for (const setting of [
      'pagination off',
      'confirm off',
      'auto-load off',
      'debuginfod enabled off',
      'remotetimeout 20',
    ]) {
      await self.mi.send('gdb-set', { raw: setting });
    }
    await self.mi.send('gdb-set', { raw: 'mi-async on' });
    if (program) await self.mi.send('file-exec-and-symbols', [program]);
    const mark = self.records.length;
    await self.mi.send('target-select', ['remote', `localhost:${proxy.port}`]);
    await self.stopped(mark);
    self.connectMs = Date.now() - started;
    return self;
  }

  send(operation: string, args: readonly string[] | { raw: string } = []): Promise<MiCommandResult> {
    return this.mi.send(operation, args);
  }

  /** A CLI command's console output. */
  async cli(command: string): Promise<string> {
    const r = await this.mi.send('interpreter-exec', ['console', command], { captureConsole: true });
    return r.console;
  }

  /** A `monitor` command: winedbg answers with 'O' packets, which GDB prints on the target stream. */
  async monitor(command: string): Promise<string> {
    const mark = this.records.length;
    await this.mi.send('interpreter-exec', ['console', `monitor ${command}`]);
    return this.records
      .slice(mark)
      .filter((r) => r.kind === 'target' || r.kind === 'console')
      .map((r) => (r as { text: string }).text)
      .join('');
  }

  /** The first `*stopped` after record index `since`. */
  stopped(since: number, ms = WAIT_MS): Promise<MiTuple> {
    return this.waitRecord(since, (r) => r.kind === 'exec' && r.class === 'stopped', ms).then(
      (r) => (r as MiAsyncRecord).results,
    );
  }

  waitRecord(since: number, match: (r: MiRecord) => boolean, ms = WAIT_MS): Promise<MiRecord> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const hit = this.records.slice(since).find(match);
        if (!hit) return false;
        clearTimeout(timer);
        this.waiters.delete(onRecord);
        resolve(hit);
        return true;
      };
      const onRecord = (): void => {
        check();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(onRecord);
        reject(new Error(`waited ${ms} ms for a record; last: ${JSON.stringify(this.records.slice(-3))}`));
      }, ms);
      this.waiters.add(onRecord);
      check();
    });
  }

  /** Resumes and waits for the next stop (or exit: `*stopped,reason="exited…"`). */
  async resume(operation = 'exec-continue', args: readonly string[] = []): Promise<MiTuple> {
    const mark = this.records.length;
    await this.send(operation, args);
    return this.stopped(mark);
  }

  consoleSince(since: number): string {
    return this.records
      .slice(since)
      .filter((r) => r.kind === 'console')
      .map((r) => (r as { text: string }).text)
      .join('');
  }

  async close(): Promise<number[]> {
    if (this.gdb.pid !== undefined) signalGroup(this.gdb.pid, 'SIGKILL');
    await waitForExit(this.gdb, 2000);
    return this.proxy.close();
  }
}

/** Reads an MI value at a path of keys, for assertions. */
export function field(t: unknown, ...path: (string | number)[]): unknown {
  let v: unknown = t;
  for (const k of path) v = (v as Record<string | number, unknown> | undefined)?.[k];
  return v;
}
