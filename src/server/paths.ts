// Paths an agent names (programs, cores, working directories) must lie under the workspace
// roots. They are resolved (symlinks too) before the check, so ../ and links cannot escape.

import { constants } from 'node:fs';
import { access, lstat, open, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { DebuggerError } from '../util/errors.js';
import { isUnder } from '../util/pathUnder.js';

/** The real path of `path` (relative paths start at the first root), refused outside the roots. */
export async function resolveInRoots(path: string, roots: readonly string[], field: string): Promise<string> {
  const base = roots[0] ?? process.cwd();
  const absolute = isAbsolute(path) ? path : resolve(base, path);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch {
    throw new DebuggerError('invalid_argument', `${field}: ${absolute} does not exist`, { field });
  }
  const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => resolve(r))));
  if (!realRoots.some((r) => isUnder(r, real))) {
    throw new DebuggerError(
      'invalid_argument',
      `${field}: ${real} is outside the workspace roots (${realRoots.join(', ')}); start the server with --root to allow it`,
      { field, roots: realRoots, refusal: 'outside_roots' },
    );
  }
  return real;
}

export async function resolveProgram(path: string, roots: readonly string[], field = 'program'): Promise<string> {
  const real = await resolveInRoots(path, roots, field);
  const info = await stat(real);
  if (!info.isFile()) throw new DebuggerError('invalid_argument', `${field}: ${real} is not a file`, { field });
  try {
    await access(real, constants.X_OK);
  } catch {
    throw new DebuggerError('invalid_argument', `${field}: ${real} is not executable (chmod +x, or build it first)`, {
      field,
    });
  }
  await refuseScript(real, roots, field);
  return real;
}

/** The interpreter line of a `#!` script (without the `#!`), or undefined for any other file. */
export async function shebangOf(file: string): Promise<string | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString('latin1');
    if (!text.startsWith('#!')) return undefined;
    return text.slice(2).split('\n')[0]?.trim() ?? '';
  } finally {
    await handle.close();
  }
}

/**
 * A script is not a program a debugger can run: gdb would answer only "not in executable
 * format". Say what it is, its interpreter, and how to debug it: the interpreter, with the script
 * as its first argument (and which root that needs).
 */
async function refuseScript(real: string, roots: readonly string[], field: string): Promise<void> {
  const line = await shebangOf(real);
  if (line === undefined) return;
  const words = line.split(/\s+/).filter((w) => w !== '');
  const interpreter = words[0] ?? '';
  // `#!/usr/bin/env python3` names its interpreter by the word after env.
  const named = basename(interpreter) === 'env' && words[1] !== undefined ? words[1] : interpreter;
  const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => resolve(r))));
  const interpreterReal = isAbsolute(named) ? await realpath(named).catch(() => named) : undefined;
  const underRoots = interpreterReal !== undefined && realRoots.some((r) => isUnder(r, interpreterReal));
  const how =
    interpreterReal === undefined
      ? `give the interpreter's full path as program and ${JSON.stringify(real)} as its first argument`
      : `program: ${JSON.stringify(interpreterReal)}, args: [${JSON.stringify(real)}]${
          underRoots
            ? ''
            : ` (${interpreterReal} is outside the workspace roots: start the server with --root ${dirname(interpreterReal)})`
        }`;
  throw new DebuggerError(
    'invalid_argument',
    `${field}: ${real} is a script for ${named || 'an unnamed interpreter'} (#!${line}), not a compiled program; to debug the interpreter running it: ${how}`,
    { field, interpreter: named },
  );
}

export async function resolveDirectory(path: string, roots: readonly string[], field: string): Promise<string> {
  const real = await resolveInRoots(path, roots, field);
  if (!(await stat(real)).isDirectory())
    throw new DebuggerError('invalid_argument', `${field}: ${real} is not a directory`, { field });
  return real;
}

/** A file to create under the roots: its directory is there, and nothing by that name exists yet. */
export async function resolveNewFile(path: string, roots: readonly string[], field: string): Promise<string> {
  const absolute = isAbsolute(path) ? path : resolve(roots[0] ?? process.cwd(), path);
  const name = basename(absolute);
  if (name === '' || name === '.' || name === '..' || path.endsWith('/')) {
    throw new DebuggerError('invalid_argument', `${field}: ${JSON.stringify(path)} names no file`, { field });
  }
  const file = join(await resolveDirectory(dirname(absolute), roots, field), name);
  const existing = await lstat(file).catch(() => undefined);
  if (existing) {
    throw new DebuggerError(
      'invalid_argument',
      `${field}: ${file} exists; give a new file name (nothing is overwritten)`,
      { field },
    );
  }
  return file;
}
