// Frames as the answers show them: runs of runtime frames folded so the user's code stands out,
// values cut to their bounds, and the source around a frame's line.

import type { Frame, Variable } from '../../model/model.js';
import { cut, LIMITS } from '../limits.js';
import { attempt, type ViewContext } from './viewContext.js';
import type { FoldedFrames, RepeatedFrames, SourceWindow, StackEntry } from './viewTypes.js';

function libraryName(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/** Runs this long of one function at one line fold into one line with a count (recursion). */
export const RECURSION_RUN = 3;

function sameCall(a: Frame, b: Frame): boolean {
  return (
    a.function !== undefined &&
    a.function === b.function &&
    a.line === b.line &&
    (a.fullname ?? a.file) === (b.fullname ?? b.file) &&
    a.library === b.library
  );
}

/** Folds runs of RECURSION_RUN or more frames of one function at one line into one entry each. */
export function foldRecursion(frames: readonly Frame[]): (Frame | RepeatedFrames)[] {
  const out: (Frame | RepeatedFrames)[] = [];
  for (let i = 0; i < frames.length; ) {
    const first = frames[i] as Frame;
    let j = i + 1;
    while (j < frames.length && sameCall(first, frames[j] as Frame)) j++;
    if (j - i >= RECURSION_RUN) {
      const last = frames[j - 1] as Frame;
      out.push({ repeated: j - i, fromLevel: first.level, toLevel: last.level, frame: last });
    } else {
      out.push(...frames.slice(i, j));
    }
    i = j;
  }
  return out;
}

/**
 * Folds runs of two or more frames that are not the user's into one entry, and runs of the same
 * user call (recursion) into one entry with a count.
 */
export function foldFrames(frames: readonly Frame[], isUserFrame: (f: Frame) => boolean): StackEntry[] {
  const out: StackEntry[] = [];
  let run: Frame[] = [];
  const flush = (): void => {
    if (run.length >= 2) {
      const first = run[0] as Frame;
      const last = run[run.length - 1] as Frame;
      const libs = new Set(run.map((f) => libraryName(f.library) ?? '?'));
      const folded: FoldedFrames = {
        folded: run.length,
        fromLevel: first.level,
        toLevel: last.level,
        functions: run.map((f) => f.function ?? '??'),
      };
      if (libs.size === 1) {
        const lib = [...libs][0];
        if (lib !== undefined && lib !== '?') folded.library = lib;
      }
      out.push(folded);
    } else {
      out.push(...run);
    }
    run = [];
  };
  let user: Frame[] = [];
  for (const f of frames) {
    if (isUserFrame(f)) {
      flush();
      user.push(f);
    } else {
      out.push(...foldRecursion(user));
      user = [];
      run.push(f);
    }
  }
  flush();
  out.push(...foldRecursion(user));
  return out;
}

/** The levels `foldFrames` leaves in view: the only frames whose arguments an answer shows. */
export function shownLevels(frames: readonly Frame[], isUserFrame: (f: Frame) => boolean): number[] {
  return foldFrames(frames, isUserFrame).flatMap((e) =>
    'folded' in e ? [] : 'repeated' in e ? [e.frame.level] : [e.level],
  );
}

/** A frame of the user's own code, as the target's runtime tells it from its own. */
export function userFrameTest(ctx: ViewContext): (f: Frame) => boolean {
  return (f) => !ctx.backend.runtime.isSystemFrame(f);
}

export function boundVariables(vars: Variable[]): { variables: Variable[]; omitted?: number } {
  const kept = vars.slice(0, LIMITS.variablesMax).map((v) => {
    if (v.value === undefined) return v;
    const c = cut(v.value, LIMITS.valueChars);
    return c.truncated ? { ...v, value: c.text, truncated: true } : v;
  });
  return vars.length > kept.length ? { variables: kept, omitted: vars.length - kept.length } : { variables: kept };
}

export function boundFrameArgs(frames: Frame[]): Frame[] {
  return frames.map((f) => (f.args ? { ...f, args: boundVariables(f.args).variables } : f));
}

export async function sourceAround(
  ctx: ViewContext,
  frame: Frame | undefined,
  context: number,
): Promise<SourceWindow | undefined> {
  const line = frame?.line;
  if (!frame || line === undefined) return undefined;
  const file = frame.fullname ?? frame.file;
  if (!file) return undefined;
  const from = Math.max(1, line - context);
  const lines = await attempt(ctx, 'source lines', () =>
    ctx.backend.sourceLines(file, from, line + context, ctx.signal),
  );
  if (!lines || lines.length === 0) return undefined;
  return {
    file: frame.file ?? file,
    line,
    lines: lines.map((l) => ({ line: l.line, text: cut(l.text, 200).text })),
  };
}
