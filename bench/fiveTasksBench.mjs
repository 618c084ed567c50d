#!/usr/bin/env node
// The five tasks of PRODUCT.md (NULL dereference, assert, ABBA deadlock, stdin-triggered crash,
// infinite loop), each one dbg_start through one server kept for every round, against what a
// person runs for the same evidence: one `gdb -batch` process per task (run, bt, info locals; for
// the hangs, SIGINT after the same program run time as dbg_start's timeout_ms, then the stacks).
// The two take turns; ratios are of medians measured in the same run (issue 15: at most 0.95×).
//
//   npm run build && node bench/fiveTasksBench.mjs

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { buildFixtures, childEnv, fixture, interleave, median, ms, nowMs, ok, startServer } from './benchSupport.mjs';
import { formatBenchTable } from './benchTable.mjs';

const RUNS = Number(process.env.FIVE_TASKS_RUNS ?? 7);
const MAX_RATIO = 0.95;
/**
 * Untimed pause after each run of either side: an agent reads an answer before its next call, and
 * what a side does in the background then (the server's pool refilling, a debugger's exit) must not
 * land inside the other side's timing.
 */
const THINK_MS = 400;
export const STDIN = 'one\ncrash\n';

/** The tasks as fiveTasks.ts runs them, with what each answer must show and gdb's commands. */
export function tasks(stdinFile) {
  return [
    {
      name: 'NULL dereference',
      start: { program: fixture('crash'), args: ['segv'] },
      answer: /NULL pointer dereference in store at crash\.c:13/,
      gdb: {
        argv: [fixture('crash'), 'segv'],
        commands: ['run', 'bt', 'info locals'],
        said: /SIGSEGV[\s\S]*#3 .*main/,
      },
    },
    {
      name: 'assert',
      start: { program: fixture('crash'), args: ['assert'] },
      answer: /Assertion `count == 0/,
      gdb: { argv: [fixture('crash'), 'assert'], commands: ['run', 'bt', 'info locals'], said: /SIGABRT[\s\S]*main/ },
    },
    {
      name: 'deadlock (3 s)',
      start: { program: fixture('deadlock'), timeout_ms: 3000 },
      answer: /deadlock/,
      gdb: {
        argv: [fixture('deadlock')],
        commands: ['run', 'thread apply all bt'],
        interruptAfterMs: 3000,
        // Where SIGINT lands is the machine's business (on a loaded one, still in the loader):
        // the reference is timed, not judged.
        said: /received signal SIGINT/,
      },
    },
    {
      name: 'stdin crash',
      start: { program: fixture('stdin_echo'), stdin: STDIN },
      answer: /NULL pointer dereference in main at stdin_echo\.c:12/,
      gdb: {
        argv: [fixture('stdin_echo')],
        commands: [`run < ${stdinFile}`, 'bt', 'info locals'],
        said: /SIGSEGV[\s\S]*main/,
      },
    },
    {
      name: 'infinite loop (1.5 s)',
      start: { program: fixture('spin'), timeout_ms: 1500 },
      answer: /it is spinning/,
      gdb: { argv: [fixture('spin')], commands: ['run', 'bt'], interruptAfterMs: 1500, said: /received signal SIGINT/ },
    },
  ];
}

/** Pids of `pid`'s children, from /proc. */
export function childrenOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * One `gdb -batch` process to its end. For a hang, the program runs `interruptAfterMs` from when
 * it appears (as dbg_start's timeout_ms counts from its run), then gdb gets SIGINT, stops it and
 * goes on with the next commands.
 */
function gdbBatch({ argv, commands, interruptAfterMs }) {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const args = ['-nx', '-q', '-batch', ...commands.flatMap((c) => ['-ex', c]), '--args', ...argv];
    const child = spawn('gdb', args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      if (out.length < 256 * 1024) out += chunk.toString('utf8');
    });
    child.stderr.resume();
    child.on('error', reject);
    let poll;
    if (interruptAfterMs !== undefined) {
      poll = setInterval(() => {
        if (childrenOf(child.pid).length === 0) return;
        clearInterval(poll);
        poll = setTimeout(() => child.kill('SIGINT'), interruptAfterMs);
      }, 2);
    }
    child.on('exit', (code) => {
      clearInterval(poll);
      clearTimeout(poll);
      resolve({ ms: nowMs() - t0, code, out });
    });
  });
}

/**
 * Each task of `list` through `server` (its dbg_start timed; the dbg_close after it timed apart)
 * against `reference(task)` (a batch debugger to its end: resolves its ms, throws when its output
 * lacks the evidence), one warm-up round each, then taking turns. Answers the per-task rows (named
 * `${label}${task.name}`, ratios against `refName`), the medians summed, and the closes.
 */
export async function timeTasks(server, list, { label, refName, reference }) {
  const rows = [];
  const totals = { ours: 0, reference: 0 };
  const closes = [];
  // One warm-up round of each side: the fixture binaries and the debugger's own files in the page cache.
  for (const task of list) {
    const a = ok(await server.call('dbg_start', task.start), task.name);
    await server.call('dbg_close', { session_id: a.data.session_id });
    await reference(task);
  }
  for (const task of list) {
    const ours = async () => {
      const answer = ok(await server.call('dbg_start', task.start), `dbg_start (${task.name})`);
      if (!task.answer.test(answer.text))
        throw new Error(`${task.name}: the answer lacks ${task.answer}: ${answer.text.slice(0, 300)}`);
      // Closing is the next call's business (as in crashTurnBench), timed apart.
      const closed = ok(await server.call('dbg_close', { session_id: answer.data.session_id }), 'dbg_close');
      closes.push(closed.ms);
      await sleep(THINK_MS);
      return [answer.ms];
    };
    const theirs = async () => {
      const took = await reference(task);
      await sleep(THINK_MS);
      return [took];
    };
    const { a, b } = await interleave(RUNS, ours, theirs);
    totals.ours += median(a);
    totals.reference += median(b);
    rows.push({
      name: `${label}${task.name} (median of ${RUNS})`,
      measured: ms(median(a)),
      target: '—',
      ratio: `${(median(a) / median(b)).toFixed(2)}× ${refName} (${ms(median(b))})`,
      pass: true,
    });
  }
  return { rows, totals, closes };
}

export async function runFiveTasksBench() {
  await buildFixtures();
  const scratch = mkdtempSync(path.join(tmpdir(), 'dbg-mcp-five-'));
  const stdinFile = path.join(scratch, 'stdin.txt');
  writeFileSync(stdinFile, STDIN);
  const server = await startServer();
  try {
    const { rows, totals, closes } = await timeTasks(server, tasks(stdinFile), {
      label: 'five tasks: ',
      refName: 'gdb -batch',
      reference: async (task) => {
        const run = await gdbBatch(task.gdb);
        if (!task.gdb.said.test(run.out)) throw new Error(`gdb -batch (${task.name}) said: ${run.out.slice(0, 300)}`);
        return run.ms;
      },
    });
    const ratio = totals.ours / totals.reference;
    rows.push({
      name: 'five tasks together, one server for all rounds',
      measured: `${ms(totals.ours)} (dbg_close after each: ${ms(median(closes))} median, not counted)`,
      target: `≤ ${MAX_RATIO}× gdb -batch`,
      ratio: `${ratio.toFixed(2)}× one gdb -batch per task (${ms(totals.reference)})`,
      pass: ratio <= MAX_RATIO,
    });
    return rows;
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runFiveTasksBench();
  console.log(formatBenchTable(rows));
  if (rows.some((row) => !row.pass)) process.exitCode = 1;
}
