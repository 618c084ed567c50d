// What a sanitizer said before the program exited: a report that ended the program with exit(1)
// (abort_on_error=0), or LeakSanitizer's refusal to run under the debugger. The exit alone says
// only a code; the report says what happened, or what to do instead.

import type { DebuggerBackend, RuntimeReport } from '../../backends/debuggerBackend.js';
import { REPORT_SCAN_BYTES } from './crashView.js';

/** The last runtime report in the program's output since `cursor` (its last REPORT_SCAN_BYTES). */
export function exitReport(backend: DebuggerBackend, cursor: number): RuntimeReport | undefined {
  const ring = backend.output;
  if (!ring || !backend.runtime.runtimeReport || ring.end <= cursor) return undefined;
  const from = Math.max(cursor, ring.end - REPORT_SCAN_BYTES);
  const text = ring.read(from, ring.end - from).data.toString('utf8');
  return backend.runtime.runtimeReport(text);
}
