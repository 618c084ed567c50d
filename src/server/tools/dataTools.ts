import type { ToolDefinition } from '../defineTool.js';

/** dbg_breakpoints, dbg_evaluate, dbg_memory, dbg_disassemble, dbg_batch. */
// biome-ignore lint/suspicious/noExplicitAny: each tool validates its own input type.
export const dataTools: ToolDefinition<any>[] = [];
