// The README's demo transcript is what the demo prints today: run the built demo and compare it
// with the README's block, the parts that change from run to run masked (scripts/demoTranscript.mjs).
// On a difference: `node scripts/demoTranscript.mjs --write` after `npm run build`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without types
import { maskTranscript, readmeTranscript, runDemo } from '../../scripts/demoTranscript.mjs';
import { repoRoot } from '../helpers/paths.js';

describe("the README's demo transcript", () => {
  it('is the real output of the demo (temporary paths, session ids, pids and stack addresses masked)', async () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const shown: string | undefined = readmeTranscript(readme);
    expect(shown, 'the README has its demo markers').toBeDefined();
    const printed: string = await runDemo();
    expect(maskTranscript(printed.replace(/^\n+/, '').replace(/\n*$/, '\n'))).toBe(maskTranscript(shown as string));
  }, 200_000);

  it('masks only what changes between runs', () => {
    expect(maskTranscript('closed session 0184a6f8: killed pid 24106; the debugger (pid 24099) has stopped')).toBe(
      'closed session SESSION: killed pid N; the debugger (pid N) has stopped',
    );
    expect(maskTranscript('#3 main (argc=2, argv=0x7fffffffecf8) at crash.c:36')).toBe(
      '#3 main (argc=2, argv=0x7ffADDRESS) at crash.c:36',
    );
    // What the program's own code shows is kept as it is.
    expect(maskTranscript('#2 process (name=0x555555556016 "widget") at crash.c:24')).toBe(
      '#2 process (name=0x555555556016 "widget") at crash.c:24',
    );
  });
});
