import type { ServerConfig } from '../config.js';
import type { ToolDefinition } from '../defineTool.js';
import { inspectTool } from './inspect.js';
import { runTool } from './run.js';
import { startTool } from './start.js';

/** Every tool, in the order tools/list shows them. */
// biome-ignore lint/suspicious/noExplicitAny: each tool validates its own input type.
export function allTools(config: ServerConfig): ToolDefinition<any>[] {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const tools: ToolDefinition<any>[] = [startTool, runTool, inspectTool];
  return config.raw ? tools : tools.filter((t) => t.name !== 'dbg_command');
}
