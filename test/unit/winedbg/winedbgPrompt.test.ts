// The Wine-dbg> prompt driver against a stand-in that speaks the same protocol (fakeWinedbg.mjs),
// so framing, timeouts, the late-prompt drain, the cap and the line rules are checked without
// Wine. test/integration/winedbg/prompt.test.ts drives the real winedbg.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertOneLine, WinedbgPrompt } from '../../../src/backends/winedbg/winedbgPrompt.js';
import type { WinePrefix } from '../../../src/backends/winedbg/winePrefix.js';

const fake = join(dirname(fileURLToPath(import.meta.url)), 'fakeWinedbg.mjs');
let dir = '';
let logFile = '';
const prompts: WinedbgPrompt[] = [];

/** Just what the driver asks of a prefix: an environment. */
function stubPrefix(env: Record<string, string>): WinePrefix {
  return { environment: (extra: Record<string, string> = {}) => ({ ...env, ...extra }) } as unknown as WinePrefix;
}

async function start(env: Record<string, string> = {}, cap?: number): Promise<WinedbgPrompt> {
  const p = await WinedbgPrompt.start({
    prefix: stubPrefix({ PATH: process.env.PATH ?? '', FAKE_LOG: logFile, ...env }),
    winedbg: process.execPath,
    args: [fake],
    cap,
    startTimeoutMs: 10_000,
  });
  prompts.push(p);
  return p;
}

/** The lines the stand-in read, in order. */
function received(): string[] {
  return existsSync(logFile)
    ? readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string)
    : [];
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prompt-'));
  logFile = join(dir, 'log');
});
afterEach(async () => {
  for (const p of prompts.splice(0)) await p.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('WinedbgPrompt', () => {
  it('keeps what came before the first prompt as the banner', async () => {
    const p = await start({ FAKE_BANNER: 'WineDbg starting on pid 0128' });
    expect(p.banner).toBe('WineDbg starting on pid 0128\n');
  });

  it('answers a command with its output alone: no prompt, no sync line', async () => {
    const p = await start();
    const r = await p.execute('say hello world');
    expect(r.text).toBe('hello world\n');
    expect(r.dropped).toBe(0);
    expect(r.ms).toBeGreaterThan(0);
  });

  it('frames the same way when echo fails for want of a process (winedbg quotes the command in its error)', async () => {
    const p = await start({ FAKE_NOPROC: '1' });
    expect((await p.execute('say one')).text).toBe('one\n');
    expect((await p.execute('say two')).text).toBe('two\n');
  });

  it('a prompt inside a reply does not end it early', async () => {
    const p = await start();
    expect((await p.execute('fakeprompt')).text).toBe('tricky Wine-dbg>more\n');
    expect((await p.execute('say next')).text).toBe('next\n');
  });

  it.each([
    ['\\n', 'say a\nsay b'],
    ['\\r', 'say a\rsay b'],
    ['VT', 'say a\vb'],
    ['FF', 'say a\fb'],
    ['NEL', 'say a\u0085b'],
    ['U+2028', 'say a\u2028b'],
    ['U+2029', 'say a\u2029b'],
    ['NUL', 'say a\0b'],
  ])('refuses a command holding %s, and writes nothing', async (_name, command) => {
    const p = await start();
    await expect(p.execute(command)).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(received().filter((l) => l.startsWith('say'))).toEqual([]);
  });

  it('refuses a command longer than 4096 characters', () => {
    expect(() => assertOneLine(`say ${'x'.repeat(4093)}`)).toThrow(/at most 4096/);
    expect(() => assertOneLine(`say ${'x'.repeat(4092)}`)).not.toThrow();
  });

  it('after a timeout the late reply is drained, not passed off as the next command’s', async () => {
    const p = await start();
    await expect(p.execute('sleep 400', { timeoutMs: 50 })).rejects.toMatchObject({ code: 'timeout' });
    const next = await p.execute('say fresh', { timeoutMs: 5000 });
    expect(next.text).toBe('fresh\n');
    // The next command was written only once the late reply was in.
    const lines = received();
    expect(lines.indexOf('say fresh')).toBeGreaterThan(lines.indexOf('sleep 400'));
  });

  it('a command after a timeout that never comes back is refused, and not written', async () => {
    const p = await start();
    await expect(p.execute('sleep 100000', { timeoutMs: 50 })).rejects.toMatchObject({ code: 'timeout' });
    await expect(p.execute('say late', { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringContaining('has not come back to its prompt since `sleep 100000` timed out'),
    });
    expect(received()).not.toContain('say late');
  });

  it('caps a reply: the oldest text goes, and the reply opens with how much', async () => {
    const p = await start({}, 4096);
    const r = await p.execute('big 10000');
    expect(r.dropped).toBeGreaterThan(0);
    expect(r.text.startsWith(`[${r.dropped} characters of earlier output dropped: buffer limit]\n`)).toBe(true);
    const kept = r.text.slice(r.text.indexOf('\n') + 1);
    // 10000 x and a newline in all: what was kept and what was dropped add up.
    expect(kept.length + r.dropped).toBe(10001);
    expect(kept.length).toBeLessThanOrEqual(4096);
  });

  it('runs commands one at a time, each with its own reply', async () => {
    const p = await start();
    const [a, b, c] = await Promise.all([p.execute('say a'), p.execute('sleep 30'), p.execute('say c')]);
    expect([a.text, b.text, c.text]).toEqual(['a\n', 'slept\n', 'c\n']);
  });

  it('decodes a UTF-8 character split across two reads as the character', async () => {
    const p = await start();
    expect((await p.execute('utf8split')).text).toBe('é€\n');
  });

  it('winedbg exiting fails the command at once, and every later one', async () => {
    const p = await start();
    await expect(p.execute('exit')).rejects.toMatchObject({
      code: 'debugger_error',
      message: expect.stringContaining('code 3'),
    });
    expect(p.alive).toBe(false);
    await expect(p.execute('say anything')).rejects.toMatchObject({ code: 'debugger_error' });
  });
});
