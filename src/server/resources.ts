import type { McpServer } from '@modelcontextprotocol/server';
import type { SessionManager } from '../session/sessionManager.js';
import type { ServerConfig } from './config.js';

export function registerResources(_server: McpServer, _sessions: SessionManager, _config: ServerConfig): void {}
