#!/usr/bin/env node
// Per-call overhead: dbg_evaluate and dbg_inspect view=stack through the built server over stdio,
// against the very MI commands those calls send, written straight to a bare gdb through a pipe
// (the physical limit), and an MCP ping (the round trip with no work). Both gdbs stop at the same
// place of the same program; the sides take turns in blocks, so drift on this shared machine hits
// all of them. The target: the server's own work on a stack view (the call, less the same MI
// commands written straight to gdb, less a ping) is at most one ping. Beside them runs the floor
// (floorServer.mjs): a minimal server with no SDK and no checks, answering the same view at the
// same size from its own gdb, measured the same way, so the bench shows what any server pays here.
//
//   npm run build && node bench/overheadBench.mjs

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  buildFixtures,
  childEnv,
  fixture,
  interleave,
  median,
  ms,
  nowMs,
  ok,
  RawGdb,
  repoRoot,
  startServer,
} from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const DEPTH = '20'; // frames of recursion: a stack page (16 frames + 1 probe) is full
const EVALUATE = { calls: 1000, block: 50 };
const STACK = { calls: 400, block: 10 };

async function timed(times, fn) {
  const samples = [];
  for (let i = 0; i < times; i++) {
    const t0 = nowMs();
    await fn();
    samples.push(nowMs() - t0);
  }
  return samples;
}

/** Runs each function `times` times in turn, rotating which goes first; each returns samples, kept apart. */
async function rotate(times, fns) {
  const out = fns.map(() => []);
  for (let i = 0; i < times; i++) {
    for (let j = 0; j < fns.length; j++) {
      const k = (i + j) % fns.length;
      out[k].push(...(await fns[k]()));
    }
  }
  return out;
}

/** The floor server (floorServer.mjs) over stdio with the same SDK client, its gdb stopped where the server's is. */
async function startFloor(program) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(repoRoot, 'bench', 'floorServer.mjs'), program, DEPTH],
    env: childEnv,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'dbg-mcp-bench-floor', version: '1' });
  await client.connect(transport);
  return client;
}

/** The call's own time (the SDK's callTool, nothing the benchmark does with the answer after). */
async function calls(times, server, tool, args) {
  const samples = [];
  for (let i = 0; i < times; i++) samples.push(ok(await server.call(tool, args), tool).ms);
  return samples;
}

export async function runOverheadBench(serverArgs = []) {
  await buildFixtures();
  const program = fixture('recurse');
  const server = await startServer(serverArgs);
  const raw = await RawGdb.start(program, [DEPTH]);
  const floor = await startFloor(program);
  try {
    const started = ok(
      await server.call('dbg_start', {
        program,
        args: [DEPTH],
        breakpoints: [{ location: 'bottom' }],
        inspect: ['none'],
      }),
      'dbg_start',
    );
    const sessionId = started.data.session_id;
    await raw.runTo('bottom');

    // dbg_evaluate of one expression sends one -data-evaluate-expression.
    const evaluate = { session_id: sessionId, expressions: ['depth'] };
    const serverEval = () => calls(EVALUATE.block, server, 'dbg_evaluate', evaluate);
    const rawEval = () => timed(EVALUATE.block, () => raw.send('-data-evaluate-expression depth'));
    // view=stack sends a page of frames plus one (is there more?), then their arguments.
    const stack = { session_id: sessionId, view: 'stack' };
    const serverStack = () => calls(STACK.block, server, 'dbg_inspect', stack);
    const rawStack = () =>
      timed(STACK.block, async () => {
        await raw.send('-stack-list-frames 0 16');
        await raw.send('-stack-list-arguments --simple-values 0 16');
      });

    // Warm both sides (JIT, gdb's caches) before anything counts.
    await serverEval();
    await rawEval();
    await serverStack();
    await rawStack();

    // The floor: an MCP round trip through the same client and server with no debugger work.
    const ping = () =>
      timed(STACK.block, async () => {
        await server.client.ping();
      });
    await ping();
    // The floor's view and its ping, through the same kind of client.
    const floorStack = () =>
      timed(STACK.block, async () => {
        const answer = await floor.callTool({ name: 'stack', arguments: {} });
        if (answer.isError || answer.structuredContent?.data?.frames?.length !== 16)
          throw new Error(`the floor server's stack view: ${JSON.stringify(answer).slice(0, 300)}`);
      });
    const floorPing = () =>
      timed(STACK.block, async () => {
        await floor.ping();
      });
    await floorStack();
    await floorPing();
    // The same work to answer: the two answers are within a few percent of each other in size.
    const sizes = {
      ours: ok(await server.call('dbg_inspect', stack), 'dbg_inspect').size,
      floor: JSON.stringify(await floor.callTool({ name: 'stack', arguments: {} })).length,
    };

    const ev = await interleave(EVALUATE.calls / EVALUATE.block, serverEval, rawEval);
    const [stackCalls, direct, pings, floorCalls, floorPings] = await rotate(STACK.calls / STACK.block, [
      serverStack,
      rawStack,
      ping,
      floorStack,
      floorPing,
    ]);
    const evRatio = median(ev.a) / median(ev.b);
    const own = median(stackCalls) - median(direct) - median(pings);
    const floorOwn = median(floorCalls) - median(direct) - median(floorPings);
    return [
      {
        name: `dbg_evaluate ×${EVALUATE.calls} (median per call)`,
        measured: ms(median(ev.a)),
        target: 'reported',
        ratio: `${evRatio.toFixed(2)}× raw MI (${ms(median(ev.b))})`,
        pass: true,
      },
      {
        name: `dbg_inspect stack ×${STACK.calls}: the server's own work (median per call)`,
        measured: ms(Math.max(0, own)),
        target: '≤ one MCP ping',
        ratio: `call ${ms(median(stackCalls))} − raw MI ${ms(median(direct))} − ping ${ms(median(pings))}; ${(own / median(pings)).toFixed(2)}× a ping`,
        pass: own <= median(pings),
      },
      {
        name: `the floor: a minimal server's own work on the same view (median per call)`,
        measured: ms(Math.max(0, floorOwn)),
        target: 'reported',
        ratio: `call ${ms(median(floorCalls))} − raw MI ${ms(median(direct))} − ping ${ms(median(floorPings))}; ${(floorOwn / median(floorPings)).toFixed(2)}× a ping; answers of ${sizes.floor} bytes (dbg-mcp's: ${sizes.ours}); dbg-mcp's own work is ${(own / floorOwn).toFixed(2)}× this`,
        pass: true,
      },
    ];
  } finally {
    await server.close();
    await floor.close();
    await raw.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runOverheadBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
