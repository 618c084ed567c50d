// The --unix socket's place: an owner-only directory, a stale socket cleared, a live one or a
// plain file left alone, and the socket itself 0600.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkSocketDirectory,
  clearStaleSocket,
  listenOnUnixSocket,
  removeSocket,
} from '../../../src/transport/unixSocket.js';

const dirs: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dir(mode = 0o700): string {
  const d = mkdtempSync(join(tmpdir(), 'dbg-mcp-sock-'));
  dirs.push(d);
  chmodSync(d, mode);
  return d;
}

function refusal(run: () => void): string {
  try {
    run();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('accepted');
}

/** A socket file whose server was SIGKILLed: nothing answers on it any more. */
async function staleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, [
    '-e',
    "require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))",
    path,
  ]);
  await new Promise((r) => child.once('exit', r));
  expect(lstatSync(path).isSocket()).toBe(true);
}

describe('checkSocketDirectory', () => {
  it('accepts a directory of ours that others cannot write', () => {
    expect(() => checkSocketDirectory(join(dir(0o700), 's'))).not.toThrow();
    expect(() => checkSocketDirectory(join(dir(0o755), 's'))).not.toThrow();
  });

  it('refuses a directory others may write, saying the mode and the fix', () => {
    for (const mode of [0o777, 0o770, 0o702, 0o1777]) {
      const d = dir(mode);
      expect(refusal(() => checkSocketDirectory(join(d, 's')))).toContain(
        `socket directory ${d} has mode 0${(mode & 0o777).toString(8)}: others may write there; use a 0700 directory (chmod 700 ${d})`,
      );
    }
  });

  it('refuses a directory that is missing or not a directory', () => {
    const d = dir();
    expect(refusal(() => checkSocketDirectory(join(d, 'no', 's')))).toMatch(/ENOENT.*mkdir -m 700/);
    writeFileSync(join(d, 'f'), '');
    expect(refusal(() => checkSocketDirectory(join(d, 'f', 's')))).toMatch(/ENOTDIR|is not a directory/);
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a directory another user owns (needs root to chown)', () => {
    const d = dir();
    const theirs = join(d, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 65534, 65534);
    expect(refusal(() => checkSocketDirectory(join(theirs, 's')))).toMatch(
      /belongs to uid 65534, not to the server's uid 0/,
    );
  });
});

describe('clearStaleSocket', () => {
  it('removes a socket nobody answers on', async () => {
    const path = join(dir(), 's');
    await staleSocket(path);
    await clearStaleSocket(path);
    expect(existsSync(path)).toBe(false);
  });

  it('refuses to take over a socket a live server answers on', async () => {
    const path = join(dir(), 's');
    const live = createServer();
    servers.push(live);
    await new Promise<void>((r) => live.listen(path, r));
    await expect(clearStaleSocket(path)).rejects.toThrow(`another server is listening on ${path}`);
    expect(lstatSync(path).isSocket()).toBe(true);
  });

  it('leaves a file that is not a socket where it is', async () => {
    const path = join(dir(), 's');
    writeFileSync(path, 'precious');
    await expect(clearStaleSocket(path)).rejects.toThrow(/exists and is not a socket: not removing it/);
    expect(existsSync(path)).toBe(true);
  });
});

describe('listenOnUnixSocket', () => {
  it('listens on a 0600 socket, over a stale one, and removeSocket takes it away', async () => {
    const path = join(dir(), 's');
    await staleSocket(path);
    const server = createServer();
    servers.push(server);
    await listenOnUnixSocket(server, path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    removeSocket(path);
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a path longer than a unix socket path may be', async () => {
    const path = join(dir(), 'x'.repeat(120));
    await expect(listenOnUnixSocket(createServer(), path)).rejects.toThrow(/longer than 107 bytes/);
  });
});
