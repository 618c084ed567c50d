import type { ToolDefinition } from '../defineTool.js';
import { closeTool } from './close.js';
import { commandTool } from './command.js';
import { doctorTool } from './doctor.js';
import { ioTool } from './io.js';
import { sessionsTool } from './sessions.js';

/** dbg_io, dbg_command, dbg_sessions, dbg_close, dbg_doctor. */
// biome-ignore lint/suspicious/noExplicitAny: each tool validates its own input type.
export const sessionTools: ToolDefinition<any>[] = [ioTool, commandTool, sessionsTool, closeTool, doctorTool];
