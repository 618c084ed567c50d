// A stand-in for the dbg-mcp server's Wine side, run as a process of its own by cleanup.test.ts
// (bundled with rolldown), so the test can end it the ways a server ends: it leases a prefix,
// starts sessions like the backend will (winedbg + GDB on a stopped program; a held program that
// started a child in its console and one in a console of its own), prints READY with what it
// started, and then waits. On SIGTERM or the end of its stdin it closes everything in order; a
// SIGKILL leaves the work to the guards.
import {
  ensureLauncher,
  type HeldProgram,
  launchHeld,
  stopLauncher,
} from '../../../src/backends/winedbg/wineLauncher.js';
import { ProgramTerminal } from '../../../src/process/programTerminal.js';
import { windowsFixture, windowsFixturesDir } from './windowsFixtures.js';
import { newSessionId, ProxyGdb, testCacheDir, testPrefix } from './wineHarness.js';

async function main(): Promise<void> {
  const prefix = await testPrefix();
  process.on('exit', () => prefix.closeSync());

  // A program winedbg started, stopped at its first instruction, GDB connected.
  const stopped = await ProxyGdb.start({ program: windowsFixture('hang'), args: [] }, windowsFixture('hang'));

  // Held programs that started a child: one in the same console, one with CREATE_NEW_CONSOLE
  // (a Unix session of its own).
  const launcher = await ensureLauncher(testCacheDir);
  const held: { h: HeldProgram; gdb: ProxyGdb; terminal: ProgramTerminal; sessionId: string }[] = [];
  for (const mode of ['same-console', 'new-console']) {
    const terminal = await ProgramTerminal.open();
    const sessionId = newSessionId();
    const h = await launchHeld({
      prefix,
      launcher,
      program: windowsFixture('spawn'),
      args: [mode],
      outputPath: terminal.path,
      sessionId,
      cwd: windowsFixturesDir,
    });
    const gdb = await ProxyGdb.start({ windowsPid: h.windowsPid }, windowsFixture('spawn'), sessionId);
    await gdb.send('data-write-memory-bytes', [`0x${h.entry.toString(16)}`, h.originalBytes]);
    let mark = gdb.records.length;
    await gdb.send('exec-continue');
    const started = Date.now();
    const stops: string[] = [];
    const printed = () => terminal.output.read(0, 1 << 16).data.toString();
    // "child N" (the child's line, or the parent's "started child N"; in one console the two
    // can interleave mid-line).
    while (!/child \d+/.test(printed())) {
      // The attach's own break-in can land after the continue on a busy machine (a new thread in
      // DbgUiRemoteBreakin): such a stop is resumed, a few times at most, and named if it fails.
      const stop = gdb.records
        .slice(mark)
        .find(
          (r) =>
            r.kind === 'exec' &&
            'results' in r &&
            r.class === 'stopped' &&
            !/^exited/.test(String(r.results['reason'] ?? '')),
        );
      if (stop && stops.length < 5) {
        stops.push(JSON.stringify(stop).slice(0, 300));
        mark = gdb.records.length;
        await gdb.send('exec-continue');
      }
      if (Date.now() - started > 60_000) {
        throw new Error(
          `spawn.exe ${mode} did not start its child; stops: ${stops.join(' | ') || 'none'}; it printed: ${JSON.stringify(printed().slice(-500))}`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    held.push({ h, gdb, terminal, sessionId });
  }

  const report = {
    prefix: prefix.dir,
    server: prefix.serverPid(),
    sessions: [stopped.proxy.sessionId, ...held.map((x) => x.sessionId)],
    gdbs: [stopped.gdb.pid, ...held.map((x) => x.gdb.gdb.pid)],
  };
  process.stdout.write(`READY ${JSON.stringify(report)}\n`);

  let closing = false;
  const closeAll = async (why: string): Promise<void> => {
    if (closing) return;
    closing = true;
    process.stderr.write(`closing: ${why}\n`);
    await stopped.close();
    for (const x of held) {
      await x.gdb.close();
      stopLauncher(x.h);
      x.terminal.close();
    }
    await prefix.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void closeAll('SIGTERM'));
  process.stdin.on('end', () => void closeAll('stdin ended'));
  process.stdin.resume();
}

main().catch((e: unknown) => {
  process.stderr.write(`holder failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(2);
});
