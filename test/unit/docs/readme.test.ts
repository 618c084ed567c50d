// The README's promises: it opens with the two commands, and its tables match the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe('README', () => {
  it('opens with the demo command and the test command', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = firstBlock.trim().split('\n');
    expect(lines[0]).toMatch(/^npm ci && npm run demo\b/);
    expect(lines[1]).toMatch(/^npm ci && npm test\b/);
    expect(readme.indexOf('```sh')).toBeLessThan(800);
  });

  it('has the tool and option tables the code generates', async () => {
    // @ts-expect-error: a plain .mjs script without types
    const { renderReadme } = await import('../../../scripts/docTables.mjs');
    expect(readme).toBe(await renderReadme(readme));
  });

  it('.ci/run calls exactly the README test command', () => {
    const ci = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8');
    expect(ci).toContain('npm ci && npm test;');
  });
});
