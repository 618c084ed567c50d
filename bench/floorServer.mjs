#!/usr/bin/env node
// The floor of the per-call benchmark: the least an MCP server over stdio can do for a stack view.
// No SDK, no schemas, no session, no checks: JSON lines in, one tool that sends the very two MI
// commands the server's stack view sends to its own bare gdb (stopped where the server's is), picks
// the frames and arguments out with regular expressions and answers text and structured content of
// the same size as the server's answer. What this process costs beyond a ping, any server pays.
//
// Run by overheadBench.mjs as `node bench/floorServer.mjs PROGRAM DEPTH`; it is not a product.

import { RawGdb } from './benchSupport.mjs';

const [program, depth] = process.argv.slice(2);
if (program === undefined || depth === undefined) {
  process.stderr.write('usage: floorServer.mjs PROGRAM DEPTH\n');
  process.exit(2);
}

const gdb = await RawGdb.start(program, [depth]);
await gdb.runTo('bottom');

const FRAME = /frame=\{level="(\d+)",addr="([^"]*)",func="([^"]*)",file="([^"]*)",fullname="[^"]*",line="(\d+)"/g;
const ARGS = /frame=\{level="\d+",args=\[(.*?)\]\}/g;
const ARG = /name="([^"]*)",(?:type="[^"]*",)?value="([^"]*)"/g;

async function stackView() {
  const frames = await gdb.send('-stack-list-frames 0 16');
  const args = await gdb.send('-stack-list-arguments --simple-values 0 16');
  const argLists = [...args.matchAll(ARGS)].map((m) =>
    [...m[1].matchAll(ARG)].map((a) => ({ name: a[1], value: a[2] })),
  );
  const list = [...frames.matchAll(FRAME)].slice(0, 16).map((m, i) => ({
    level: Number(m[1]),
    function: m[3],
    file: m[4],
    line: Number(m[5]),
    address: m[2],
    args: argLists[i] ?? [],
  }));
  const lines = list.map(
    (f) => `#${f.level} ${f.function} (${f.args.map((a) => `${a.name}=${a.value}`).join(', ')}) at ${f.file}:${f.line}`,
  );
  return {
    content: [{ type: 'text', text: ['[session floor · stopped · stop 1]', ...lines, '… more frames'].join('\n') }],
    structuredContent: {
      view: 'stack',
      data: { from: 0, frames: list, more: true },
      session: { id: 'floor', state: 'stopped', stop_id: 1 },
      evidence_version: 1,
    },
  };
}

function answer(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

async function handle(message) {
  if (message.id === undefined) return; // notifications
  switch (message.method) {
    case 'initialize':
      return answer(message.id, {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'floor', version: '1' },
      });
    case 'ping':
      return answer(message.id, {});
    case 'tools/call':
      return answer(message.id, await stackView());
    default:
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'unknown method' } })}\n`,
      );
  }
}

let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk.toString('utf8');
  for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim() !== '') void handle(JSON.parse(line));
  }
});
process.stdin.on('end', async () => {
  await gdb.close();
  process.exit(0);
});
