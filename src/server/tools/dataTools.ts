import type { ToolDefinition } from '../defineTool.js';
import { batchTool } from './batch.js';
import { breakpointsTool } from './breakpoints.js';
import { disassembleTool } from './disassemble.js';
import { evaluateTool } from './evaluate.js';
import { memoryTool } from './memory.js';

/** dbg_breakpoints, dbg_evaluate, dbg_memory, dbg_disassemble, dbg_batch. */
// biome-ignore lint/suspicious/noExplicitAny: each tool validates its own input type.
export const dataTools: ToolDefinition<any>[] = [breakpointsTool, evaluateTool, memoryTool, disassembleTool, batchTool];
