// Stop-bound evidence: the views an agent asks for (stop, crash, stack, threads, …), gathered
// through any backend's interface. Each view is bounded (limits.ts). A part that cannot be
// gathered is reported in `failures` and the rest is still returned: an inspection failure never
// hides the run-control outcome. The views themselves live in evidence/.

import type { DebuggerBackend } from '../backends/debuggerBackend.js';
import type { StopEvent } from '../model/model.js';
import {
  frameView,
  librariesView,
  registersView,
  sourceView,
  stackView,
  stopView,
  variablesView,
} from './evidence/basicViews.js';
import { crashView } from './evidence/crashView.js';
import { isCrash } from './evidence/stopSummary.js';
import { threadsView } from './evidence/threadsView.js';
import type { ViewContext } from './evidence/viewContext.js';
import type { ViewData, ViewOutcome, ViewRequest } from './evidence/viewTypes.js';
import type { SessionSnapshot } from './sessionState.js';

export { describeFrame, isCrash, summarizeStop } from './evidence/stopSummary.js';
export * from './evidence/viewTypes.js';

/** Gathers one view. Must run inside the session's mailbox, bound to one stop. */
export async function gatherView(
  backend: DebuggerBackend,
  snapshot: SessionSnapshot,
  req: ViewRequest,
  signal?: AbortSignal,
): Promise<ViewOutcome> {
  const ctx: ViewContext = { backend, snapshot, signal, failures: [] };
  let data: ViewData | undefined;
  switch (req.view) {
    case 'stop':
      data = await stopView(ctx);
      break;
    case 'crash':
      data = await crashView(ctx);
      break;
    case 'stack':
      data = await stackView(ctx, req);
      break;
    case 'threads':
      data = await threadsView(ctx, req);
      break;
    case 'frame':
      data = await frameView(ctx, req);
      break;
    case 'locals':
      data = await variablesView(ctx, req, 'locals');
      break;
    case 'args':
      data = await variablesView(ctx, req, 'args');
      break;
    case 'registers':
      data = await registersView(ctx, req);
      break;
    case 'source':
      data = await sourceView(ctx, req);
      break;
    case 'libraries':
      data = await librariesView(ctx);
      break;
  }
  return data ? { data, failures: ctx.failures } : { failures: ctx.failures };
}

/**
 * The views answering "what happened?" at a stop when the caller named none: a crash gets the
 * crash view, an interrupt (a hang) the threads view, anything else the stop view.
 */
export function automaticViews(stop: StopEvent | undefined, interrupted: boolean): ViewRequest[] {
  if (isCrash(stop)) return [{ view: 'crash' }];
  if (interrupted) return [{ view: 'stop' }, { view: 'threads' }];
  return [{ view: 'stop' }];
}
