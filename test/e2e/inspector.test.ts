// A third-party client: the MCP Inspector CLI lists our tools and calls dbg_start.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fixture, fixturesDir, repoRoot } from '../helpers/paths.js';

const run = promisify(execFile);
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

async function inspector(args: string[]): Promise<any> {
  const { stdout } = await run(
    'npx',
    ['-y', INSPECTOR, '--cli', process.execPath, join(repoRoot, 'dist', 'dbg-mcp.js'), '--root', fixturesDir, ...args],
    { timeout: 150_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'error' } },
  );
  return JSON.parse(stdout);
}

describe('MCP Inspector CLI', () => {
  it('lists the tools and runs a crashing program to its crash with dbg_start', { timeout: 300_000 }, async () => {
    const list = await inspector(['--method', 'tools/list']);
    expect(list.tools.map((t: { name: string }) => t.name)).toContain('dbg_start');
    const call = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'dbg_start',
      '--tool-arg',
      `program=${fixture('crash')}`,
      '--tool-arg',
      'args=["segv"]',
    ]);
    expect(call.isError ?? false).toBe(false);
    expect(call.structuredContent.views.crash.signal).toBe('SIGSEGV');
  });
});
