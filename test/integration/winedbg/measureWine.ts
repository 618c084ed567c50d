// Timings for docs/notes/winedbg.md, not a test (timing belongs in the bench, not in vitest):
//   node -e "import('rolldown').then(r => r.build({input: 'test/integration/winedbg/measureWine.ts',
//     platform: 'node', external: [/^@lydell/], output: {file: 'test/.tmp/measureWine.mjs'}}))"
//   node test/.tmp/measureWine.mjs [--cold]
// Prints one JSON object: medians (and the spread) of each operation, and the load average.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WinedbgPrompt } from '../../../src/backends/winedbg/winedbgPrompt.js';
import { ensureLauncher, launchHeld, stopLauncher } from '../../../src/backends/winedbg/wineLauncher.js';
import { WinePrefix } from '../../../src/backends/winedbg/winePrefix.js';
import { ProgramTerminal } from '../../../src/process/programTerminal.js';
import { windowsFixture, windowsFixturesDir } from './windowsFixtures.js';
import { newSessionId, ProxyGdb, testCacheDir, testPrefix } from './wineHarness.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const results: Record<string, unknown> = {
  load: loadavg()
    .map((l) => l.toFixed(1))
    .join(' '),
};

function summary(values: number[]): { median: number; min: number; max: number; n: number } {
  const s = [...values].sort((a, b) => a - b);
  return {
    median: Math.round(s[Math.floor(s.length / 2)] ?? 0),
    min: Math.round(s[0] ?? 0),
    max: Math.round(s[s.length - 1] ?? 0),
    n: s.length,
  };
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function runWine(prefix: WinePrefix, args: string[], stdio: 'pipes' | 'pty'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(prefix.wineTools.wine, args, {
      env: prefix.environment(),
      stdio: ['ignore', 'pipe', 'ignore'],
      cwd: windowsFixturesDir,
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('exit', () => resolve(out));
    child.on('error', reject);
    void stdio;
  });
}

async function main(): Promise<void> {
  if (process.argv.includes('--cold')) {
    const cache = mkdtempSync(join(tmpdir(), 'dbg-mcp-cold-'));
    const p = await WinePrefix.open({ cacheDir: cache });
    const report = await p.prepare();
    results['cold prefix'] = { ...report, sizeMB: Math.round(p.info().sizeBytes / 1e6) };
    await p.close();
    rmSync(cache, { recursive: true, force: true });
  }
  const prefix = await testPrefix();

  // wine start of a console program, with the persistent server warm.
  const warm: number[] = [];
  for (let i = 0; i < ROUNDS; i++)
    warm.push(await timed(() => runWine(prefix, [windowsFixture('locals')], 'pipes').then(() => {})));
  results['wine start, persistent server'] = summary(warm);

  // Time to the first stop: winedbg starting the program, and the held program attached to.
  const launch: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const exe = windowsFixture('locals');
    let g: ProxyGdb | undefined;
    launch.push(
      await timed(async () => {
        g = await ProxyGdb.start({ program: exe, args: [] }, exe);
      }),
    );
    await g?.close();
  }
  results['first stop, winedbg starts the program'] = summary(launch);

  const launcher = await ensureLauncher(testCacheDir);
  const held: number[] = [];
  const heldParts: { launch: number; attach: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const terminal = await ProgramTerminal.open();
    const sessionId = newSessionId();
    let g: ProxyGdb | undefined;
    let stop: (() => void) | undefined;
    let parts = { launch: 0, attach: 0 };
    held.push(
      await timed(async () => {
        const h = await launchHeld({
          prefix: prefix,
          launcher,
          program: windowsFixture('locals'),
          args: [],
          outputPath: terminal.path,
          sessionId,
        });
        stop = () => stopLauncher(h);
        const t = Date.now();
        g = await ProxyGdb.start({ windowsPid: h.windowsPid }, windowsFixture('locals'), sessionId);
        await g.send('data-write-memory-bytes', [`0x${h.entry.toString(16)}`, h.originalBytes]);
        parts = { launch: h.startMs, attach: Date.now() - t };
      }),
    );
    heldParts.push(parts);
    await g?.close();
    stop?.();
    terminal.close();
  }
  results['first stop, held program attached'] = {
    ...summary(held),
    launch: summary(heldParts.map((p) => p.launch)),
    attach: summary(heldParts.map((p) => p.attach)),
  };

  // Interrupt latency and the trace channel's volume per stop.
  {
    const exe = windowsFixture('hang');
    const g = await ProxyGdb.start({ program: exe, args: [] }, exe);
    const lat: number[] = [];
    let lines = 0;
    for (let i = 0; i < ROUNDS; i++) {
      await g.send('exec-continue');
      await new Promise((r) => setTimeout(r, 300));
      const before = g.records.length;
      const linesBefore = g.proxy.trace.otherLines;
      lat.push(
        await timed(async () => {
          await g.send('exec-interrupt');
          await g.stopped(before);
        }),
      );
      await g.send('stack-list-frames');
      lines += g.proxy.trace.otherLines - linesBefore;
    }
    results['interrupt to *stopped'] = summary(lat);
    results['trace lines per stop (packets)'] = Math.round(lines / ROUNDS);
    await g.close();
  }

  // The prompt: first prompt, then a command.
  {
    const started = Date.now();
    const p = await WinedbgPrompt.start({ prefix: prefix });
    const first = Date.now() - started;
    const times: number[] = [];
    for (let i = 0; i < 20; i++) times.push((await p.execute('info process')).ms);
    results['prompt'] = { firstPromptMs: first, infoProcess: summary(times) };
    await p.close();
  }

  // Output: 200 lines of 95 characters through our pty as a file, through pipes.
  {
    const terminal = await ProgramTerminal.open();
    const sessionId = newSessionId();
    const h = await launchHeld({
      prefix: prefix,
      launcher,
      program: windowsFixture('noisy'),
      args: ['200'],
      outputPath: terminal.path,
      sessionId,
    });
    const g = await ProxyGdb.start({ windowsPid: h.windowsPid }, windowsFixture('noisy'), sessionId);
    await g.send('data-write-memory-bytes', [`0x${h.entry.toString(16)}`, h.originalBytes]);
    const ms = await timed(async () => {
      await g.resume();
      while (terminal.output.read(0, 1 << 22).data.length < 200 * 97) await new Promise((r) => setTimeout(r, 5));
    });
    results['200 lines, held program on the pty (under winedbg)'] = Math.round(ms);
    await g.close();
    stopLauncher(h);
    terminal.close();
    results['200 lines, plain wine, pipes'] = Math.round(
      await timed(() => runWine(prefix, [windowsFixture('noisy'), '200'], 'pipes').then(() => {})),
    );
  }
  const dir = prefix.dir;
  await prefix.close();

  // Without a persistent server (the caller's own prefix is used so): every start pays for a
  // server and wineboot's services.
  const cold: number[] = [];
  const locks = mkdtempSync(join(tmpdir(), 'dbg-mcp-noserver-'));
  try {
    const explicit = await WinePrefix.open({ dir, cacheDir: locks });
    for (let i = 0; i < Math.min(ROUNDS, 3); i++) {
      try {
        execFileSync(explicit.wineTools.wineserver, ['-k'], { env: explicit.environment() });
      } catch {
        // no server running
      }
      await new Promise((r) => setTimeout(r, 500));
      cold.push(await timed(() => runWine(explicit, [windowsFixture('locals')], 'pipes').then(() => {})));
    }
    execFileSync(explicit.wineTools.wineserver, ['-k'], { env: explicit.environment() });
  } catch {
    // the last server is gone already
  } finally {
    rmSync(locks, { recursive: true, force: true });
  }
  results['wine start, no server running'] = summary(cold);
  process.stdout.write(`${JSON.stringify(results, null, 1)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  },
);
