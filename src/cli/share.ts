// `dbg-mcp share`: a person shares the gdb they are using with an agent. It starts the share
// process (detached, so it outlives this command and whatever ran it, and a killed MCP server
// never takes it along), waits until it is ready, and prints the one line the person types in gdb.
// The same command ends a share, lists them, or lets an agent run the program.
//
// A command rather than a `source`-able gdb script: the share process must outlive the server and
// hold the terminal's master end, and starting it from a script needs gdb's Python (not every gdb
// has it) or a shell line the person types anyway. Typed in gdb as `!dbg-mcp share`, it prints
// the new-ui line right there.

import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import type { ShareAccess } from '../backends/debuggerBackend.js';
import { ShareHolder } from '../backends/gdbShare/gdbShareHolder.js';
import { readGdbShares } from '../backends/gdbShare/gdbShareRecord.js';
import { processAlive, shareDirectory } from '../backends/shares/shareFiles.js';
import { listShares } from '../backends/shares/shareRegistry.js';
import { readStat } from '../process/processTree.js';

const HELP = `dbg-mcp share: let an agent (an MCP client of dbg-mcp) look at the gdb you are using.

  dbg-mcp share                      share for reading; prints the line to type in gdb
  dbg-mcp share --allow-control      share, and let the agent run, step and interrupt the program
  dbg-mcp share --allow-control --id ID | --read-only --id ID
                                     change what a running share allows
  dbg-mcp share --stop [ID]          end a share (the only one, when no ID is given)
  dbg-mcp share --list               the debuggers shared on this machine (yours)

In gdb, type it as !dbg-mcp share. Reading only: the agent never starts, kills, writes to or calls
into your program, and never moves your selected thread or frame. For LLDB (21 and later), type
protocol-server start MCP listen://localhost:0 in lldb instead: LLDB's own listener, reading only.`;

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

function fail(text: string): number {
  process.stderr.write(`dbg-mcp share: ${text}\n`);
  return 2;
}

/** The running share `id`, or the only one; a message when there is no such share. */
function pickShare(id: string | undefined): { pid: number; id: string; file: string } | string {
  const listing = readGdbShares(shareDirectory());
  const live = listing.shares.filter((s) => id === undefined || s.id === id);
  if (live.length === 1) {
    const s = live[0] as (typeof live)[number];
    return { pid: Number(s.id.slice('gdb-'.length)), id: s.id, file: s.file };
  }
  if (live.length === 0) {
    const stale = listing.ignored.find((i) => i.stale && (id === undefined || i.file.includes(`${id}.json`)));
    if (stale) {
      rmSync(stale.file, { force: true });
      rmSync(stale.file.replace(/\.json$/, '.sock'), { force: true });
      return `${id ?? 'the share'} had already ended; its leftover files are removed`;
    }
    return id === undefined ? 'no gdb is shared now' : `no share ${id} (dbg-mcp share --list)`;
  }
  return `several shares run (${live.map((s) => s.id).join(', ')}): name one with its id`;
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (!processAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !processAlive(pid);
}

async function stop(id: string | undefined): Promise<number> {
  const picked = pickShare(id);
  if (typeof picked === 'string') {
    if (!picked.includes('removed')) return fail(picked);
    say(picked);
    return 0;
  }
  process.kill(picked.pid, 'SIGTERM');
  if (!(await waitGone(picked.pid, 5000))) return fail(`${picked.id} (pid ${picked.pid}) did not end`);
  say(`${picked.id} ended; your gdb is as it was`);
  return 0;
}

function setAccess(id: string | undefined, access: ShareAccess): number {
  const picked = pickShare(id);
  if (typeof picked === 'string') return fail(picked);
  process.kill(picked.pid, access === 'control' ? 'SIGUSR1' : 'SIGUSR2');
  say(`${picked.id} now allows ${access === 'control' ? 'reading and running your program' : 'reading only'}`);
  return 0;
}

async function list(): Promise<number> {
  const listing = await listShares();
  for (const s of listing.shares) {
    say(
      `${s.id}  ${s.debugger}  ${s.access === 'control' ? 'read+run' : 'read'}  ${s.state}${s.joined ? ' (joined)' : ''}  ${s.program ?? ''}${s.pid !== undefined ? ` pid ${s.pid}` : ''}`,
    );
  }
  for (const i of listing.ignored) say(`passed over: ${i.file} ${i.why}`);
  if (listing.shares.length === 0 && listing.ignored.length === 0) say('nothing is shared');
  return 0;
}

/**
 * The gdb this command was typed in, when it was: `!cmd` runs it under `/bin/sh -c` (so gdb is
 * the parent or the grandparent). The share process watches it until the new-ui line is typed.
 */
function gdbAbove(): number | undefined {
  let pid = process.ppid;
  for (let depth = 0; depth < 4 && pid > 1; depth++) {
    let comm = '';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return undefined;
    }
    if (/^gdb/.test(comm)) return pid;
    pid = readStat(pid)?.ppid ?? 0;
  }
  return undefined;
}

/** Starts the share process and waits for its ready line. */
async function start(access: ShareAccess): Promise<number> {
  const script = process.argv[1];
  if (!script) return fail('cannot tell where dbg-mcp is installed');
  const person = gdbAbove();
  const holdArgs = [
    'share',
    '--hold',
    '--access',
    access,
    ...(person !== undefined ? ['--person', String(person)] : []),
  ];
  const child = spawn(process.execPath, [...process.execArgv, script, ...holdArgs], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: process.env,
  });
  const ready = await new Promise<Record<string, unknown> | string>((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve('the share process did not start within 10 s'), 10_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(text.slice(0, nl)) as Record<string, unknown>);
      } catch {
        resolve('the share process said something else than it was ready');
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(`the share process exited (code ${code})`);
    });
  });
  child.stdout.destroy();
  child.unref();
  if (typeof ready === 'string') return fail(ready);
  if (ready['ok'] !== true) return fail(String(ready['error'] ?? 'the share did not start'));
  const id = String(ready['id']);
  say(
    `${id} is ready, ${access === 'control' ? 'for reading and running your program' : 'for reading only'}. Type this in your gdb:`,
  );
  say('');
  say(`    new-ui mi3 ${String(ready['tty'])}`);
  say('');
  say(`An agent's dbg_sessions lists it; dbg_start join=${id} joins it.`);
  if (access === 'read') say(`To let it run your program: dbg-mcp share --allow-control --id ${id}`);
  say(`To end it: dbg-mcp share --stop ${id}   (in gdb: !dbg-mcp share --stop ${id})`);
  return 0;
}

/** The share process itself (`--hold`): runs until the person ends it or their gdb goes. */
async function hold(access: ShareAccess, personPid: number | undefined): Promise<number> {
  const holder = new ShareHolder({
    access,
    dir: shareDirectory(),
    ...(personPid !== undefined ? { personPid } : {}),
    ready: (info) => {
      process.stdout.write(`${JSON.stringify(info)}\n`);
      process.stdout.end();
    },
  });
  await holder.start();
  return holder.done;
}

export async function runShareCli(argv: readonly string[]): Promise<number> {
  const flag = (name: string): boolean => argv.includes(name);
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    const v = i >= 0 ? argv[i + 1] : undefined;
    return v !== undefined && !v.startsWith('--') ? v : undefined;
  };
  const known = new Set([
    '--hold',
    '--access',
    '--person',
    '--allow-control',
    '--read-only',
    '--id',
    '--stop',
    '--list',
    '--help',
    '-h',
  ]);
  const unknown = argv.filter(
    (a, i) =>
      a.startsWith('-') && !known.has(a) && !['--access', '--person', '--id', '--stop'].includes(argv[i - 1] ?? ''),
  );
  if (flag('--help') || flag('-h')) {
    say(HELP);
    return 0;
  }
  if (unknown.length > 0) return fail(`unknown argument ${unknown[0]} (dbg-mcp share --help)`);
  if (flag('--hold')) {
    const access = value('--access') === 'control' ? 'control' : 'read';
    const person = Number(value('--person'));
    const code = await hold(access, Number.isInteger(person) && person > 1 ? person : undefined);
    process.exit(code);
  }
  if (flag('--stop')) return stop(value('--stop'));
  if (flag('--list')) return list();
  const id = value('--id');
  if (id !== undefined || flag('--read-only')) return setAccess(id, flag('--read-only') ? 'read' : 'control');
  return start(flag('--allow-control') ? 'control' : 'read');
}
