// A watchpoint as an lldb-dap data breakpoint. LLDB watches memory, in the CPU's debug registers
// only: the place the expression names now and its size, whatever the expression later names
// (GDB's `watch -location`). lldb-dap's `dataBreakpointInfo` takes a `name` and, with a frame,
// watches the address its *value* names (measured: `rec.id` watched address 7), so the address is
// computed here and handed over as one (`asAddress`).

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Breakpoint } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import type { BreakpointSpec, WatchAccess } from '../debuggerBackend.js';
import type { LldbContext } from './lldbContext.js';
import { evaluateCommand } from './lldbInspection.js';
import { addressOf } from './lldbMemory.js';
import { assertOneLine, checkReadOnly, formattedResult } from './lldbValues.js';

const ACCESS: Record<WatchAccess, DebugProtocol.DataBreakpointAccessType> = {
  write: 'write',
  read: 'read',
  access: 'readWrite',
};

/** The data breakpoint to send for a watchpoint, and the breakpoint the session shows. */
export async function dataBreakpoint(
  g: LldbContext,
  spec: Extract<BreakpointSpec, { kind: 'watchpoint' }>,
  signal?: AbortSignal,
): Promise<{ request: DebugProtocol.DataBreakpoint; breakpoint: Breakpoint }> {
  assertOneLine(spec.expression, 'expression');
  checkReadOnly(spec.expression, 'expression', false);
  if (spec.condition) {
    assertOneLine(spec.condition, 'condition');
    checkReadOnly(spec.condition, 'condition', g.options.allowInferiorCalls ?? false);
  }
  const at = spec.frame !== undefined ? { frame: spec.frame } : {};
  const address = await addressOf(g, `&(${spec.expression})`, at, signal);
  const sizeText = await evaluateCommand(g, `sizeof(${spec.expression})`, at, ' --format d', signal);
  const bytes = Number(formattedResult(sizeText));
  if (!Number.isInteger(bytes) || bytes <= 0) {
    throw new DebuggerError('debugger_error', `cannot tell the size of ${spec.expression}`);
  }
  const info = await g.request(
    'dataBreakpointInfo',
    { name: `0x${address.toString(16)}`, asAddress: true, bytes },
    { signal },
  );
  if (!info.dataId) throw new DebuggerError('debugger_error', `cannot watch ${spec.expression}: ${info.description}`);
  const access = spec.access ?? 'write';
  return {
    request: {
      dataId: info.dataId,
      accessType: ACCESS[access],
      ...(spec.condition ? { condition: spec.condition } : {}),
    },
    breakpoint: {
      number: '?',
      type: access === 'write' ? 'hw watchpoint' : access === 'read' ? 'read watchpoint' : 'acc watchpoint',
      enabled: true,
      temporary: false,
      pending: false,
      hits: 0,
      what: spec.expression,
      locations: [],
      ...(spec.condition ? { condition: spec.condition } : {}),
    },
  };
}
