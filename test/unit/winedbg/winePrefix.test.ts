// The prefix's bookkeeping with stand-in Wine programs (shell scripts that log what they were asked
// to do), so leases, single creation, the environment and the end run without Wine. The real
// thing is test/integration/winedbg/prefix.test.ts.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockOwner } from '../../../src/backends/winedbg/lockFile.js';
import {
  cacheDirectory,
  diskUsage,
  findWineTools,
  WINE_DLL_OVERRIDES,
  WinePrefix,
  type WineTools,
} from '../../../src/backends/winedbg/winePrefix.js';
import { prefixProcesses } from '../../../src/backends/winedbg/wineProcesses.js';
import { until } from '../../helpers/procfs.js';

let root = '';
let tools: WineTools;
let logFile = '';
const opened: WinePrefix[] = [];

function fake(name: string, body: string): string {
  const path = join(root, 'bin', name);
  writeFileSync(path, `#!/bin/sh\necho "${name} $*" >> "$FAKE_WINE_LOG"\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function calls(): string[] {
  return existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n') : [];
}

async function open(options: Parameters<typeof WinePrefix.open>[0] = {}): Promise<WinePrefix> {
  const p = await WinePrefix.open({
    tools,
    cacheDir: join(root, 'cache'),
    sourceEnv: { ...process.env, FAKE_WINE_LOG: logFile, DISPLAY: ':0', SECRET_TOKEN: 'x' },
    passthrough: ['FAKE_WINE_LOG'],
    ...options,
  });
  opened.push(p);
  return p;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'wineprefix-'));
  mkdirSync(join(root, 'bin'));
  logFile = join(root, 'calls.log');
  tools = {
    // wineboot makes the prefix slowly, so concurrent creators overlap.
    wineboot: fake('wineboot', 'sleep 0.3; mkdir -p "$WINEPREFIX"; : > "$WINEPREFIX/system.reg"'),
    // The persistent server stays until killed: the end must find it by its WINEPREFIX.
    wineserver: fake('wineserver', '[ "$1" = -k ] || exec sleep 600'),
    wine: fake('wine', ''),
    winedbg: fake('winedbg', ''),
  };
});

afterEach(async () => {
  for (const p of opened.splice(0)) await p.close();
  rmSync(root, { recursive: true, force: true });
});

describe('WinePrefix with stand-in Wine programs', () => {
  it('leases the first slot of the cache to this process, and a second opener the next slot', async () => {
    const first = await open();
    expect(first.dir).toBe(join(root, 'cache', 'wine-prefix'));
    expect(first.owned).toBe(true);
    expect(lockOwner(`${first.dir}.lease`)?.pid).toBe(process.pid);
    const second = await open();
    expect(second.dir).toBe(join(root, 'cache', 'wine-prefix-2'));
  });

  it('concurrent prepare() calls create the prefix once, start one server and warm it up once', async () => {
    const p = await open();
    const [a, b] = await Promise.all([p.prepare(), p.prepare()]);
    expect(a).toBe(b);
    expect(a.created).toBe(true);
    const log = calls();
    expect(log.filter((l) => l.startsWith('wineboot'))).toEqual(['wineboot --init']);
    expect(log.filter((l) => l.startsWith('wineserver'))).toEqual(['wineserver -f -p']);
    expect(log.filter((l) => l.startsWith('wine '))).toEqual(['wine cmd.exe /c exit']);
    expect(existsSync(join(p.dir, '.dbg-mcp-ready'))).toBe(true);
  });

  it('a prefix made by an earlier server is reused: no second creation', async () => {
    const first = await open();
    await first.prepare();
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const again = await open();
    expect(again.dir).toBe(first.dir);
    expect((await again.prepare()).created).toBe(false);
    expect(calls().filter((l) => l.startsWith('wineboot'))).toHaveLength(1);
  });

  it('an unfinished prefix (no ready mark: its creator died) is removed and made again', async () => {
    const dir = join(root, 'cache', 'wine-prefix');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'half-written.reg'), 'x');
    const p = await open();
    expect((await p.prepare()).created).toBe(true);
    expect(existsSync(join(dir, 'half-written.reg'))).toBe(false);
  });

  it('two openers of the same caller-given prefix in one process create it once (the creation lock)', async () => {
    const dir = join(root, 'mine');
    const [a, b] = [await open({ dir }), await open({ dir })];
    expect(a.owned).toBe(false);
    const reports = await Promise.all([a.prepare(), b.prepare()]);
    expect(reports.map((r) => r.created).sort()).toEqual([false, true]);
    expect(calls().filter((l) => l.startsWith('wineboot'))).toHaveLength(1);
    // Not ours: no persistent server started in it, and nothing written beside it.
    expect(calls().filter((l) => l.startsWith('wineserver'))).toEqual([]);
    expect(existsSync(`${dir}.lease`)).toBe(false);
  });

  it('gives Wine an allowlisted environment with its own variables, and no display', async () => {
    const p = await open();
    const env = p.environment({ EXTRA: '1' });
    expect(env).toMatchObject({
      WINEPREFIX: p.dir,
      WINEDEBUG: '-all',
      WINEDLLOVERRIDES: WINE_DLL_OVERRIDES,
      FAKE_WINE_LOG: logFile,
      EXTRA: '1',
    });
    expect(env['DISPLAY']).toBeUndefined();
    expect(env['SECRET_TOKEN']).toBeUndefined();
  });

  it('close() asks wineserver -k, kills what still runs with its WINEPREFIX, and returns the lease', async () => {
    const p = await open();
    await p.prepare();
    await until(() => prefixProcesses(p.dir).length > 0, 'the stand-in wineserver to run', 5000);
    await p.close();
    expect(calls()).toContain('wineserver -k');
    expect(prefixProcesses(p.dir)).toEqual([]);
    expect(existsSync(`${p.dir}.lease`)).toBe(false);
  });

  it('info() says where the prefix is and how big', async () => {
    const p = await open();
    expect(p.info()).toEqual({ path: p.dir, owned: true, exists: false, sizeBytes: 0 });
    await p.prepare();
    writeFileSync(join(p.dir, 'data'), Buffer.alloc(64 * 1024));
    const info = p.info();
    expect(info.exists).toBe(true);
    expect(info.sizeBytes).toBeGreaterThanOrEqual(64 * 1024);
  });
});

describe('prefix helpers', () => {
  it('cacheDirectory: XDG_CACHE_HOME when absolute, else ~/.cache', () => {
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' })).toBe('/x/cache/dbg-mcp');
    expect(cacheDirectory({ XDG_CACHE_HOME: 'relative', HOME: '/h' })).toBe('/h/.cache/dbg-mcp');
    expect(cacheDirectory({ HOME: '/h' })).toBe('/h/.cache/dbg-mcp');
  });

  it('diskUsage counts blocks and does not follow a symlink out of the tree', () => {
    const d = join(root, 'du');
    mkdirSync(join(d, 'sub'), { recursive: true });
    writeFileSync(join(d, 'sub', 'f'), Buffer.alloc(8192, 1));
    symlinkSync('/', join(d, 'z:'));
    const size = diskUsage(d);
    expect(size).toBeGreaterThanOrEqual(8192);
    expect(size).toBeLessThan(1024 * 1024);
  });

  it('findWineTools names what is missing', () => {
    expect(findWineTools('/nonexistent')).toEqual({ missing: ['wine', 'wineserver', 'wineboot', 'winedbg'] });
    expect(findWineTools(join(root, 'bin'))).toEqual(tools);
  });
});
