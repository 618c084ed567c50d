// What the README promises a newcomer: the packed tarball installs with `npm install -g` into an
// empty prefix, and the `dbg-mcp` it puts on the PATH runs --version, doctor and the demo. npm
// fetches the package's dependencies' metadata from the registry (their tarballs come from npm's
// cache, filled by `npm ci`); where the registry cannot be reached the test says so and skips.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

function run(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

const NO_REGISTRY = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|network/i;

describe('the packed tarball, installed globally into an empty prefix', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-pack-'));
  const prefix = join(dir, 'prefix');
  let installed: { code: number; stdout: string; stderr: string };
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const pack = await run('npm', ['pack', '--silent', '--pack-destination', dir]);
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = join(dir, pack.stdout.trim().split('\n').pop() as string);
    installed = await run('npm', [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
    ]);
    // Only the installed command on the PATH before the system's: not the checkout's node_modules/.bin.
    env = { PATH: `${join(prefix, 'bin')}:/usr/local/bin:/usr/bin:/bin`, HOME: process.env['HOME'] ?? dir };
  }, 300_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function needInstall(ctx: { skip: (note: string) => never }) {
    if (installed.code !== 0 && NO_REGISTRY.test(installed.stderr)) {
      ctx.skip(`npm could not reach its registry here: ${installed.stderr.split('\n')[0]}`);
    }
    expect(installed.code, installed.stderr).toBe(0);
  }

  it('puts dbg-mcp on the PATH, and it says its version', async (ctx) => {
    needInstall(ctx);
    const version = await run('dbg-mcp', ['--version'], { cwd: dir, env });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/^dbg-mcp \d+\.\d+\.\d+\n/);
  });

  it('runs the doctor from the installed copy', async (ctx) => {
    needInstall(ctx);
    const doctor = await run('dbg-mcp', ['doctor'], { cwd: dir, env });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/^ok {3}gdb {2,}GNU gdb/m);
    expect(doctor.stdout).toMatch(/^ok {3}launcher {2,}/m);
  });

  it('runs the demo from the installed copy: the crash, the frame, the close', async (ctx) => {
    needInstall(ctx);
    const demo = await run('dbg-mcp', ['demo'], { cwd: dir, env });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/hint: NULL pointer dereference in store at crash\.c:13/);
    expect(demo.stdout).toMatch(/^closed session [0-9a-f]{8}: killed pid \d+/m);
    // Nothing but the demo's own text on stdout: the server's log goes to stderr.
    expect(demo.stdout).not.toMatch(/"level":/);
  });
});
