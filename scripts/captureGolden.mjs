#!/usr/bin/env node
// Captures golden GDB/MI transcripts from a real GDB driving the fixture programs, for the
// parser's golden test. Writes test/golden/<scenario>.mi (GDB's output lines, sanitised) and
// test/golden/<scenario>.json (what our parser makes of each of those lines).
//
//   make -C fixtures/c && npx tsc -p tsconfig.json && node scripts/captureGolden.mjs [scenario…]
//
// Sanitised so a rerun elsewhere differs only where GDB's behaviour does: hex addresses → 0xADDR,
// pids and LWPs → PID / LWP, cores → N, the repository's absolute path → <repo>.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(repoRoot, 'dist', 'protocols', 'mi');
const build = path.join(repoRoot, 'fixtures', 'c', 'build');
const outDir = path.join(repoRoot, 'test', 'golden');

for (const [file, hint] of [
  [path.join(dist, 'miParser.js'), 'npx tsc -p tsconfig.json'],
  [path.join(build, 'loop'), 'make -C fixtures/c'],
]) {
  if (!existsSync(file)) {
    console.error(`missing ${path.relative(repoRoot, file)}: run \`${hint}\` first`);
    process.exit(1);
  }
}

const { parseMiLine } = await import(path.join(dist, 'miParser.js'));
const { MiLineSplitter } = await import(path.join(dist, 'miLineSplitter.js'));
const { buildMiCommand } = await import(path.join(dist, 'miCommand.js'));

const STEP_TIMEOUT_MS = 15_000;

/** One GDB in MI mode; keeps every line it writes, in order. */
class Gdb {
  constructor() {
    const env = { ...process.env, LC_ALL: 'C.UTF-8' };
    delete env.DEBUGINFOD_URLS;
    this.child = spawn('gdb', ['--interpreter=mi4', '-nx', '-q'], { cwd: repoRoot, env, stdio: 'pipe' });
    this.lines = [];
    this.records = [];
    this.token = 1;
    this.listeners = new Set();
    this.exited = new Promise((resolve) => this.child.on('close', resolve));
    const splitter = new MiLineSplitter();
    const take = (lines) => {
      for (const line of lines) {
        this.lines.push(line);
        this.records.push(parseMiLine(line));
      }
      for (const listener of this.listeners) listener();
    };
    this.child.stdout.on('data', (chunk) => take(splitter.push(chunk)));
    this.child.stdout.on('end', () => take(splitter.end()));
    this.child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  }

  /** Resolves with the first record from index `from` on that matches, or rejects on timeout. */
  waitFor(what, match, from = 0) {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (let i = from; i < this.records.length; i++) {
          if (match(this.records[i])) {
            this.listeners.delete(check);
            clearTimeout(timer);
            resolve({ record: this.records[i], index: i });
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}; last lines:\n${this.lines.slice(-8).join('\n')}`));
      }, STEP_TIMEOUT_MS);
      this.listeners.add(check);
      check();
    });
  }

  /** Sends a command and waits for its result record. */
  async send(operation, ...args) {
    const token = this.token++;
    const from = this.records.length;
    this.child.stdin.write(`${buildMiCommand(token, operation, args)}\n`);
    const { record, index } = await this.waitFor(
      `the answer to -${operation}`,
      (r) => r.kind === 'result' && r.token === token,
      from,
    );
    return { record, index };
  }

  /** Sends a command that resumes the inferior and waits until it stops again (or exits). */
  async resume(operation, ...args) {
    const { record, index } = await this.send(operation, ...args);
    if (record.class !== 'running') throw new Error(`-${operation} answered ${JSON.stringify(record)}`);
    return this.waitFor(`*stopped after -${operation}`, (r) => r.kind === 'exec' && r.class === 'stopped', index);
  }

  /** Waits for the prompt that ends the current burst, so trailing notifications are captured. */
  settle(ms = 150) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  async quit() {
    const token = this.token++;
    this.child.stdin.write(`${buildMiCommand(token, 'gdb-exit', [])}\n`);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STEP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Settings every scenario starts with: quiet, deterministic, inferior output kept off MI. */
async function prepare(gdb, program) {
  await gdb.send('gdb-set', 'disable-randomization', 'off'); // ASLR control fails in containers
  await gdb.send('gdb-set', 'debuginfod', 'enabled', 'off');
  await gdb.send('inferior-tty-set', '/dev/null'); // the program's own output is not MI
  await gdb.send('file-exec-and-symbols', path.join(build, program));
}

const scenarios = {
  /** break main, run, next, step, finish, backtrace, locals, continue to the exit. */
  async 'loop-stepping'(gdb) {
    await prepare(gdb, 'loop');
    await gdb.send('break-insert', 'main');
    await gdb.resume('exec-run');
    await gdb.resume('exec-next');
    await gdb.resume('exec-step');
    await gdb.send('stack-list-frames');
    await gdb.send('stack-list-variables', '--all-values');
    await gdb.resume('exec-finish');
    await gdb.send('stack-list-locals', '--simple-values');
    await gdb.send('data-evaluate-expression', 'total');
    await gdb.resume('exec-continue');
  },

  /** crash segv: run into SIGSEGV three calls deep, then frames and variables. */
  async 'crash-segv'(gdb) {
    await prepare(gdb, 'crash');
    await gdb.send('exec-arguments', 'segv');
    await gdb.resume('exec-run');
    await gdb.send('stack-list-frames');
    await gdb.send('stack-list-variables', '--all-values');
    await gdb.send('stack-list-arguments', '--all-values');
    await gdb.send('stack-select-frame', '2');
    await gdb.send('stack-list-variables', '--all-values');
  },

  /** threads: run in the background, interrupt all after ~300 ms, list the threads. */
  async 'threads-interrupt'(gdb) {
    await gdb.send('gdb-set', 'mi-async', 'on');
    await prepare(gdb, 'threads');
    const { index } = await gdb.send('exec-run');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await gdb.send('exec-interrupt', '--all');
    await gdb.waitFor('*stopped after the interrupt', (r) => r.kind === 'exec' && r.class === 'stopped', index);
    await gdb.settle();
    await gdb.send('thread-info');
    await gdb.send('thread-list-ids');
  },

  /** A conditional breakpoint, a watchpoint, a temporary breakpoint, and the breakpoint table. */
  async breakpoints(gdb) {
    await prepare(gdb, 'loop');
    await gdb.send('break-insert', '-c', 'v == 3', 'square');
    await gdb.send('break-insert', '-t', 'loop.c:15');
    await gdb.send('break-insert', '-f', 'no such file.c:1');
    await gdb.resume('exec-run');
    await gdb.send('stack-list-frames');
    await gdb.send('break-watch', 'total');
    await gdb.resume('exec-continue');
    await gdb.send('break-list');
    await gdb.send('break-delete', '2', '3');
    await gdb.send('break-disable', '1');
    await gdb.resume('exec-continue');
    await gdb.send('break-list');
  },

  /** Commands GDB refuses: each answer is ^error, and the session carries on. */
  async errors(gdb) {
    await gdb.send('no-such-command');
    await gdb.send('data-evaluate-expression', 'no_such_symbol');
    await gdb.send('exec-continue');
    await gdb.send('stack-list-frames');
    await prepare(gdb, 'hello');
    await gdb.send('break-insert', 'no_such_function');
    await gdb.send('data-evaluate-expression', '1 +');
    await gdb.send('data-evaluate-expression', 'sizeof("quote \\" and backslash \\\\ and é")');
    await gdb.send('interpreter-exec', 'console', 'echo déjà "vu" \\\\ \\t|\\n');
    await gdb.send('gdb-version');
  },
};

function sanitise(line) {
  return line
    .split(repoRoot)
    .join('<repo>')
    .replace(/0x[0-9a-fA-F]+/g, '0xADDR')
    .replace(/\bpid="\d+"/g, 'pid="PID"')
    .replace(/\bprocess \d+/g, 'process PID')
    .replace(/\bLWP \d+/g, 'LWP LWP')
    .replace(/\bcore="\d+"/g, 'core="N"');
}

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(scenarios);
mkdirSync(outDir, { recursive: true });
let failed = false;
for (const name of names) {
  const scenario = scenarios[name];
  if (scenario === undefined) {
    console.error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
    process.exitCode = 1;
    continue;
  }
  const gdb = new Gdb();
  try {
    await scenario(gdb);
    await gdb.settle();
  } catch (error) {
    console.error(`${name}: ${error.message}`);
    failed = true;
  }
  await gdb.quit();
  const lines = gdb.lines.map(sanitise);
  const records = lines.map((line) => parseMiLine(line));
  const raw = records.filter((r) => r.kind === 'raw');
  writeFileSync(path.join(outDir, `${name}.mi`), `${lines.join('\n')}\n`);
  writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(records, null, 2)}\n`);
  console.log(`${name}: ${lines.length} lines, ${raw.length} raw`);
  if (raw.length > 0) failed = true;
}
if (failed) process.exitCode = 1;
