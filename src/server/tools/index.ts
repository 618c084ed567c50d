import type { ServerConfig } from '../config.js';
import type { ToolDefinition } from '../defineTool.js';
import { commandTool, commandToolFor } from './command.js';
import { dataTools } from './dataTools.js';
import { inspectTool } from './inspect.js';
import { recordTool } from './record.js';
import { runTool } from './run.js';
import { sessionTools } from './sessionTools.js';
import { startTool } from './start.js';

/** Every tool, in the order tools/list shows them. dbg_command only when raw commands are on, described by its policy. */
// biome-ignore lint/suspicious/noExplicitAny: each tool validates its own input type.
export function allTools(config: ServerConfig): ToolDefinition<any>[] {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const tools: ToolDefinition<any>[] = [startTool, runTool, inspectTool, ...dataTools, ...sessionTools, recordTool];
  if (config.raw === 'off') return tools.filter((t) => t.name !== 'dbg_command');
  const raw = config.raw;
  return tools.map((t) => (t === commandTool ? commandToolFor(raw) : t));
}
