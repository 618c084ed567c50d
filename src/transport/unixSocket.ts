// The --unix socket: owner-only (0600) in a directory only its owner can write, so only the
// server's uid can connect or put something in its place. A socket file left by a server that
// died is removed; one a live server answers on is not taken over; the socket is removed when
// the server stops.

import { chmodSync, lstatSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';

function refuse(why: string): never {
  throw new DebuggerError('invalid_argument', why);
}

/** Linux's sun_path is 108 bytes with the final NUL. */
const MAX_SOCKET_PATH = 107;

/**
 * Refuses a directory that is not the server user's own or that others may write to: whoever
 * can write there can replace the socket with theirs and read what clients send.
 */
export function checkSocketDirectory(socketPath: string): void {
  const dir = dirname(resolve(socketPath));
  // "$XDG_RUNTIME_DIR/dbg-mcp.sock" with the variable unset is "/dbg-mcp.sock": root owns / and
  // nobody else may write there, but a socket at the top of the file system is never meant.
  if (dir === '/') {
    refuse(
      `socket path ${resolve(socketPath)} is in /: was a variable in it unset (XDG_RUNTIME_DIR is not set without a login session)? Give a path in a directory of your own, or --unix alone for ${defaultSocketPath()}`,
    );
  }
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(dir);
  } catch (e) {
    refuse(`socket directory ${dir}: ${(e as Error).message} (create it with mkdir -m 700)`);
  }
  if (!st.isDirectory()) refuse(`socket directory ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    refuse(
      `socket directory ${dir} belongs to uid ${st.uid}, not to the server's uid ${uid}: use a directory of your own, such as $XDG_RUNTIME_DIR`,
    );
  }
  if ((st.mode & 0o022) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    refuse(`socket directory ${dir} has mode ${mode}: others may write there; use a 0700 directory (chmod 700 ${dir})`);
  }
}

/**
 * Where `--unix` alone listens: `$XDG_RUNTIME_DIR/dbg-mcp.sock` in a login session, else
 * `~/.local/state/dbg-mcp/dbg-mcp.sock` (its directory made 0700 when it is missing).
 */
export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && runtime !== '' && runtime !== '/') return join(runtime, 'dbg-mcp.sock');
  return join(homedir(), '.local', 'state', 'dbg-mcp', 'dbg-mcp.sock');
}

/** Makes the default socket's directory when it is missing (0700, the server user's own). */
export function ensureDefaultSocketDirectory(socketPath: string): void {
  if (socketPath !== defaultSocketPath()) return;
  mkdirSync(dirname(socketPath), { recursive: true, mode: 0o700 });
}

/** Whether a server answers on the socket at `path` (a connection is accepted). */
function answers(path: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = connect({ path });
    probe.once('connect', () => {
      probe.destroy();
      done(true);
    });
    probe.once('error', () => done(false));
  });
}

/**
 * Clears the way for a new socket at `path`: nothing there is fine; a socket nobody answers on
 * (a server that was killed) is removed; a live one, or any other kind of file, is refused.
 */
export async function clearStaleSocket(path: string): Promise<void> {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isSocket()) refuse(`${path} exists and is not a socket: not removing it`);
  if (await answers(path)) refuse(`another server is listening on ${path}`);
  unlinkSync(path);
  log('info', 'removed a stale socket', { path });
}

/** Checks, clears and listens; the socket is 0600 before the promise resolves. */
export async function listenOnUnixSocket(server: Server, path: string): Promise<void> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    refuse(`socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes, the most a unix socket path may be`);
  }
  ensureDefaultSocketDirectory(path);
  checkSocketDirectory(path);
  await clearStaleSocket(path);
  // The socket takes its mode from the umask at bind time; it is chmod-ed at once, and until then
  // the 0700 directory already keeps others out.
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen({ path }, () => {
      server.off('error', fail);
      done();
    });
  });
  chmodSync(path, 0o600);
}

/** Removes the socket file if it is still ours (a socket at that path); never throws. */
export function removeSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // already gone
  }
}
