// The loader variables of a program's env: allowed when every path they name lies under the roots
// (symlinks resolved, $ORIGIN expanded, relative and empty entries taken as the loader takes them),
// refused with the variable and the path otherwise.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProgramEnvironment, type EnvPolicyContext } from '../../../src/server/envPolicy.js';
import { DebuggerError } from '../../../src/util/errors.js';

/** ld.so's braced token form, ${NAME}. */
const braced = (name: string): string => `\${${name}}`;

let base: string;
let root: string;
let outside: string;
let ctx: EnvPolicyContext;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'envpolicy-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  for (const d of [root, join(root, 'bin'), join(root, 'lib'), join(root, 'gconv'), outside]) mkdirSync(d);
  writeFileSync(join(root, 'bin', 'prog'), '');
  writeFileSync(join(root, 'lib', 'mine.so'), '');
  writeFileSync(join(outside, 'evil.so'), '');
  // Links that look inside and lead out, and one that leads in.
  symlinkSync(join(outside, 'evil.so'), join(root, 'lib', 'looks-inside.so'));
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(root, 'lib'), join(outside, 'into-root'));
  ctx = { roots: [root], program: join(root, 'bin', 'prog'), cwd: root };
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function refusal(env: Record<string, string>, context: EnvPolicyContext = ctx): Promise<DebuggerError> {
  const e = await checkProgramEnvironment(env, context).then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof DebuggerError)) throw new Error(`expected a refusal of ${JSON.stringify(env)}, got ${String(e)}`);
  expect(e.code).toBe('invalid_argument');
  return e;
}

describe('checkProgramEnvironment: allowed', () => {
  it.each([
    ['LD_PRELOAD, absolute under the root', { LD_PRELOAD: '/ROOT/lib/mine.so' }],
    [
      'LD_PRELOAD, two entries by space and colon',
      { LD_PRELOAD: '/ROOT/lib/mine.so /ROOT/lib/mine.so:/ROOT/lib/mine.so' },
    ],
    ['LD_PRELOAD, relative to the working directory', { LD_PRELOAD: 'lib/mine.so' }],
    ['LD_PRELOAD, a bare name the loader looks up (a sanitizer runtime)', { LD_PRELOAD: 'libasan.so.8' }],
    ['LD_PRELOAD, $ORIGIN is the program directory', { LD_PRELOAD: '$ORIGIN/../lib/mine.so' }],
    ['LD_PRELOAD, $ORIGIN braced', { LD_PRELOAD: `${braced('ORIGIN')}/../lib/mine.so` }],
    ['LD_PRELOAD, empty entries are skipped by the loader', { LD_PRELOAD: '::/ROOT/lib/mine.so  ' }],
    ['LD_PRELOAD, empty', { LD_PRELOAD: '' }],
    ['LD_AUDIT under the root', { LD_AUDIT: '/ROOT/lib/mine.so' }],
    ['LD_LIBRARY_PATH, directories under the root, by colon and semicolon', { LD_LIBRARY_PATH: '/ROOT/lib;/ROOT:lib' }],
    ['LD_LIBRARY_PATH, an empty entry is the working directory (under the root)', { LD_LIBRARY_PATH: ':/ROOT/lib' }],
    ['LD_LIBRARY_PATH, a directory that does not exist yet under the root', { LD_LIBRARY_PATH: '/ROOT/not/yet' }],
    ['LD_LIBRARY_PATH, a link from outside into the root', { LD_LIBRARY_PATH: '/OUTSIDE/into-root' }],
    ['GCONV_PATH under the root', { GCONV_PATH: '/ROOT/gconv:' }],
    ['LD_DEBUG_OUTPUT, a new file under the root', { LD_DEBUG_OUTPUT: '/ROOT/ld-debug' }],
    ['MALLOC_TRACE under the root', { MALLOC_TRACE: 'mtrace.out' }],
    ['LD_PROFILE with its output under the root', { LD_PROFILE: 'libc.so.6', LD_PROFILE_OUTPUT: '/ROOT' }],
    ['variables that change no path', { LD_BIND_NOW: '1', LD_DEBUG: 'all', GLIBC_TUNABLES: 'glibc.malloc.check=3' }],
  ])('%s', async (_name, env) => {
    const real = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, v.replaceAll('/ROOT', root).replaceAll('/OUTSIDE', outside)]),
    );
    await expect(checkProgramEnvironment(real, ctx)).resolves.toBeUndefined();
  });
});

describe('checkProgramEnvironment: refused, naming the variable and the path', () => {
  it.each([
    ['LD_PRELOAD outside', { LD_PRELOAD: '/OUTSIDE/evil.so' }, 'LD_PRELOAD', '/OUTSIDE/evil.so'],
    [
      'LD_PRELOAD, the second entry outside',
      { LD_PRELOAD: '/ROOT/lib/mine.so /OUTSIDE/evil.so' },
      'LD_PRELOAD',
      '/OUTSIDE/evil.so',
    ],
    ['LD_PRELOAD, after a colon', { LD_PRELOAD: '/ROOT/lib/mine.so:/OUTSIDE/evil.so' }, 'LD_PRELOAD', 'evil.so'],
    [
      'LD_PRELOAD, ../ climbing out',
      { LD_PRELOAD: '/ROOT/lib/../../outside/evil.so' },
      'LD_PRELOAD',
      '/OUTSIDE/evil.so',
    ],
    ['LD_PRELOAD, relative ../', { LD_PRELOAD: '../outside/evil.so' }, 'LD_PRELOAD', '/OUTSIDE/evil.so'],
    [
      'LD_PRELOAD, a link inside that points out',
      { LD_PRELOAD: '/ROOT/lib/looks-inside.so' },
      'LD_PRELOAD',
      '/OUTSIDE/evil.so',
    ],
    [
      'LD_PRELOAD, through a linked directory',
      { LD_PRELOAD: '/ROOT/escape/evil.so' },
      'LD_PRELOAD',
      '/OUTSIDE/evil.so',
    ],
    [
      'LD_PRELOAD, $ORIGIN climbing out',
      { LD_PRELOAD: '$ORIGIN/../../outside/evil.so' },
      'LD_PRELOAD',
      '/OUTSIDE/evil.so',
    ],
    [
      'LD_PRELOAD, a system library by path',
      { LD_PRELOAD: '/lib/x86_64-linux-gnu/libm.so.6' },
      'LD_PRELOAD',
      'libm.so.6',
    ],
    ['LD_PRELOAD, $LIB', { LD_PRELOAD: '/ROOT/$LIB/x.so' }, 'LD_PRELOAD', '$LIB'],
    [
      'LD_PRELOAD, $PLATFORM braced',
      { LD_PRELOAD: `/ROOT/${braced('PLATFORM')}/x.so` },
      'LD_PRELOAD',
      braced('PLATFORM'),
    ],
    ['LD_AUDIT outside', { LD_AUDIT: '/OUTSIDE/evil.so' }, 'LD_AUDIT', '/OUTSIDE/evil.so'],
    ['LD_LIBRARY_PATH outside', { LD_LIBRARY_PATH: '/OUTSIDE' }, 'LD_LIBRARY_PATH', '/OUTSIDE'],
    ['LD_LIBRARY_PATH, after a semicolon', { LD_LIBRARY_PATH: '/ROOT/lib;/tmp' }, 'LD_LIBRARY_PATH', '/tmp'],
    ['LD_LIBRARY_PATH, $LIB', { LD_LIBRARY_PATH: '/ROOT/$LIB' }, 'LD_LIBRARY_PATH', '$LIB'],
    ['LD_LIBRARY_PATH, a system directory', { LD_LIBRARY_PATH: '/usr/lib' }, 'LD_LIBRARY_PATH', '/usr/lib'],
    ['GCONV_PATH outside', { GCONV_PATH: '/OUTSIDE' }, 'GCONV_PATH', '/OUTSIDE'],
    ['LD_ORIGIN_PATH outside', { LD_ORIGIN_PATH: '/OUTSIDE' }, 'LD_ORIGIN_PATH', '/OUTSIDE'],
    ['LD_DEBUG_OUTPUT outside', { LD_DEBUG_OUTPUT: '/OUTSIDE/log' }, 'LD_DEBUG_OUTPUT', '/OUTSIDE/log'],
    [
      'LD_DEBUG_OUTPUT, a new file past a ../',
      { LD_DEBUG_OUTPUT: '/ROOT/new/../../outside/log' },
      'LD_DEBUG_OUTPUT',
      '/OUTSIDE/log',
    ],
    ['LD_PROFILE_OUTPUT outside', { LD_PROFILE: 'libc.so.6', LD_PROFILE_OUTPUT: '/tmp' }, 'LD_PROFILE_OUTPUT', '/tmp'],
    ['LD_PROFILE without an output directory', { LD_PROFILE: 'libc.so.6' }, 'LD_PROFILE', '/var/tmp'],
    ['MALLOC_TRACE outside', { MALLOC_TRACE: '/tmp/trace' }, 'MALLOC_TRACE', '/tmp/trace'],
    ['MALLOC_TRACE empty', { MALLOC_TRACE: '' }, 'MALLOC_TRACE', 'empty'],
  ])('%s', async (_name, env, variable, path) => {
    const real = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, v.replaceAll('/ROOT', root).replaceAll('/OUTSIDE', outside)]),
    );
    const e = await refusal(real);
    expect(e.message.startsWith(`env.${variable}: `)).toBe(true);
    expect(e.message).toContain(path.replaceAll('/OUTSIDE', outside));
    expect(e.details).toEqual({ fields: [`env.${variable}`] });
  });

  it('LD_LIBRARY_PATH: an empty entry is the working directory, refused when that lies outside', async () => {
    const e = await refusal({ LD_LIBRARY_PATH: `${root}/lib:` }, { ...ctx, cwd: outside });
    expect(e.message).toContain('empty entry: the working directory');
    expect(e.message).toContain(outside);
  });

  it('relative entries are taken from the working directory, not from the server', async () => {
    const e = await refusal({ LD_PRELOAD: './evil.so' }, { ...ctx, cwd: outside });
    expect(e.message).toContain(join(outside, 'evil.so'));
  });

  it('several roots: a path under any of them passes', async () => {
    await expect(
      checkProgramEnvironment({ LD_PRELOAD: join(outside, 'evil.so') }, { ...ctx, roots: [root, outside] }),
    ).resolves.toBeUndefined();
  });
});
