// Source lines for the answers: from the file on disk when GDB resolved it for a frame (and the
// file lies under the workspace roots, when roots are set), else through GDB's `list`.

import { realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Frame, SourceLine } from '../../model/model.js';
import { assertSingleLine } from '../../protocols/mi/miCommand.js';
import { DebuggerError } from '../../util/errors.js';
import { readFileLines } from '../../util/fileLines.js';
import { isUnder } from '../../util/pathUnder.js';
import type { GdbContext, GdbState } from './gdbContext.js';

/** Remembers the files GDB resolved for frames: the only ones sourceLines reads from disk. */
export function noteSources(state: GdbState, frames: readonly Frame[]): void {
  for (const f of frames) {
    if (f.fullname === undefined || state.sourceFiles.has(f.fullname)) continue;
    if (state.sourceFiles.size >= 4096) state.sourceFiles.clear();
    state.sourceFiles.add(f.fullname);
  }
}

/**
 * The real path of `file` when it lies under one of `roots`. A relative name ("loop.c", as a
 * person writes it, or as the debug info has it) is looked for where it can mean something: the
 * files GDB resolved for frames that end with it, then each root joined with it. It is never
 * resolved against the server's own working directory, which is no root of anyone's.
 */
async function confinedPath(state: GdbState, roots: readonly string[], file: string): Promise<string | undefined> {
  const under = async (path: string): Promise<string | undefined> => {
    const real = await realpath(path).catch(() => undefined);
    return real !== undefined && roots.some((r) => isUnder(r, real)) ? real : undefined;
  };
  if (isAbsolute(file)) return under(file);
  const suffix = `/${file.replace(/^\.\//, '')}`;
  const named = [...state.sourceFiles].filter((f) => f.endsWith(suffix));
  for (const candidate of [...named, ...roots.map((r) => join(r, file))]) {
    const real = await under(candidate);
    if (real !== undefined) return real;
  }
  return undefined;
}

export async function sourceLines(
  g: GdbContext,
  file: string,
  from: number,
  to: number,
  signal?: AbortSignal,
): Promise<SourceLine[]> {
  assertSingleLine(file, 'file');
  // A file GDB resolved for a frame is read from disk: `list FILE:LINE` is a linespec, which
  // searches the line tables of every library with debug info (measured at a first stop with
  // libc's debug info installed: 40-50 ms, 7 ms after; the file itself takes well under 1 ms).
  // Only files GDB named: anything else would let view=source read any file on the machine.
  // Past the end, GDB's own answer says how long the file is.
  const roots = g.options.sourceRoots;
  if (roots !== undefined) {
    // Confined: only files that really lie under the workspace roots are quoted. A crafted
    // program's debug info may name any file on the machine (a key, a token file).
    const real = await confinedPath(g.state, roots, file);
    if (real === undefined) {
      throw new DebuggerError(
        'invalid_argument',
        `source of ${file} is not shown: it is not a file under the workspace roots (${roots.join(', ')}); start the server with --root to include it`,
      );
    }
    return (await readFileLines(real, from, to)) ?? [];
  }
  if (g.state.sourceFiles.has(file)) {
    const lines = await readFileLines(file, from, to);
    if (lines !== undefined && lines.length > 0) return lines;
  }
  if (/[\s,']/.test(file)) {
    throw new DebuggerError('invalid_argument', `source file name ${JSON.stringify(file)} cannot be listed by GDB`);
  }
  // Both ends name the file: a bare end line is resolved against every file of that name
  // (glibc has a loop.c too) and GDB then lists nothing.
  const r = await g.cli(`list ${file}:${from},${file}:${to}`, {
    signal,
    captureConsole: true,
    captureLimit: 256 * 1024,
  });
  const lines: SourceLine[] = [];
  for (const text of r.console.split('\n')) {
    const m = /^(\d+)\t(.*)$/.exec(text);
    if (m?.[1] !== undefined && m[2] !== undefined) lines.push({ line: Number(m[1]), text: m[2] });
  }
  // Without the file GDB prints one line, "57\tin ./nptl/futex-internal.c": a place, not source.
  const only = lines.length === 1 ? lines[0]?.text : undefined;
  if (only !== undefined && /^in \S+$/.test(only) && only.endsWith(file.slice(file.lastIndexOf('/') + 1))) return [];
  if (lines.length === 0) {
    const said = `${r.console}${r.log}`.trim().split('\n')[0];
    if (said) throw new DebuggerError('debugger_error', said);
  }
  return lines;
}
