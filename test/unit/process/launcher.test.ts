// The launcher without GDB: the plan for each kind of arguments, the build and its cache, and the
// built launcher run as GDB runs its shell, with hostile command text before the marker.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_MARKER } from '../../../src/process/launcher/launcherSource.js';
import {
  ensureLauncher,
  type LauncherStatus,
  launchPlan,
  launchToken,
  needsLauncher,
} from '../../../src/process/launcher.js';
import { DebuggerError } from '../../../src/util/errors.js';
import { fixture } from '../../helpers/paths.js';

let cache: string;
let launcher: string;

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'launcher-cache-'));
  const status = await ensureLauncher({ cacheDir: cache });
  if (!status.available) throw new Error(`the launcher did not build: ${status.reason}`);
  launcher = status.path;
}, 120_000);

afterAll(() => rmSync(cache, { recursive: true, force: true }));

/** Runs the launcher as GDB runs its shell; answers exit code and output. */
function runAsShell(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(launcher, ['-c', command], { timeout: 10_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr });
    });
  });
}

describe('launchPlan', () => {
  const available: LauncherStatus = { available: true, path: '/cache/dbg-mcp-launcher' };
  const missing: LauncherStatus = { available: false, reason: 'no C compiler to build it' };

  it.each([
    [[], false],
    [['a', 'b'], false],
    [['$HOME', ';', '|', '`id`', "'", '"'], false],
    [[''], true],
    [['a b'], true],
    [['tab\there'], true],
    [['x', ' lead'], true],
  ])('%j needs the launcher: %s', (args, needed) => {
    expect(needsLauncher(args)).toBe(needed);
  });

  it('plain arguments go to GDB as they are, with no shell and no launcher', () => {
    expect(launchPlan('/w/prog', ['one', '$x', '|'], available)).toEqual({
      startupWithShell: false,
      argsText: 'one $x |',
      viaLauncher: false,
    });
  });

  it('other arguments become the marker and hex tokens, the program first', () => {
    const plan = launchPlan('/w/q|sh', ['a b', ''], available);
    expect(plan).toEqual({
      startupWithShell: true,
      argsText: `${LAUNCH_MARKER} ${launchToken('/w/q|sh')} x612062 x`,
      viaLauncher: true,
    });
    // Only the characters GDB's splitting and any shell leave alone.
    expect(plan.argsText).toMatch(/^[-a-z0-9 ]+$/);
  });

  it('tokens carry UTF-8 bytes', () => {
    expect(launchToken('é')).toBe('xc3a9');
    expect(launchToken('')).toBe('x');
  });

  it('without the launcher, only arguments that need it are refused, with the reason', () => {
    expect(launchPlan('/w/prog', ['a'], missing).viaLauncher).toBe(false);
    const e = (() => {
      try {
        launchPlan('/w/prog', ['a b'], missing);
      } catch (x) {
        return x;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(DebuggerError);
    expect(e).toMatchObject({ code: 'invalid_argument', details: { fields: ['args'] } });
    expect((e as Error).message).toContain('no C compiler to build it');
  });
});

describe('the built launcher', () => {
  it('is private to this user (GDB runs it for every such program)', () => {
    const info = statSync(launcher);
    expect(info.mode & 0o077).toBe(0);
    expect(info.uid).toBe(process.getuid?.());
  });

  it('execs the program with the decoded argv, ignoring the hostile text GDB puts before the marker', async () => {
    const program = fixture('echo_args');
    const args = ['a b', '', "it's", '$(touch /tmp/never)', '`id`', '|', `fake ${LAUNCH_MARKER} x41`];
    const tokens = [program, ...args].map(launchToken).join(' ');
    // GDB writes `exec PROGRAM ARGS`, PROGRAM unquoted; the name may even hold a marker of its own.
    const command = `exec /w/q|sh \`id\` $(id) ${LAUNCH_MARKER} x41 'x' ${LAUNCH_MARKER} ${tokens}`;
    const { code, stdout, stderr } = await runAsShell(command);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(`${args.map((a) => `[${a}]\n`).join('')}probe=(unset)\n`);
    expect(existsSync('/tmp/never')).toBe(false);
  });

  it.each([
    ['no marker', 'exec /bin/true'],
    ['a token without its x', `exec p ${LAUNCH_MARKER} 2f62696e2f74727565`],
    ['odd hex', `exec p ${LAUNCH_MARKER} x2f6`],
    ['upper-case hex', `exec p ${LAUNCH_MARKER} x2F62696E2F74727565`],
    ['a NUL byte', `exec p ${LAUNCH_MARKER} x2f00`],
    ['two spaces', `exec p ${LAUNCH_MARKER} ${launchToken('/bin/true')}  x41`],
    ['a trailing space', `exec p ${LAUNCH_MARKER} ${launchToken('/bin/true')} `],
    ['nothing after the marker', `exec p ${LAUNCH_MARKER} `],
  ])('refuses %s with exit 127 and runs nothing', async (_name, command) => {
    const { code, stderr } = await runAsShell(command);
    expect(code).toBe(127);
    expect(stderr).toMatch(/^dbg-mcp-launcher: /);
  });

  it('is no shell for anything else GDB might ask of its shell', async () => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(launcher, ['-c', 'id'], (error, _o, stderr) => resolve({ code: Number(error?.code ?? 0), stderr }));
    });
    expect(result).toEqual({ code: 127, stderr: 'dbg-mcp-launcher: no argument vector in the command\n' });
  });

  it('opens a stdin file named by a first i-token as fd 0; a missing one is refused, running nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-stdin-'));
    const input = join(dir, 'in.txt');
    writeFileSync(input, 'one\ntwo\n');
    const plan = launchPlan(fixture('stdin_echo'), [], { available: true, path: launcher }, input);
    expect(plan.argsText.split(' ')[1]).toBe(`i${Buffer.from(input).toString('hex')}`);
    const ok = await runAsShell(`exec p ${plan.argsText}`);
    expect(ok).toMatchObject({ code: 0, stdout: 'got:one\ngot:two\neof after 2 lines\n' });
    const gone = launchPlan(fixture('stdin_echo'), [], { available: true, path: launcher }, join(dir, 'nope'));
    const refused = await runAsShell(`exec p ${gone.argsText}`);
    expect(refused.code).toBe(127);
    expect(refused.stderr).toMatch(/^dbg-mcp-launcher: cannot open .*nope as stdin: No such file/);
    expect(() => launchPlan('/w/prog', [], { available: false, reason: 'no compiler' }, input)).toThrow(
      /^stdin_file: a file as stdin needs the launcher/,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a program that cannot be executed', async () => {
    const { code, stderr } = await runAsShell(`exec p ${LAUNCH_MARKER} ${launchToken('/nonexistent/prog')}`);
    expect(code).toBe(127);
    expect(stderr).toContain('cannot execute /nonexistent/prog');
  });
});

describe('ensureLauncher: the cache', () => {
  it('a build in the cache is used without a compiler', async () => {
    const status = await ensureLauncher({ cacheDir: cache, compilers: ['/nonexistent/cc'] });
    expect(status).toEqual({ available: true, path: launcher });
  });

  it('without a compiler and no build, says what to install', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'launcher-none-'));
    try {
      const status = await ensureLauncher({ cacheDir: empty, compilers: ['no-such-cc-here'] });
      expect(status.available).toBe(false);
      if (!status.available) expect(status.reason).toContain('install gcc');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a cache directory others can write is refused, not trusted', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'launcher-shared-'));
    try {
      const first = await ensureLauncher({ cacheDir: shared, compilers: ['cc', 'gcc'] });
      expect(first.available).toBe(true);
      if (!first.available) return;
      chmodSync(join(first.path, '..'), 0o777);
      const second = await ensureLauncher({ cacheDir: shared, compilers: ['gcc'] });
      expect(second.available).toBe(false);
      if (!second.available) expect(second.reason).toContain('writable by others');
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  }, 120_000);
});
