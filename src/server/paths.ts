// Paths an agent names (programs, cores, working directories) must lie under the workspace
// roots. They are resolved (symlinks too) before the check, so ../ and links cannot escape.

import { constants } from 'node:fs';
import { access, lstat, realpath, stat } from 'node:fs/promises';
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
  return real;
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
