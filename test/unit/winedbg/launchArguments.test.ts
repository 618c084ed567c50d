// The seed's argv rules, checked again by the launcher before Wine is asked anything: an array of
// at most 64 entries of at most 4,096 characters, no NUL; the environment names valid and none of
// Wine's own settings (the server's to make).
import { describe, expect, it } from 'vitest';
import { type LaunchOptions, launchHeld } from '../../../src/backends/winedbg/wineLauncher.js';
import type { WinePrefix } from '../../../src/backends/winedbg/winePrefix.js';

/** The prefix is never reached: a refusal comes first (anything else would throw on this stand-in). */
const unreachable = new Proxy({} as WinePrefix, {
  get: () => {
    throw new Error('the prefix was used before the arguments were checked');
  },
});

function launch(extra: Partial<LaunchOptions>): Promise<unknown> {
  return launchHeld({
    prefix: unreachable,
    launcher: '/nonexistent/dbgmcp-launch.exe',
    program: '/work/prog.exe',
    args: [],
    outputPath: '/dev/null',
    sessionId: 'wtest',
    ...extra,
  });
}

describe('launchHeld refuses before starting anything', () => {
  it.each([
    ['65 arguments', { args: Array.from({ length: 65 }, (_, i) => `a${i}`) }, /at most 64 program arguments/],
    ['an argument of 4,097 characters', { args: ['x'.repeat(4097)] }, /longer than 4096 characters/],
    ['a NUL in an argument', { args: ['a\0b'] }, /holds a NUL/],
    ['a NUL in the program path', { program: '/work/p\0.exe' }, /holds a NUL/],
    ['a variable name with a space', { env: { 'A B': '1' } }, /environment variable "A B" is not valid/],
    ['a NUL in a value', { env: { A: 'x\0y' } }, /environment variable "A" is not valid/],
    ["Wine's own settings", { env: { WINEPREFIX: '/home/me/.wine' } }, /env\.WINEPREFIX: Wine's own settings/],
    ["the server's session mark", { env: { DBGMCP_WINE_SESSION: 'other' } }, /env\.DBGMCP_WINE_SESSION/],
  ])('%s', async (_what, extra, message) => {
    await expect(launch(extra)).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(message),
    });
  });
});
