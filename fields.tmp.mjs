import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const t = new StdioClientTransport({ command: process.execPath, args: ['/work/main/dist/main.js'], stderr: 'ignore' });
const c = new Client({ name: 'x', version: '1' });
await c.connect(t);
const { tools } = await c.listTools();
for (const tool of tools)
  for (const [k, v] of Object.entries(tool.inputSchema.properties ?? {}))
    console.log(tool.name, k, JSON.stringify(v).length, JSON.stringify(v.description));
await c.close();
