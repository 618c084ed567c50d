// Source lines for the answers, under the same rules as the GDB backend's: when workspace roots
// are set, only files that really lie under them (a crafted program's debug info may name any
// file on the machine); otherwise a file LLDB named in a frame is read from disk, and anything
// else goes through LLDB's `source list`, which finds files through the debug info.

import { realpath } from 'node:fs/promises';
import type { Frame, SourceLine } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import { readFileLines } from '../../util/fileLines.js';
import { isUnder } from '../../util/pathUnder.js';
import type { LldbContext, LldbState } from './lldbContext.js';
import { assertOneLine } from './lldbValues.js';

/** Remembers the files LLDB resolved for frames: the only ones sourceLines reads from disk unconfined. */
export function noteSources(state: LldbState, frames: readonly Frame[]): void {
  for (const f of frames) {
    if (f.fullname === undefined || state.sourceFiles.has(f.fullname)) continue;
    if (state.sourceFiles.size >= 4096) state.sourceFiles.clear();
    state.sourceFiles.add(f.fullname);
  }
}

export async function sourceLines(
  g: LldbContext,
  file: string,
  from: number,
  to: number,
  signal?: AbortSignal,
): Promise<SourceLine[]> {
  assertOneLine(file, 'file');
  const roots = g.options.sourceRoots;
  if (roots !== undefined) {
    const real = await realpath(file).catch(() => undefined);
    if (real === undefined || !roots.some((r) => isUnder(r, real))) {
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
  if (/["\\`]/.test(file)) {
    throw new DebuggerError('invalid_argument', `source file name ${JSON.stringify(file)} cannot be listed by LLDB`);
  }
  // `   16  \tstatic void update(…`, the current line marked `->`.
  const text = await g.repl(`source list -f "${file}" -l ${from} -c ${to - from + 1}`, undefined, { signal });
  const lines: SourceLine[] = [];
  for (const row of text.split('\n')) {
    const m = /^(?:->)?\s*(\d+)\s{2}\t?(.*)$/.exec(row);
    if (m?.[1] !== undefined && m[2] !== undefined) {
      const line = Number(m[1]);
      if (line >= from && line <= to) lines.push({ line, text: m[2] });
    }
  }
  if (lines.length === 0 && /^error: /m.test(text)) {
    throw new DebuggerError(
      'debugger_error',
      text
        .trim()
        .split('\n')[0]
        ?.replace(/^error: /, '') ?? 'no source',
    );
  }
  return lines;
}
