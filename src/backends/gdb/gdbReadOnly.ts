// The read-only rule on every expression field GDB evaluates for a tool that does not change the
// program: dbg_memory and dbg_batch addresses, dbg_disassemble ranges, breakpoint conditions,
// watch expressions, dprintf arguments and the locations of until, advance and jump. GDB
// evaluates each of them as an expression (`dbg_disassemble {start: "$pc + (counter = 99)*0"}`
// wrote `counter`), so each passes the one analysis (shares/expressionEffects.ts) first. Calls of
// the program's functions are left to may-call-functions (the operator's --inferior-calls).

import { DebuggerError } from '../../util/errors.js';
import type { Location } from '../debuggerBackend.js';
import { readOnlyRefusal } from '../shares/expressionEffects.js';

/** Refuses `text` in `field` when evaluating it would write or reach past the program. */
export function requireReadOnly(text: string | undefined, field: string): void {
  if (text === undefined) return;
  const why = readOnlyRefusal(text, 'gdb', { programCalls: true });
  if (why === undefined) return;
  throw new DebuggerError(
    'invalid_argument',
    `${field}: ${why}: this field is evaluated as an expression and may only read; to change a value use dbg_evaluate with assign`,
    { fields: [field] },
    { reason: 'side-effect' },
  );
}

/**
 * The parts of a location GDB evaluates: an address (`*EXPR`) and a linespec's `if` condition.
 * A file name or a function name is no expression (`/usr/include/c++/12/x.h:3` holds `++`).
 */
export function requireReadOnlyLocation(location: Location | undefined, field = 'location'): void {
  if (location === undefined) return;
  if ('address' in location) requireReadOnly(location.address, field);
  if (!('spec' in location)) return;
  const spec = location.spec.trim();
  if (spec.startsWith('*')) requireReadOnly(spec.slice(1), field);
  const condition = /\sif\s(.*)$/.exec(spec)?.[1];
  if (condition !== undefined) requireReadOnly(condition, field);
}
