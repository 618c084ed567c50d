// Bearer tokens from --token-file: one `name:token` a line, the name identifying the client.
// The file must be the server user's own and readable by nobody else, or start-up stops saying
// why. Tokens are kept as SHA-256 digests and compared in constant time; no token is ever
// written to a log or an error message (they name the line instead).

import { createHash, timingSafeEqual } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { DebuggerError } from '../util/errors.js';

/** Names the transport gives clients without a token; a token may not take one of them. */
export const RESERVED_CLIENT_NAMES = ['stdio', 'local', 'loopback'] as const;

/** Shorter tokens are guessable over a few days of requests; `openssl rand -hex 32` gives 64. */
const MIN_TOKEN_LENGTH = 16;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

interface Entry {
  name: string;
  digest: Buffer;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function refuse(path: string, why: string): never {
  throw new DebuggerError('invalid_argument', `token file ${path}: ${why}`);
}

/**
 * Reads and checks the file through one descriptor, so the file whose owner and mode were
 * checked is the one read (a rename in between cannot swap it).
 */
function readOwnerOnly(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      refuse(
        path,
        `does not exist (named by --token-file or DBG_MCP_TOKEN_FILE): create it with one name:token a line, readable by its owner only, e.g. (umask 077; echo "me:$(openssl rand -hex 32)" > ${path})`,
      );
    }
    if (code === 'EACCES')
      refuse(path, "the server's user may not read it (it must be that user's own file, mode 0600)");
    refuse(path, (e as Error).message);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) refuse(path, 'is not a regular file');
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) refuse(path, `belongs to uid ${st.uid}, not to the server's uid ${uid}`);
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      refuse(path, `has mode ${mode}: only its owner may read it (chmod 600 ${path})`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function parse(path: string, text: string): Entry[] {
  const entries: Entry[] = [];
  const names = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const at = `line ${i + 1}`;
    const colon = line.indexOf(':');
    if (colon < 0) refuse(path, `${at} is not name:token`);
    const name = line.slice(0, colon);
    const token = line.slice(colon + 1);
    if (!NAME.test(name))
      refuse(path, `${at}: the name must be 1-64 letters, digits, or _ . @ - (not starting with one of those signs)`);
    if ((RESERVED_CLIENT_NAMES as readonly string[]).includes(name)) {
      refuse(path, `${at}: "${name}" is the name of clients without a token; choose another`);
    }
    if (names.has(name)) refuse(path, `${at}: the name "${name}" is given twice`);
    if (/\s/.test(token)) refuse(path, `${at}: the token holds white space`);
    if (token.length < MIN_TOKEN_LENGTH) {
      refuse(
        path,
        `${at}: the token of "${name}" is shorter than ${MIN_TOKEN_LENGTH} characters (openssl rand -hex 32 makes one)`,
      );
    }
    const d = digest(token);
    if (entries.some((e) => e.digest.equals(d))) refuse(path, `${at}: the token of "${name}" is also another client's`);
    names.add(name);
    entries.push({ name, digest: d });
  }
  if (entries.length === 0) refuse(path, 'holds no name:token line');
  return entries;
}

export class TokenStore {
  private entries: Entry[];

  private constructor(
    readonly path: string,
    entries: Entry[],
  ) {
    this.entries = entries;
  }

  /** Loads and checks the file; throws invalid_argument saying what to fix. */
  static load(path: string): TokenStore {
    return new TokenStore(path, parse(path, readOwnerOnly(path)));
  }

  /** Client names, in file order (for the log: names are not secrets). */
  get names(): string[] {
    return this.entries.map((e) => e.name);
  }

  /**
   * Reads the file again (SIGHUP). On any problem it throws and the tokens in force stay as they
   * were: a half-edited file must not lock everyone out, nor let everyone in.
   */
  reload(): void {
    this.entries = parse(this.path, readOwnerOnly(this.path));
  }

  /**
   * The client a token belongs to, or undefined. Every entry is compared, each in constant time
   * over digests of equal length, so neither the length nor the position of a near miss shows
   * in the time taken.
   */
  verify(token: string): string | undefined {
    const d = digest(token);
    let found: string | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(e.digest, d) && found === undefined) found = e.name;
    }
    return found;
  }
}
