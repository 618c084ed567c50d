import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const t = new StdioClientTransport({ command: process.execPath, args: ['/work/main/dist/main.js'], stderr: 'ignore' });
const c = new Client({ name: 'x', version: '1' });
await c.connect(t);
const { tools } = await c.listTools();
const total = JSON.stringify({ tools }).length;
for (const tool of tools)
  console.log(
    tool.name,
    JSON.stringify(tool).length,
    'desc',
    tool.description.length,
    'in',
    JSON.stringify(tool.inputSchema).length,
    'out',
    JSON.stringify(tool.outputSchema).length,
  );
console.log('total', total);
await c.close();
