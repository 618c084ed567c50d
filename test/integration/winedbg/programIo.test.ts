// The program's own terminal under Wine: a program the launcher starts writes to our pty and reads
// our pipe, and winedbg attaches to it by its Windows pid, so a session sees its output and can
// type into it, as on Linux. Also: closing one session leaves the others and the wineserver.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureLauncher,
  type HeldProgram,
  launchHeld,
  stopLauncher,
} from '../../../src/backends/winedbg/wineLauncher.js';
import { prefixProcesses, sessionProcesses } from '../../../src/backends/winedbg/wineProcesses.js';
import { ProgramTerminal } from '../../../src/process/programTerminal.js';
import { readProc, until } from '../../helpers/procfs.js';
import { windowsFixture, windowsFixturesDir, windowsLineOf, windowsToolsMissing } from './windowsFixtures.js';
import {
  closeTestPrefix,
  field,
  newSessionId,
  PREFIX_TIMEOUT_MS,
  ProxyGdb,
  testCacheDir,
  testPrefix,
} from './wineHarness.js';

const missing = windowsToolsMissing();

interface Held {
  terminal: ProgramTerminal;
  held: HeldProgram;
  gdb: ProxyGdb;
  /** ms: launcher start to report, to winedbg listening, to GDB's first stop. */
  timings: { launch: number; listen: number; connect: number; total: number };
}

const open: Held[] = [];

function output(h: Held): string {
  return h.terminal.output.read(0, 1 << 22).data.toString('utf8');
}

/** The program started held on a pty of ours, winedbg attached, its entry bytes put back. */
async function startHeld(name: string, args: string[] = []): Promise<Held> {
  const prefix = await testPrefix();
  const terminal = await ProgramTerminal.open();
  const sessionId = newSessionId();
  const launcher = await ensureLauncher(testCacheDir);
  const began = Date.now();
  const held = await launchHeld({
    prefix,
    launcher,
    program: windowsFixture(name),
    args,
    outputPath: terminal.path,
    sessionId,
    cwd: windowsFixturesDir,
  });
  const gdb = await ProxyGdb.start({ windowsPid: held.windowsPid }, windowsFixture(name), sessionId);
  await gdb.send('data-write-memory-bytes', [`0x${held.entry.toString(16)}`, held.originalBytes]);
  const h: Held = {
    terminal,
    held,
    gdb,
    timings: { launch: held.startMs, listen: gdb.proxy.listenMs, connect: gdb.connectMs, total: Date.now() - began },
  };
  open.push(h);
  return h;
}

async function close(h: Held): Promise<void> {
  await h.gdb.close();
  stopLauncher(h.held);
  h.terminal.close();
}

describe.skipIf(missing !== undefined)(`program output and input under Wine${missing ? ` (${missing})` : ''}`, () => {
  beforeAll(async () => {
    await testPrefix();
    await ensureLauncher(testCacheDir);
  }, PREFIX_TIMEOUT_MS);
  afterEach(async () => {
    for (const h of open.splice(0)) await close(h);
  });
  afterAll(closeTestPrefix, 120_000);

  it('attaching to the held program stops it before its first line; the main thread waits at the entry point', async () => {
    const h = await startHeld('echo');
    console.log(`held start: ${JSON.stringify(h.timings)}`);
    const threads = (await h.gdb.send('thread-info')).results['threads'] as Record<string, unknown>[];
    const atEntry = threads.filter((t) => BigInt(String(field(t, 'frame', 'addr'))) === h.held.entry);
    expect(atEntry).toHaveLength(1);
    expect(output(h)).toBe('');
  });

  it('output reaches our pty, a line written to stdin reaches fgets, and the breakpoint after it sees the line', async () => {
    const h = await startHeld('echo');
    await h.gdb.send('break-insert', [`echo.c:${windowsLineOf('echo.c', 'after-read')}`]);
    const mark = h.gdb.records.length;
    await h.gdb.send('exec-continue');
    await until(() => output(h).includes('ready'), 'the program to print ready', 30_000);
    h.held.stdin.write('hello\n');
    const stop = await h.gdb.stopped(mark);
    expect(stop['reason']).toBe('breakpoint-hit');
    expect((await h.gdb.send('data-evaluate-expression', ['line'])).results['value']).toMatch(/^"hello\\n\\000/);
    const end = await h.gdb.resume();
    expect(end['reason']).toBe('exited-normally');
    await until(() => output(h).includes('err:5'), 'the last output', 10_000);
    // The C runtime writes text mode: \n becomes \r\n. No console escapes, nothing echoed.
    expect(output(h)).toBe('ready\r\ngot:hello\r\nerr:5\r\n');
  });

  it('closing stdin is end of input: fgets returns NULL and the program exits 3', async () => {
    const h = await startHeld('echo');
    const mark = h.gdb.records.length;
    await h.gdb.send('exec-continue');
    await until(() => output(h).includes('ready'), 'the program to print ready', 30_000);
    h.held.stdin.end();
    const end = await h.gdb.stopped(mark);
    expect(end['reason']).toBe('exited');
    expect(end['exit-code']).toBe('03');
    await until(() => output(h).includes('eof'), 'the program to print eof', 10_000);
  });

  it('a crash: the output printed before it is on the pty, the stop is SIGSEGV with the exception traced', async () => {
    const h = await startHeld('access', ['write']);
    const since = h.gdb.proxy.trace.count;
    const stop = await h.gdb.resume();
    expect(stop['signal-name']).toBe('SIGSEGV');
    expect(field(stop, 'frame', 'func')).toBe('store');
    expect((await h.gdb.proxy.trace.waitFor(since, 5000))?.name).toBe('EXCEPTION_ACCESS_VIOLATION');
    await until(() => output(h).includes('mode write'), 'the output before the crash', 10_000);
    expect(output(h)).toBe('mode write\r\n');
  });

  it('bulk output: 200 lines of 95 characters arrive whole and in order', async () => {
    const h = await startHeld('noisy', ['200']);
    const began = Date.now();
    const end = await h.gdb.resume();
    expect(end['reason']).toBe('exited-normally');
    console.log(`200 lines through the pty: exit ${Date.now() - began} ms after continue`);
    // 95 characters and \r\n a line.
    await until(() => output(h).length >= 200 * 97, 'all the output', 30_000);
    expect(output(h).length).toBe(200 * 97);
    const lines = output(h).split('\r\n');
    expect(lines.slice(0, 200).map((l) => l.slice(0, 4))).toEqual(
      Array.from({ length: 200 }, (_, i) => String(i).padStart(4, '0')),
    );
  });

  it('closing one session ends its program, launcher and winedbg; another session and the wineserver keep running', async () => {
    const prefix = await testPrefix();
    const a = await startHeld('hang');
    const b = await startHeld('hang');
    for (const h of [a, b]) await h.gdb.send('exec-continue');
    const aProcs = sessionProcesses(a.gdb.proxy.sessionId);
    const bProcs = sessionProcesses(b.gdb.proxy.sessionId);
    expect(aProcs.map((p) => p.command)).toEqual(expect.arrayContaining([expect.stringMatching(/hang\.exe$/)]));
    const server = prefix.serverPid();
    const shared = prefixProcesses(prefix.dir).filter((p) =>
      /system32\\(services|winedevice|plugplay|svchost|rpcss)\.exe/.test(p.command),
    );
    await close(a);
    open.splice(open.indexOf(a), 1);
    await until(
      () => aProcs.every((p) => readProc(p.pid) === undefined || readProc(p.pid)?.state === 'Z'),
      "session A's processes to end",
      10_000,
    );
    expect(bProcs.every((p) => readProc(p.pid)?.state !== undefined && readProc(p.pid)?.state !== 'Z')).toBe(true);
    expect(server === undefined ? undefined : readProc(server)?.state).toMatch(/^[RS]$/);
    for (const p of shared) expect(readProc(p.pid)?.state).toMatch(/^[RS]$/);
    // B still answers its debugger.
    const before = b.gdb.records.length;
    await b.gdb.send('exec-interrupt');
    expect((await b.gdb.stopped(before))['signal-name']).toBe('SIGTRAP');
  });
});
