// Environment variables of a program that make the dynamic loader (or glibc) load code, or write
// files, from paths they name. A program's `env` may set them only when every path lies under the
// workspace roots, as the program itself must: otherwise `env: {LD_PRELOAD: "/tmp/x.so"}` runs code
// from anywhere in a program the roots allowed.
//
// The list is glibc's own list of variables it strips from set-user-ID programs
// (sysdeps/generic/unsecvars.h), narrowed to those that name code or an output file:
// - code: LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH, GCONV_PATH (iconv modules are shared objects),
//   LD_ORIGIN_PATH (what $ORIGIN means when /proc/self/exe cannot be read);
// - files written: LD_DEBUG_OUTPUT, LD_PROFILE_OUTPUT, MALLOC_TRACE; and LD_PROFILE, which writes
//   into /var/tmp unless LD_PROFILE_OUTPUT says where.
// The others of that list read data (LOCPATH, TZDIR, NLSPATH, HOSTALIASES…) or only change
// behaviour (LD_BIND_NOW, LD_DEBUG, GLIBC_TUNABLES), and pass.

import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { DebuggerError } from '../util/errors.js';
import { isUnder } from '../util/pathUnder.js';

export interface EnvPolicyContext {
  /** Workspace roots (realpath is applied here). */
  roots: readonly string[];
  /** The program's real path: $ORIGIN is its directory. */
  program: string;
  /** The program's working directory: relative entries, and LD_LIBRARY_PATH's empty ones, mean it. */
  cwd: string;
}

type Kind =
  /** Shared objects: a name without a slash is searched by the loader in the system's and the program's own paths. */
  | { of: 'objects'; separators: RegExp }
  /** Directories searched for code; an empty entry means the working directory when `emptyIsCwd`. */
  | { of: 'directories'; separators: RegExp; emptyIsCwd: boolean }
  /** One file or directory written. */
  | { of: 'output' };

/** man ld.so: LD_PRELOAD entries are "separated by spaces or colons", LD_LIBRARY_PATH's by colons or semicolons. */
const GOVERNED: Readonly<Record<string, Kind>> = {
  LD_PRELOAD: { of: 'objects', separators: /[ :]/ },
  LD_AUDIT: { of: 'objects', separators: /:/ },
  LD_LIBRARY_PATH: { of: 'directories', separators: /[:;]/, emptyIsCwd: true },
  LD_ORIGIN_PATH: { of: 'directories', separators: /:/, emptyIsCwd: false },
  GCONV_PATH: { of: 'directories', separators: /:/, emptyIsCwd: false },
  LD_DEBUG_OUTPUT: { of: 'output' },
  LD_PROFILE_OUTPUT: { of: 'output' },
  MALLOC_TRACE: { of: 'output' },
};

/** The variables this policy governs (for the guide and the doctor). */
export const GOVERNED_VARIABLES: readonly string[] = [...Object.keys(GOVERNED), 'LD_PROFILE'];

/** ld.so's dynamic string tokens ($ORIGIN, ${LIB}…): only $ORIGIN has one meaning we can know. */
const TOKEN = /\$(?:\{(ORIGIN|LIB|PLATFORM)\}|(ORIGIN|LIB|PLATFORM)(?![A-Za-z0-9_]))/g;

function refuse(name: string, why: string): never {
  throw new DebuggerError('invalid_argument', `env.${name}: ${why}`, { fields: [`env.${name}`] });
}

/**
 * Throws `invalid_argument`, naming the variable and the path, unless every path that a governed
 * variable of `env` names lies under the roots once symlinks are resolved.
 */
export async function checkProgramEnvironment(
  env: Readonly<Record<string, string>>,
  ctx: EnvPolicyContext,
): Promise<void> {
  const roots = await Promise.all(ctx.roots.map((r) => realpath(r).catch(() => resolve(r))));
  if (env['LD_PROFILE'] !== undefined && env['LD_PROFILE'] !== '' && env['LD_PROFILE_OUTPUT'] === undefined) {
    refuse(
      'LD_PROFILE',
      'the loader would write the profile into /var/tmp, outside the workspace roots: set LD_PROFILE_OUTPUT to a directory under them',
    );
  }
  for (const [name, value] of Object.entries(env)) {
    const kind = GOVERNED[name];
    if (kind === undefined) continue;
    const entries = kind.of === 'output' ? [value] : value.split(kind.separators);
    for (const entry of entries) {
      if (entry === '') {
        if (kind.of === 'directories' && kind.emptyIsCwd)
          await mustLieUnder(name, ctx.cwd, '(empty entry: the working directory)', roots);
        else if (kind.of === 'output') refuse(name, 'is empty: give a path under the workspace roots');
        continue;
      }
      // A bare name is looked up by the loader, as the program's own libraries are: in the
      // program's RUNPATH, LD_LIBRARY_PATH (checked here too) and the system's library directories.
      if (kind.of === 'objects' && !entry.includes('/')) continue;
      const expanded = entry.replace(TOKEN, (token, braced?: string, bare?: string) => {
        const which = braced ?? bare;
        if (which === 'ORIGIN') return dirname(ctx.program);
        refuse(
          name,
          `${JSON.stringify(entry)} uses ${token}, which the loader expands to a directory of its own choosing: write the directory out`,
        );
      });
      await mustLieUnder(name, resolve(ctx.cwd, expanded), entry, roots);
    }
  }
}

async function mustLieUnder(name: string, path: string, asWritten: string, roots: readonly string[]): Promise<void> {
  const real = await realOrParent(path);
  if (roots.some((r) => isUnder(r, real))) return;
  const shown = asWritten === real ? real : `${JSON.stringify(asWritten)} (${real})`;
  refuse(
    name,
    `${shown} is outside the workspace roots (${roots.join(', ')}): the program would load or write it from there; ` +
      'copy it under a root, or start the server with --root to allow its directory',
  );
}

/**
 * The real path of `path`; for one that does not exist yet (an output file), the real path of
 * its nearest existing ancestor with the missing names after it (a `..` among them is applied to
 * the real ancestor, so it cannot climb out of a root unseen).
 */
async function realOrParent(path: string): Promise<string> {
  const missing: string[] = [];
  let at = isAbsolute(path) ? path : resolve(path);
  for (;;) {
    try {
      const real = await realpath(at);
      return missing.length === 0 ? real : resolve(join(real, ...missing.reverse()));
    } catch {
      const up = dirname(at);
      if (up === at) return path;
      missing.push(basename(at));
      at = up;
    }
  }
}
