import type { McpServer } from '@modelcontextprotocol/server';

export function registerPrompts(_server: McpServer): void {}
