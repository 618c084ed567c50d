#!/usr/bin/env node
// The LLDB backend's rows, each against its reference in the same run, taking turns:
// - crash turn: dbg_start backend=lldb to the crash view, against what a person types for the
//   same evidence, `lldb -b -o run -k bt -k "frame variable" -- crash segv`;
// - stack view: the first dbg_inspect view=stack at a new stop, against the same DAP request
//   (`stackTrace` of a page plus one, in the same frame format) written straight to lldb-dap;
// - cold start of a session: dbg_start backend=lldb to a stop at main, against
//   `lldb -b -o "breakpoint set -n main" -o run`.
// Skipped, with the reason in its row, where lldb-dap is not installed.
//
//   npm run build && node bench/lldbBench.mjs

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  buildFixtures,
  fixture,
  interleave,
  median,
  ms,
  nowMs,
  ok,
  repoRoot,
  startServer,
  timeProcess,
} from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const CRASH_RUNS = 11;
const CRASH_MAX_RATIO = 1.3;
const STACK_STOPS = 40;
const STACK_BLOCK = 4;
const START_RUNS = 11;
const DEPTH = '20';

async function dist(module) {
  return import(pathToFileURL(path.join(repoRoot, 'dist', module)).href);
}

/** The lldb of the same release as the lldb-dap the backend runs (lldb-dap-22 → lldb-22). */
export function lldbBeside(lldbDap) {
  const sibling = lldbDap.replace(/lldb-dap(-\d+)?$/, (_, v) => `lldb${v ?? ''}`);
  return existsSync(sibling) ? sibling : 'lldb';
}

/** lldb-dap driven straight through the protocol layer: the reference for the stack view. */
async function rawLldbDap(lldbDap, program, args, frameFormat) {
  const { DapConnection } = await dist('protocols/dap/dapConnection.js');
  const child = spawn(lldbDap, ['--no-lldbinit'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const stops = [];
  let waiting;
  let initialized;
  const ready = new Promise((resolve) => (initialized = resolve));
  const conn = new DapConnection(child.stdin, {
    onEvent: (e) => {
      if (e.event === 'initialized') initialized();
      if (e.event === 'stopped') {
        if (waiting) waiting(e.body);
        else stops.push(e.body);
        waiting = undefined;
      }
    },
  });
  child.stdout.on('data', (c) => conn.receive(c));
  const stopped = () =>
    stops.length > 0 ? Promise.resolve(stops.shift()) : new Promise((resolve) => (waiting = resolve));
  await conn.request('initialize', {
    adapterID: 'lldb-dap',
    linesStartAt1: true,
    columnsStartAt1: true,
    pathFormat: 'path',
  });
  const launched = conn.request('launch', {
    program,
    args,
    stopOnEntry: false,
    stdio: ['/dev/null', '/dev/null', '/dev/null'],
    customFrameFormat: frameFormat,
  });
  launched.catch(() => {});
  // lldb-dap answers launch after configurationDone; breakpoints go between `initialized` and it.
  await ready;
  await conn.request('setFunctionBreakpoints', { breakpoints: [{ name: 'bottom' }] });
  await conn.request('configurationDone', undefined);
  await launched;
  let body = await stopped();
  return {
    async next() {
      // One stop more, then the one request the stack view's page needs.
      await conn.request('continue', { threadId: body.threadId });
      body = await stopped();
      const t0 = nowMs();
      const trace = await conn.request('stackTrace', { threadId: body.threadId, startFrame: 0, levels: 17 });
      const elapsed = nowMs() - t0;
      if ((trace.body?.stackFrames?.length ?? 0) < 17) throw new Error('lldb-dap gave a short stack');
      return elapsed;
    },
    async close() {
      await conn.request('disconnect', { terminateDebuggee: true }, { timeoutMs: 3000 }).catch(() => {});
      child.kill('SIGKILL');
    },
  };
}

export async function runLldbBench() {
  const { lldbDapCandidates } = await dist('backends/lldb/lldbPath.js');
  const lldbDap = lldbDapCandidates()[0];
  if (lldbDap === undefined) {
    return [
      {
        name: 'lldb rows',
        measured: 'skipped: lldb-dap is not installed (apt-get install lldb-22)',
        target: '—',
        pass: true,
      },
    ];
  }
  await buildFixtures();
  const lldb = lldbBeside(lldbDap);
  const { FRAME_FORMAT } = await dist('backends/lldb/lldbNarrow.js');
  const rows = [];
  const server = await startServer();
  try {
    // ---- the crash turn
    const crash = fixture('crash');
    const ours = async () => {
      const answer = ok(
        await server.call('dbg_start', { backend: 'lldb', program: crash, args: ['segv'] }),
        'dbg_start',
      );
      const view = answer.data.views?.crash;
      if (view?.signal !== 'SIGSEGV' || !Array.isArray(view.stack) || view.stack.length < 4) {
        throw new Error(`dbg_start did not answer with the crash view: ${answer.text.slice(0, 300)}`);
      }
      ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
      return [answer.ms];
    };
    const batch = async () => {
      const run = await timeProcess(lldb, [
        '--no-lldbinit',
        '-b',
        '-o',
        'run',
        '-k',
        'bt',
        '-k',
        'frame variable',
        '--',
        crash,
        'segv',
      ]);
      if (!/SIGSEGV/.test(run.out) || !/frame #3: .*main/.test(run.out))
        throw new Error(`lldb -b said: ${run.out.slice(0, 300)}`);
      return [run.ms];
    };
    await ours();
    await batch();
    const turn = await interleave(CRASH_RUNS, ours, batch);
    const turnRatio = median(turn.a) / median(turn.b);
    rows.push({
      name: `lldb crash turn: dbg_start backend=lldb to the crash view (median of ${CRASH_RUNS})`,
      measured: ms(median(turn.a)),
      target: `≤ ${CRASH_MAX_RATIO}× lldb -b`,
      ratio: `${turnRatio.toFixed(2)}× lldb -b run, bt, frame variable (${ms(median(turn.b))})`,
      pass: turnRatio <= CRASH_MAX_RATIO,
    });

    // ---- the stack view at a new stop
    const recurse = fixture('recurse');
    const rounds = String(STACK_STOPS + 4);
    const started = ok(
      await server.call('dbg_start', {
        backend: 'lldb',
        program: recurse,
        args: [DEPTH, 'ok', rounds],
        breakpoints: [{ location: 'bottom' }],
        inspect: ['none'],
      }),
      'dbg_start',
    );
    const sessionId = started.data.session_id;
    const raw = await rawLldbDap(lldbDap, recurse, [DEPTH, 'ok', rounds], FRAME_FORMAT);
    try {
      // The view asked again at the same stop: answered from what the first read kept.
      const again = [];
      const viaServer = async () => {
        const samples = [];
        for (let i = 0; i < STACK_BLOCK; i++) {
          ok(await server.call('dbg_run', { session_id: sessionId, action: 'continue', inspect: ['none'] }), 'dbg_run');
          const view = ok(await server.call('dbg_inspect', { session_id: sessionId, view: 'stack' }), 'dbg_inspect');
          if ((view.data.data?.frames?.length ?? 0) !== 16)
            throw new Error(`a short stack view: ${view.text.slice(0, 200)}`);
          samples.push(view.ms);
          again.push(ok(await server.call('dbg_inspect', { session_id: sessionId, view: 'stack' }), 'dbg_inspect').ms);
        }
        return samples;
      };
      const straight = async () => {
        const samples = [];
        for (let i = 0; i < STACK_BLOCK; i++) samples.push(await raw.next());
        return samples;
      };
      const stack = await interleave(STACK_STOPS / STACK_BLOCK, viaServer, straight);
      const ratio = median(stack.a) / median(stack.b);
      rows.push({
        name: `lldb stack view: first dbg_inspect view=stack at a stop, 16 frames (median of ${stack.a.length})`,
        measured: ms(median(stack.a)),
        target: 'reported',
        ratio: `${ratio.toFixed(2)}× stackTrace written straight to lldb-dap (${ms(median(stack.b))}); the same view again at that stop, no request: ${ms(median(again))}`,
        pass: true,
      });
    } finally {
      await raw.close();
      await server.call('dbg_close', { session_id: sessionId }).catch(() => {});
    }

    // ---- cold start of a session
    const hello = fixture('hello');
    const toMain = async () => {
      const answer = ok(await server.call('dbg_start', { backend: 'lldb', program: hello, stop: 'main' }), 'dbg_start');
      if (answer.data.outcome?.frame?.function !== 'main') throw new Error(`not at main: ${answer.text.slice(0, 300)}`);
      ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
      return [answer.ms];
    };
    const lldbToMain = async () => {
      const run = await timeProcess(lldb, ['--no-lldbinit', '-b', '-o', 'breakpoint set -n main', '-o', 'run', hello]);
      if (!/stop reason = breakpoint/.test(run.out)) throw new Error(`lldb -b said: ${run.out.slice(0, 300)}`);
      return [run.ms];
    };
    await toMain();
    const start = await interleave(START_RUNS, toMain, lldbToMain);
    rows.push({
      name: `lldb cold start: dbg_start backend=lldb to a stop at main (median of ${START_RUNS})`,
      measured: ms(median(start.a)),
      target: 'reported',
      ratio: `${(median(start.a) / median(start.b)).toFixed(2)}× lldb -b, breakpoint at main, run (${ms(median(start.b))})`,
      pass: true,
    });
  } finally {
    await server.close();
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runLldbBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
