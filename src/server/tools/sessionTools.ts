import type { ToolDefinition } from '../defineTool.js';

/** dbg_io, dbg_command, dbg_sessions, dbg_close, dbg_doctor. */
// biome-ignore lint/suspicious/noExplicitAny: each tool validates its own input type.
export const sessionTools: ToolDefinition<any>[] = [];
