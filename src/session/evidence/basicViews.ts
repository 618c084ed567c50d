// The simple stop-bound views: stop, stack, frame, locals and args, registers, source, libraries.

import type { Frame } from '../../model/model.js';
import { LIMITS } from '../limits.js';
import { boundFrameArgs, boundVariables, sourceAround, userFrameTest } from './stackEntries.js';
import { summarizeStop } from './stopSummary.js';
import { attempt, type ViewContext } from './viewContext.js';
import type {
  CrashViewData,
  FrameViewData,
  LibrariesViewData,
  RegistersViewData,
  SourceViewData,
  StackViewData,
  StopViewData,
  VariablesViewData,
  ViewRequest,
} from './viewTypes.js';

export async function stopView(ctx: ViewContext): Promise<StopViewData | undefined> {
  const stop = ctx.snapshot.state.phase === 'stopped' ? ctx.snapshot.state.stop : undefined;
  if (!stop) {
    ctx.failures.push('stop: the program is not stopped');
    return undefined;
  }
  // Source only for the user's own code: a stop inside libc (an interrupt) has nothing to quote.
  const own = userFrameTest(ctx);
  if (!stop.frame || own(stop.frame)) {
    const source = stop.frame ? await sourceAround(ctx, stop.frame, 2) : undefined;
    return { view: 'stop', stop, summary: summarizeStop(stop), ...(source ? { source } : {}) };
  }
  // Inside a library: the frames down to the program's own first one, as the crash view shows
  // them, and that frame's source. A stack with none of the program's frames near shows none.
  const frames = await attempt(ctx, 'stop', () =>
    ctx.backend.stack({ threadId: stop.threadId, from: 1, to: CALLER_SEARCH, withArgs: true }, ctx.signal),
  );
  const firstOwn = frames?.findIndex(own) ?? -1;
  if (frames === undefined || firstOwn < 0) return { view: 'stop', stop, summary: summarizeStop(stop) };
  const callers = boundFrameArgs(frames.slice(0, firstOwn + 1));
  const source = await sourceAround(ctx, callers[callers.length - 1] as Frame, 2);
  return { view: 'stop', stop, summary: summarizeStop(stop), callers, ...(source ? { source } : {}) };
}

/** How deep a stop view looks for the program's own first frame below a library stop. */
const CALLER_SEARCH = 24;

export async function stackView(ctx: ViewContext, req: ViewRequest): Promise<StackViewData | undefined> {
  const from = req.from ?? 0;
  const count = Math.min(req.stackDepth ?? LIMITS.stackDepthDefault, LIMITS.stackDepthMax);
  const threadId = req.threadId;
  // One frame more than asked says whether there is a next page.
  const frames = await attempt(ctx, 'stack', () =>
    ctx.backend.stack({ threadId, from, to: from + count, withArgs: true }, ctx.signal),
  );
  if (!frames) return undefined;
  const more = frames.length > count;
  return {
    view: 'stack',
    ...(threadId !== undefined ? { threadId } : {}),
    from,
    frames: boundFrameArgs(frames.slice(0, count)),
    more,
  };
}

export async function frameView(ctx: ViewContext, req: ViewRequest): Promise<FrameViewData | undefined> {
  const level = req.frame ?? 0;
  const frames = await attempt(ctx, 'frame', () =>
    ctx.backend.stack({ threadId: req.threadId, from: level, to: level, withArgs: true }, ctx.signal),
  );
  const frame = frames?.[0];
  if (!frame) {
    ctx.failures.push(`frame ${level} does not exist`);
    return undefined;
  }
  const locals =
    (await attempt(ctx, 'locals', () =>
      ctx.backend.variables('locals', { threadId: req.threadId, frame: level }, { types: true }, ctx.signal),
    )) ?? [];
  const source = await sourceAround(ctx, frame, LIMITS.sourceContext);
  return {
    view: 'frame',
    ...(req.threadId !== undefined ? { threadId: req.threadId } : {}),
    frame: boundFrameArgs([frame])[0] as Frame,
    locals: boundVariables(locals).variables,
    ...(source ? { source } : {}),
  };
}

export async function variablesView(
  ctx: ViewContext,
  req: ViewRequest,
  which: 'locals' | 'args',
): Promise<VariablesViewData | undefined> {
  const frame = req.frame ?? 0;
  const vars = await attempt(ctx, which, () =>
    ctx.backend.variables(which, { threadId: req.threadId, frame }, { types: true }, ctx.signal),
  );
  if (!vars) return undefined;
  return {
    view: which,
    ...(req.threadId !== undefined ? { threadId: req.threadId } : {}),
    frame,
    ...boundVariables(vars),
  };
}

export async function registersView(ctx: ViewContext, req: ViewRequest): Promise<RegistersViewData | undefined> {
  const frame = req.frame ?? 0;
  const regs = await attempt(ctx, 'registers', () =>
    ctx.backend.registers(
      { threadId: req.threadId, frame, ...(req.registers ? { names: req.registers } : {}), format: 'hex' },
      ctx.signal,
    ),
  );
  if (!regs) return undefined;
  return {
    view: 'registers',
    ...(req.threadId !== undefined ? { threadId: req.threadId } : {}),
    frame,
    registers: regs,
  };
}

export async function sourceView(ctx: ViewContext, req: ViewRequest): Promise<SourceViewData | undefined> {
  let file = req.file;
  let line = req.line;
  if (file === undefined || line === undefined) {
    const frames = await attempt(ctx, 'frame', () =>
      ctx.backend.stack({ threadId: req.threadId, from: req.frame ?? 0, to: req.frame ?? 0 }, ctx.signal),
    );
    const f = frames?.[0];
    file ??= f?.fullname ?? f?.file;
    line ??= f?.line;
  }
  if (file === undefined || line === undefined) {
    ctx.failures.push('source: no file and line here (no debug info?); give file and line');
    return undefined;
  }
  const context = Math.min(req.stackDepth ?? 5, LIMITS.sourceLinesMax / 2);
  const window = await sourceAround(ctx, { level: 0, file, line }, context);
  if (!window) {
    if (ctx.failures.length === 0) ctx.failures.push(`source: no lines of ${file} around ${line}`);
    return undefined;
  }
  return { view: 'source', source: window };
}

export async function librariesView(ctx: ViewContext): Promise<LibrariesViewData | undefined> {
  const libs = await attempt(ctx, 'libraries', () => ctx.backend.libraries(ctx.signal));
  if (!libs) return undefined;
  return { view: 'libraries', libraries: libs.slice(0, LIMITS.librariesMax), total: libs.length };
}

/**
 * The stack view from a crash view of the same stop, when that one read the whole stack with
 * every frame's arguments (nothing folded, no deeper frames): the frames are the ones a stack
 * read would give. Undefined when it cannot tell.
 */
export function stackFromCrash(crash: CrashViewData, req: ViewRequest): StackViewData | undefined {
  if (crash.depth !== undefined || crash.depthAtLeast) return undefined;
  if (req.threadId !== undefined && req.threadId !== crash.threadId) return undefined;
  const frames: Frame[] = [];
  for (const e of crash.stack) {
    if ('folded' in e || 'repeated' in e || e.args === undefined) return undefined;
    frames.push(e);
  }
  // The crash view reads LIMITS.crashStackDepth frames: fewer means it had them all.
  if (frames.length >= LIMITS.crashStackDepth) return undefined;
  const from = req.from ?? 0;
  const count = Math.min(req.stackDepth ?? LIMITS.stackDepthDefault, LIMITS.stackDepthMax);
  return {
    view: 'stack',
    ...(req.threadId !== undefined ? { threadId: req.threadId } : {}),
    from,
    frames: boundFrameArgs(frames.slice(from, from + count)),
    more: frames.length > from + count,
  };
}
