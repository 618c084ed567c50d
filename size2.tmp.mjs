import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const t = new StdioClientTransport({ command: process.execPath, args: ['/work/main/dist/main.js'], stderr: 'ignore' });
const c = new Client({ name: 'x', version: '1' });
await c.connect(t);
const { tools } = await c.listTools();
for (const i of process.argv.slice(2)) console.log(JSON.stringify(tools[Number(i)]), '\n');
await c.close();
