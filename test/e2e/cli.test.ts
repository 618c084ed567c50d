// The command line: --help, --version, and start-up refusing settings it cannot use.
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { defaultConfig } from '../../src/server/config.js';
import { hashTools, toolSchemaHash } from '../../src/server/createServer.js';
import { allTools } from '../../src/server/tools/index.js';
import { repoRoot } from '../helpers/paths.js';

const run = promisify(execFile);
const main = join(repoRoot, 'dist', 'dbg-mcp.js');

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [main, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('dbg-mcp command line', () => {
  it('prints help and version on stdout, and works whatever DBG_MCP_* holds', async () => {
    const help = await cli(['--help'], { DBG_MCP_NOPE: '1' });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage:/);
    for (const flag of ['--root', '--raw', '--gdb', '--max-sessions', '--idle-timeout'])
      expect(help.stdout).toContain(flag);
    const version = await cli(['--version']);
    expect(version.stdout).toMatch(/^dbg-mcp \d+\.\d+\.\d+\n/);
    // The commit of this checkout, and the hash of the tools' contract the server answers with.
    const head = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(version.stdout).toMatch(new RegExp(`^commit ${head}(-dirty)?$`, 'm'));
    expect(version.stdout).toMatch(new RegExp(`^tool schemas ${toolSchemaHash()}$`, 'm'));
  });

  it('hashes every tool’s contract: a changed description or schema changes the hash', () => {
    const tools = allTools({ ...defaultConfig(), raw: 'full' });
    const base = hashTools(tools);
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(hashTools(tools)).toBe(base);
    const [first, ...rest] = tools;
    if (!first) throw new Error('no tools');
    expect(hashTools([{ ...first, description: `${first.description} ` }, ...rest])).not.toBe(base);
    expect(hashTools([{ ...first, output: first.output.extend({ extra: z.string() }) }, ...rest])).not.toBe(base);
    expect(hashTools(rest)).not.toBe(base);
  });

  it('refuses an unknown DBG_MCP_* variable, naming it', async () => {
    const r = await cli([], { DBG_MCP_MAX_SESSION: '3' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/DBG_MCP_MAX_SESSION is not a setting/);
    expect(r.stdout).toBe('');
  });

  it('refuses unusable values and unknown flags, naming them', async () => {
    expect((await cli([], { DBG_MCP_MAX_SESSIONS: 'many' })).stderr).toMatch(
      /DBG_MCP_MAX_SESSIONS: "many" is not a whole number/,
    );
    expect((await cli([], { DBG_MCP_RAW: 'maybe' })).stderr).toMatch(/DBG_MCP_RAW: "maybe" is not off, read or full/);
    // `on` meant every command before --raw read existed: the operator chooses, nothing is guessed.
    expect((await cli(['--raw', 'on'])).stderr).toMatch(/--raw: "on" is not off, read or full \(on is gone/);
    expect((await cli(['--log-level', 'loud'])).stderr).toMatch(/--log-level/);
    expect((await cli(['--frobnicate'])).stderr).toMatch(/unknown argument "--frobnicate"/);
    expect((await cli(['--root', '/no/such/dir'])).stderr).toMatch(/workspace root \/no\/such\/dir is not a directory/);
  });

  it('doctor reports gdb and exits 0', async () => {
    const r = await cli(['doctor', '--json']);
    expect(r.code).toBe(0);
    const checks = JSON.parse(r.stdout) as { name: string; ok: boolean }[];
    expect(checks.find((c) => c.name === 'gdb')?.ok).toBe(true);
  });
});
