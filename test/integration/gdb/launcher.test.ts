// What the GDB backend must do to run a program through the launcher, found out on a real GDB over
// MI (no backend in between): GDB started with SHELL=<launcher>, the program loaded as usual
// (file-exec-and-symbols), `startup-with-shell on` and the plan's argument text for the run.
// The program lies under a hostile name; the shell GDB would otherwise use is shown to run it.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher, type LaunchPlan, launchPlan } from '../../../src/process/launcher.js';
import type { MiTuple } from '../../../src/protocols/mi/miRecords.js';
import { WAIT_MS } from '../../helpers/outcomes.js';
import { fixture, repoRoot } from '../../helpers/paths.js';
import { allProcs, descendants, environOf, readProc, until } from '../../helpers/procfs.js';
import { type RawGdb, startRawGdb } from '../../helpers/rawGdb.js';

const work = join(repoRoot, 'test', '.tmp', `launcher-${process.pid}`);
/** Each piece would run a command if any shell read the name: `|`, backticks, $(), quotes, spaces. */
const HOSTILE = 'q|touch PIPED `touch TICKED` $(touch DOLLARED) \'x" y;touch SEMI';
const SENTINELS = ['PIPED', 'TICKED', 'DOLLARED', 'SEMI'];
const ARGS = ['a b', '', 'tab\there', "it's", '$(touch ARGUED)'];
/**
 * The exploit of issue 11: GDB quotes a name holding a space, a quote or `$`, but not `|`, so this
 * name with these arguments pipes into `sh -c 'touch PIPED'`.
 */
const PIPE_NAME = 'q|sh';
const PIPE_ARGS = ['-c', 'touch PIPED', ''];

let launcherPath: string;
let program: string;
let pipeProgram: string;
const gdbs: RawGdb[] = [];

beforeAll(async () => {
  mkdirSync(work, { recursive: true });
  const status = await ensureLauncher({ cacheDir: join(work, 'cache') });
  if (!status.available) throw new Error(`the launcher did not build: ${status.reason}`);
  launcherPath = status.path;
  program = join(work, HOSTILE);
  copyFileSync(fixture('echo_args'), program);
  pipeProgram = join(work, PIPE_NAME);
  copyFileSync(fixture('echo_args'), pipeProgram);
}, 120_000);

afterEach(async () => {
  for (const g of gdbs.splice(0)) await g.close();
  for (const name of sentinelsLeft()) rmSync(join(work, name));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

function sentinelsLeft(): string[] {
  return [...SENTINELS, 'ARGUED'].filter((name) => existsSync(join(work, name)));
}

/** GDB as the backend would have it: SHELL is the launcher, the program loaded, the plan applied. */
async function loadedGdb(plan: LaunchPlan, shell = launcherPath, file = program): Promise<RawGdb> {
  const gdb = await startRawGdb({ env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', SHELL: shell }, cwd: work });
  gdbs.push(gdb);
  await gdb.send('file-exec-and-symbols', [file]);
  await gdb.send('gdb-set', { raw: `startup-with-shell ${plan.startupWithShell ? 'on' : 'off'}` });
  await gdb.send('exec-arguments', { raw: plan.argsText });
  // The program must not inherit the launcher as its SHELL (the backend unsets it likewise).
  await gdb.cli('unset environment SHELL');
  return gdb;
}

async function evaluate(gdb: RawGdb, expression: string): Promise<string> {
  const r = await gdb.send('data-evaluate-expression', [expression]);
  return String(r.results['value']);
}

function frameOf(stop: { results: MiTuple }): MiTuple {
  return stop.results['frame'] as MiTuple;
}

/** The program's pid as GDB knows it. */
async function inferiorPid(gdb: RawGdb): Promise<number> {
  const r = await gdb.send('list-thread-groups');
  const groups = r.results['groups'] as MiTuple[];
  return Number(groups[0]?.['pid']);
}

/** The program's argv as the kernel holds it. */
function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').slice(0, -1);
}

/** Processes under gdb whose command is a shell: none may ever be seen. */
function shellsUnder(gdbPid: number): string[] {
  return descendants(gdbPid)
    .filter((p) => /^(sh|dash|bash|zsh|ksh|busybox)$/.test(p.comm))
    .map((p) => `${p.pid} ${p.comm}`);
}

describe('the launcher under a real GDB', () => {
  it('the hole it closes: GDB with /bin/sh as its shell runs a command through the program name', async () => {
    // What the server did before: startup-with-shell on, SHELL=/bin/sh, arguments single-quoted.
    const before = { startupWithShell: true, argsText: "'-c' 'touch PIPED' ''", viaLauncher: false };
    const gdb = await loadedGdb(before, '/bin/sh', pipeProgram);
    // The shell ran `exec <root>/q | sh -c 'touch PIPED'`: the first half exits at once, and GDB
    // answers the run with "During startup program exited normally."
    const answer = await gdb.send('exec-run').catch((e: Error) => e);
    expect(answer).toBeInstanceOf(Error);
    expect((answer as Error).message).toMatch(/During startup program exited/);
    await until(() => existsSync(join(work, 'PIPED')), 'the injected command to create PIPED', WAIT_MS);
    expect(sentinelsLeft()).toEqual(['PIPED']);
  });

  it('the same name and arguments through the launcher run nothing and reach the program literally', async () => {
    const plan = launchPlan(pipeProgram, PIPE_ARGS, { available: true, path: launcherPath });
    expect(plan.viaLauncher).toBe(true);
    const gdb = await loadedGdb(plan, launcherPath, pipeProgram);
    const since = gdb.execRecords.length;
    await gdb.send('exec-run');
    expect((await gdb.nextStop(since)).results['reason']).toBe('exited-normally');
    await gdb.terminal.sync();
    expect(gdb.output()).toBe('[-c]\n[touch PIPED]\n[]\nprobe=(unset)\n');
    expect(sentinelsLeft()).toEqual([]);
  });

  it('-exec-run --start stops at main with the real argv, and nothing in the name or arguments runs', async () => {
    const gdb = await loadedGdb(launchPlan(program, ARGS, { available: true, path: launcherPath }));
    const since = gdb.execRecords.length;
    await gdb.send('exec-run', ['--start']);
    const stop = await gdb.nextStop(since);
    expect(frameOf(stop)['func']).toBe('main');
    expect(await evaluate(gdb, 'argc')).toBe(String(ARGS.length + 1));
    expect(await evaluate(gdb, 'argv[1]')).toMatch(/ "a b"$/);
    expect(await evaluate(gdb, 'argv[2]')).toMatch(/ ""$/);
    expect(await evaluate(gdb, 'argv[3]')).toMatch(/ "tab\\there"$/);
    const pid = await inferiorPid(gdb);
    // Same pid, now the program: the kernel's view of its file and argv.
    expect(readlinkSync(`/proc/${pid}/exe`)).toBe(program);
    expect(cmdline(pid)).toEqual([program, ...ARGS]);
    expect(readProc(pid)?.ppid).toBe(gdb.child.pid);
    expect(shellsUnder(gdb.child.pid as number)).toEqual([]);
    expect(sentinelsLeft()).toEqual([]);
  });

  it("the program gets its environment and working directory through the launcher, and not GDB's SHELL", async () => {
    const gdb = await loadedGdb(launchPlan(program, ARGS, { available: true, path: launcherPath }));
    await gdb.send('gdb-set', { raw: 'environment DBG_MCP_PROBE=a b;c' });
    await gdb.send('gdb-set', { raw: `cwd ${join(work, 'cache')}` });
    const since = gdb.execRecords.length;
    await gdb.send('exec-run', ['--start']);
    await gdb.nextStop(since);
    const pid = await inferiorPid(gdb);
    const env = environOf(pid);
    expect(env.get('DBG_MCP_PROBE')).toBe('a b;c');
    expect(env.has('SHELL')).toBe(false);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(join(work, 'cache'));
  });

  it('a breakpoint set before the run on file:line is hit in the program, not in the launcher', async () => {
    const gdb = await loadedGdb(launchPlan(program, ARGS, { available: true, path: launcherPath }));
    const bp = await gdb.send('break-insert', ['-f', 'echo_args.c:7']);
    expect((bp.results['bkpt'] as MiTuple)['line']).toBe('7');
    const since = gdb.execRecords.length;
    await gdb.send('exec-run');
    const stop = await gdb.nextStop(since);
    expect(stop.results['reason']).toBe('breakpoint-hit');
    expect(frameOf(stop)).toMatchObject({ func: 'main', file: 'echo_args.c', line: '7' });
    expect(await evaluate(gdb, 'argv[i]')).toMatch(/ "a b"$/);
  });

  it('stop=entry: starti stops at the first instruction of the program, with its argv on the stack', async () => {
    const gdb = await loadedGdb(launchPlan(program, ARGS, { available: true, path: launcherPath }));
    const since = gdb.execRecords.length;
    await gdb.cli('starti');
    const stop = await gdb.nextStop(since);
    const pid = await inferiorPid(gdb);
    expect(readlinkSync(`/proc/${pid}/exe`)).toBe(program);
    // The dynamic loader's entry, before anything of the program ran: argc is still at $sp.
    expect(frameOf(stop)['func']).toBe('_start');
    expect(await evaluate(gdb, '*(long *)$sp')).toBe(String(ARGS.length + 1));
    expect(await evaluate(gdb, '*(char **)($sp + 16)')).toMatch(/ "a b"$/);
    expect(shellsUnder(gdb.child.pid as number)).toEqual([]);
  });

  it('a restart runs the program through the launcher again, with the same argv', async () => {
    const gdb = await loadedGdb(launchPlan(program, ARGS, { available: true, path: launcherPath }));
    let since = gdb.execRecords.length;
    await gdb.send('exec-run', ['--start']);
    await gdb.nextStop(since);
    const first = await inferiorPid(gdb);
    since = gdb.execRecords.length;
    await gdb.send('exec-run', ['--start']);
    const stop = await gdb.nextStop(since);
    expect(frameOf(stop)['func']).toBe('main');
    const second = await inferiorPid(gdb);
    expect(second).not.toBe(first);
    expect(cmdline(second)).toEqual([program, ...ARGS]);
    expect(await evaluate(gdb, 'argv[2]')).toMatch(/ ""$/);
    expect(sentinelsLeft()).toEqual([]);
  });

  it('the program runs to its exit with every argument printed as given', async () => {
    const gdb = await loadedGdb(launchPlan(program, ARGS, { available: true, path: launcherPath }));
    const since = gdb.execRecords.length;
    await gdb.send('exec-run');
    const stop = await gdb.nextStop(since);
    expect(stop.results['reason']).toBe('exited-normally');
    expect(await gdb.terminal.sync()).toBe(true);
    expect(gdb.output()).toBe(`${ARGS.map((a) => `[${a}]\n`).join('')}probe=(unset)\n`);
    expect(sentinelsLeft()).toEqual([]);
  });

  it('no shell process appears at any point of a run (polled from the run to the exit)', async () => {
    const gdb = await loadedGdb(launchPlan(program, ARGS, { available: true, path: launcherPath }));
    const gdbPid = gdb.child.pid as number;
    const seen = new Set<string>();
    let polls = 0;
    const poll = setInterval(() => {
      polls++;
      for (const s of shellsUnder(gdbPid)) seen.add(s);
      // A shell anywhere started by this GDB, even one that already changed its parent.
      for (const p of allProcs())
        if (p.session === readProc(gdbPid)?.session && /^(sh|dash|bash)$/.test(p.comm)) seen.add(`${p.pid} ${p.comm}`);
    }, 1);
    const since = gdb.execRecords.length;
    await gdb.send('exec-run');
    await gdb.nextStop(since);
    clearInterval(poll);
    expect(polls).toBeGreaterThan(0);
    expect([...seen]).toEqual([]);
  });

  it("why not the launcher as exec file: the program's breakpoints land in the launcher's image", async () => {
    // `file-exec-and-symbols PROGRAM` then `file-exec-file LAUNCHER`: GDB relocates the program's
    // symbols by the launcher's layout and inserts breakpoints before the launcher has exec'd.
    const gdb = await loadedGdb({ startupWithShell: false, argsText: '', viaLauncher: false });
    await gdb.send('file-exec-file', [launcherPath]);
    await gdb.send('break-insert', ['-f', 'echo_args.c:7']);
    // With the program on its own terminal, MI answers ^running, then a log line tells the failure
    // (without one, the same text is the ^error of the run); no *stopped follows either way.
    const answer = await gdb.send('exec-run').catch((e: Error) => e);
    const failure = /Cannot insert breakpoint 1\.\s*Cannot access memory at address 0x[0-9a-f]+/;
    await until(() => failure.test(`${gdb.streams()}${String(answer)}`), 'GDB to fail the insertion', WAIT_MS);
    // Still the launcher, stopped at its first instruction: nothing of the program ran.
    expect(readlinkSync(`/proc/${await inferiorPid(gdb)}/exe`)).toBe(launcherPath);
  });

  it('why not exec-wrapper: GDB 13 ignores it with startup-with-shell off and runs the program itself', async () => {
    const gdb = await loadedGdb({ startupWithShell: false, argsText: 'x41', viaLauncher: false });
    await gdb.send('gdb-set', { raw: `exec-wrapper ${launcherPath}` });
    const answer = await gdb.send('exec-run').catch((e: Error) => e);
    // The launcher would have refused a call without -c (exit 127); the program printed its token.
    expect((answer as Error).message).toMatch(/During startup program exited normally/);
    await gdb.terminal.sync();
    expect(gdb.output()).toBe('[x41]\nprobe=(unset)\n');
  });

  it('plain arguments need no launcher: startup-with-shell stays off', async () => {
    const plan = launchPlan(program, ['one', '$HOME', '|'], { available: false, reason: 'none here' });
    expect(plan.viaLauncher).toBe(false);
    const gdb = await loadedGdb(plan, '/nonexistent/shell');
    const since = gdb.execRecords.length;
    await gdb.send('exec-run');
    expect((await gdb.nextStop(since)).results['reason']).toBe('exited-normally');
    await gdb.terminal.sync();
    expect(gdb.output()).toBe('[one]\n[$HOME]\n[|]\nprobe=(unset)\n');
  });
});
