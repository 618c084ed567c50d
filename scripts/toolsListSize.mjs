// Prints what tools/list costs an agent on every turn, per tool and in all (bytes of JSON).
// The budget is 18 KB with every backend (test/e2e/toolsList.test.ts holds it).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(root, 'dist', 'dbg-mcp.js')],
  stderr: 'ignore',
});
const client = new Client({ name: 'tools-list-size', version: '1' });
await client.connect(transport);
const { tools } = await client.listTools();
for (const t of tools) {
  const size = (v) => JSON.stringify(v ?? '').length;
  console.log(
    `${t.name.padEnd(16)} ${String(size(t)).padStart(5)}  description ${size(t.description)}, input ${size(t.inputSchema)}, output ${size(t.outputSchema)}`,
  );
}
console.log(`${'total'.padEnd(16)} ${String(JSON.stringify({ tools }).length).padStart(5)} of 18432`);
await client.close();
