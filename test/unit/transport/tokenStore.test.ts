// --token-file: what is accepted, what is refused and why, and that no refusal shows a token.
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../src/transport/tokenStore.js';

const ALICE = 'a1ice-token-0123456789abcdef';
const BOB = 'b0b-token-0123456789abcdef00';
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tokenFile(text: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-tokens-'));
  dirs.push(dir);
  const path = join(dir, 'tokens');
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

function refusal(path: string): string {
  try {
    TokenStore.load(path);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('TokenStore', () => {
  it('names the client of each token, ignoring comments and blank lines', () => {
    const store = TokenStore.load(tokenFile(`# agents\n\nalice:${ALICE}\n  bob:${BOB}  \n`));
    expect(store.names).toEqual(['alice', 'bob']);
    expect(store.verify(ALICE)).toBe('alice');
    expect(store.verify(BOB)).toBe('bob');
  });

  it('knows no token that is merely close to one', () => {
    const store = TokenStore.load(tokenFile(`alice:${ALICE}\n`));
    for (const guess of ['', ALICE.slice(0, -1), `${ALICE}x`, ALICE.toUpperCase(), `Bearer ${ALICE}`]) {
      expect(store.verify(guess)).toBeUndefined();
    }
  });

  it('keeps a colon inside a token (only the first one separates the name)', () => {
    const store = TokenStore.load(tokenFile(`ci:abc:def:0123456789abcdef\n`));
    expect(store.verify('abc:def:0123456789abcdef')).toBe('ci');
  });

  it('refuses a file others may read, saying the mode and the fix', () => {
    for (const mode of [0o644, 0o640, 0o604, 0o660]) {
      const path = tokenFile(`alice:${ALICE}\n`, mode);
      expect(refusal(path)).toContain(`has mode 0${mode.toString(8)}: only its owner may read it (chmod 600 ${path})`);
    }
    expect(() => TokenStore.load(tokenFile(`alice:${ALICE}\n`, 0o400))).not.toThrow();
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a file another user owns (needs root to chown)', () => {
    const path = tokenFile(`alice:${ALICE}\n`);
    chownSync(path, 65534, 65534);
    expect(refusal(path)).toMatch(/belongs to uid 65534, not to the server's uid 0/);
  });

  it('refuses what is not a usable list of tokens, naming the line and never the token', () => {
    const cases: [string, RegExp][] = [
      ['', /holds no name:token line/],
      ['# only a comment\n', /holds no name:token line/],
      [`${ALICE}\n`, /line 1 is not name:token/],
      [`alice:${ALICE}\nalice:${BOB}\n`, /line 2: the name "alice" is given twice/],
      [`alice:${ALICE}\nbob:${ALICE}\n`, /line 2: the token of "bob" is also another client's/],
      ['alice:short\n', /line 1: the token of "alice" is shorter than 16 characters/],
      [`local:${ALICE}\n`, /"local" is the name of clients without a token/],
      [`stdio:${ALICE}\n`, /"stdio" is the name of clients without a token/],
      [`loopback:${ALICE}\n`, /"loopback" is the name of clients without a token/],
      [`al ice:${ALICE}\n`, /line 1: the name must be/],
      [`:${ALICE}\n`, /line 1: the name must be/],
      [`alice:${ALICE} x\n`, /line 1: the token holds white space/],
    ];
    for (const [text, why] of cases) {
      const message = refusal(tokenFile(text));
      expect(message).toMatch(why);
      expect(message).not.toContain(ALICE);
      expect(message).not.toContain(BOB);
    }
  });

  it('refuses a missing file and a directory', () => {
    expect(refusal('/nonexistent/tokens')).toMatch(
      /^token file \/nonexistent\/tokens: does not exist \(named by --token-file or DBG_MCP_TOKEN_FILE\): create it with one name:token a line/,
    );
    expect(refusal('/nonexistent/tokens')).not.toMatch(/ENOENT/);
    const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-tokens-'));
    dirs.push(dir);
    chmodSync(dir, 0o700);
    expect(refusal(dir)).toMatch(/is not a regular file/);
  });

  it('reloads a changed file, and keeps the tokens in force when the new file is refused', () => {
    const path = tokenFile(`alice:${ALICE}\n`);
    const store = TokenStore.load(path);
    writeFileSync(path, `bob:${BOB}\n`);
    store.reload();
    expect(store.verify(ALICE)).toBeUndefined();
    expect(store.verify(BOB)).toBe('bob');
    chmodSync(path, 0o644);
    writeFileSync(path, `carol:${ALICE}\n`);
    expect(() => store.reload()).toThrow(/mode 0644/);
    expect(store.verify(BOB)).toBe('bob');
    expect(store.verify(ALICE)).toBeUndefined();
  });
});
