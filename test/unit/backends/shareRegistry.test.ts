// Which registry files of shared debuggers are believed: this user's own, that no one else can
// read or write, whose process still runs; everything else is passed over with the reason.

import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readGdbShares } from '../../../src/backends/gdbShare/gdbShareRecord.js';
import { parseConnectionUri, readLldbShares } from '../../../src/backends/lldbShare/lldbShareRegistry.js';
import {
  directoryDistrust,
  fileDistrust,
  shareDirectory,
  writeOwnerOnlyJson,
} from '../../../src/backends/shares/shareFiles.js';

const dirs: string[] = [];
const children: { kill(): void }[] = [];

afterEach(() => {
  for (const c of children.splice(0)) c.kill();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dbg-share-unit-'));
  chmodSync(dir, 0o700);
  dirs.push(dir);
  return dir;
}

function record(pid: number, dir: string): Record<string, unknown> {
  return {
    format: 'dbg-mcp-share/1',
    debugger: 'gdb',
    sharePid: pid,
    tty: '/dev/pts/9',
    socket: join(dir, `gdb-${pid}.sock`),
    access: 'read',
    state: 'stopped',
    program: '/x/crash',
    pid: 42,
    joined: false,
    startedAt: '2025-01-01T00:00:00.000Z',
  };
}

describe('trusting registry files', () => {
  it("believes this user's 0600 file, and says why it does not believe the others", () => {
    const dir = privateDir();
    const own = join(dir, 'own.json');
    writeOwnerOnlyJson(own, { a: 1 });
    expect(statSync(own).mode & 0o777).toBe(0o600);
    expect(fileDistrust(own)).toBeUndefined();
    const loose = join(dir, 'loose.json');
    writeFileSync(loose, '{}');
    chmodSync(loose, 0o644);
    expect(fileDistrust(loose)).toMatch(/mode 0644.*chmod 600/);
    const theirs = join(dir, 'theirs.json');
    writeFileSync(theirs, '{}', { mode: 0o600 });
    chownSync(theirs, 65534, 65534);
    expect(fileDistrust(theirs)).toMatch(/belongs to uid 65534/);
    symlinkSync(own, join(dir, 'link.json'));
    expect(fileDistrust(join(dir, 'link.json'))).toMatch(/symbolic link/);
  });

  it('wants the share directory owner-only, and LLDB’s directory not writable by others', () => {
    const dir = privateDir();
    expect(directoryDistrust(dir, true)).toBeUndefined();
    chmodSync(dir, 0o750);
    expect(directoryDistrust(dir, true)).toMatch(/chmod 700/);
    expect(directoryDistrust(dir, false)).toBeUndefined();
    chmodSync(dir, 0o770);
    expect(directoryDistrust(dir, false)).toMatch(/go-w/);
  });

  it('puts shares under $XDG_RUNTIME_DIR, else under ~/.cache', () => {
    expect(shareDirectory({ XDG_RUNTIME_DIR: '/run/user/7', HOME: '/h' })).toBe('/run/user/7/dbg-mcp/shares');
    expect(shareDirectory({ HOME: '/h' })).toBe('/h/.cache/dbg-mcp/shares');
  });
});

describe('listing GDB shares', () => {
  it('lists a live share and passes over a stale one, a foreign one and a loose one', async () => {
    const dir = privateDir();
    // A stand-in share process: its command line names `share --hold`, as the real one's does.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'share', '--hold'], {
      stdio: 'ignore',
    });
    children.push(holder);
    await new Promise((r) => holder.once('spawn', r));
    const live = holder.pid as number;
    writeOwnerOnlyJson(join(dir, `gdb-${live}.json`), record(live, dir));
    writeOwnerOnlyJson(join(dir, 'gdb-4194303.json'), record(4194303, dir));
    writeOwnerOnlyJson(join(dir, 'gdb-4194302.json'), record(4194302, dir));
    chownSync(join(dir, 'gdb-4194302.json'), 65534, 65534);
    writeOwnerOnlyJson(join(dir, 'gdb-4194301.json'), { ...record(4194301, dir), format: 'something else' });
    // A live process that is not a share (pid reused): this test's own pid.
    writeOwnerOnlyJson(join(dir, `gdb-${process.pid}.json`), record(process.pid, dir));

    const listing = readGdbShares(dir);
    expect(listing.shares).toEqual([
      expect.objectContaining({
        id: `gdb-${live}`,
        debugger: 'gdb',
        access: 'read',
        program: '/x/crash',
        pid: 42,
        state: 'stopped',
      }),
    ]);
    const why = Object.fromEntries(listing.ignored.map((i) => [i.file.slice(dir.length + 1), i.why]));
    expect(why['gdb-4194303.json']).toMatch(/stale/);
    expect(why['gdb-4194302.json']).toMatch(/uid 65534/);
    expect(why['gdb-4194301.json']).toMatch(/is not a dbg-mcp-share\/1 gdb share/);
    expect(why[`gdb-${process.pid}.json`]).toMatch(/stale/);
  });

  it('believes nothing in a share directory others may enter', () => {
    const dir = privateDir();
    writeOwnerOnlyJson(join(dir, 'gdb-1.json'), record(1, dir));
    chmodSync(dir, 0o755);
    const listing = readGdbShares(dir);
    expect(listing.shares).toEqual([]);
    expect(listing.ignored[0]?.why).toMatch(/the share directory has mode 0755/);
  });
});

describe("reading LLDB's registry", () => {
  it('takes only loopback connection URIs', () => {
    expect(parseConnectionUri('connection://[127.0.0.1]:43177')).toEqual({ host: '127.0.0.1', port: 43177 });
    expect(parseConnectionUri('connection://[::1]:5000')).toEqual({ host: '::1', port: 5000 });
    expect(parseConnectionUri('connection://localhost:5000')).toEqual({ host: '127.0.0.1', port: 5000 });
    expect(parseConnectionUri('connection://[10.0.0.2]:5000')).toMatch(/not on this machine's loopback/);
    expect(parseConnectionUri('listen://[127.0.0.1]:0')).toMatch(/does not know/);
  });

  it('passes over the file of an LLDB that is gone, and a process that is not LLDB', () => {
    const home = privateDir();
    const dir = join(home, '.lldb');
    mkdirSync(dir, { mode: 0o750 });
    writeOwnerOnlyJson(join(dir, 'lldb-mcp-4194303.json'), { connection_uri: 'connection://[127.0.0.1]:9' });
    writeOwnerOnlyJson(join(dir, `lldb-mcp-${process.pid}.json`), { connection_uri: 'connection://[127.0.0.1]:9' });
    const listing = readLldbShares(dir);
    expect(listing.shares).toEqual([]);
    const why = Object.fromEntries(listing.ignored.map((i) => [i.file.slice(dir.length + 1), i.why]));
    expect(why['lldb-mcp-4194303.json']).toMatch(/stale: LLDB process 4194303 is gone/);
    expect(why[`lldb-mcp-${process.pid}.json`]).toMatch(/is not LLDB .*pid was reused/);
  });
});
