// winedbg's own prompt, driven by WinedbgPrompt: what it tells that GDB through the proxy does not
// (the prefix's processes, another process's modules and threads, the exception record in
// Windows terms), what it costs a command, and what it does worse than GDB.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WinedbgPrompt } from '../../../src/backends/winedbg/winedbgPrompt.js';
import {
  parseExceptionLine,
  parseInfoProcess,
  parseInfoShare,
  parseInfoThread,
} from '../../../src/backends/winedbg/winedbgText.js';
import { killWineProcesses, SESSION_VARIABLE, sessionProcesses } from '../../../src/backends/winedbg/wineProcesses.js';
import { readProc } from '../../helpers/procfs.js';
import { windowsFixture, windowsFixturesDir, windowsToolsMissing } from './windowsFixtures.js';
import { closeTestPrefix, newSessionId, PREFIX_TIMEOUT_MS, testPrefix } from './wineHarness.js';

const missing = windowsToolsMissing();
const prompts: WinedbgPrompt[] = [];
const programs: { child: ChildProcess; sessionId: string }[] = [];

async function prompt(args: string[] = []): Promise<WinedbgPrompt> {
  const p = await WinedbgPrompt.start({ prefix: await testPrefix(), args });
  prompts.push(p);
  return p;
}

/** A program under plain `wine`, debugged by no one (pipes for stdio: no console). */
async function runFree(name: string): Promise<{ child: ChildProcess; sessionId: string }> {
  const prefix = await testPrefix();
  const sessionId = newSessionId();
  const child = spawn(prefix.wineTools.wine, [windowsFixture(name)], {
    env: prefix.environment({ [SESSION_VARIABLE]: sessionId }),
    cwd: windowsFixturesDir,
    detached: true,
    stdio: 'ignore',
  });
  const p = { child, sessionId };
  programs.push(p);
  return p;
}

describe.skipIf(missing !== undefined)(`winedbg's prompt${missing ? ` (${missing})` : ''}`, () => {
  beforeAll(async () => {
    await testPrefix();
  }, PREFIX_TIMEOUT_MS);
  afterEach(async () => {
    for (const p of prompts.splice(0)) await p.close();
    for (const p of programs.splice(0)) await killWineProcesses(() => sessionProcesses(p.sessionId));
  });
  afterAll(closeTestPrefix, 120_000);

  it('info process lists the prefix’s Windows processes, winedbg itself marked; a command costs milliseconds', async () => {
    const started = Date.now();
    const p = await prompt();
    const startMs = Date.now() - started;
    const times: number[] = [];
    let last = '';
    for (let i = 0; i < 10; i++) {
      const r = await p.execute('info process');
      times.push(r.ms);
      last = r.text;
    }
    console.log(`prompt: first prompt ${startMs} ms; info process ${times.map((t) => t.toFixed(1)).join(', ')} ms`);
    const procs = parseInfoProcess(last);
    expect(procs.find((x) => x.mark === 'self')?.name).toBe('winedbg.exe');
    expect(procs.some((x) => x.name === 'services.exe')).toBe(true);
  });

  it('attach by Windows pid, info share and info thread of a program no one debugs, detach: it runs on', async () => {
    const free = await runFree('hang');
    const p = await prompt();
    let pid: number | undefined;
    for (let i = 0; i < 150 && pid === undefined; i++) {
      pid = parseInfoProcess((await p.execute('info process')).text).find((x) => x.name === 'hang.exe')?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 200));
    }
    expect(pid).toBeDefined();
    const attach = await p.execute(`attach 0x${(pid as number).toString(16)}`);
    console.log(`attach: ${attach.ms.toFixed(1)} ms: ${JSON.stringify(attach.text)}`);
    const share = await p.execute('info share');
    const modules = parseInfoShare(share.text);
    expect(modules.map((m) => m.name)).toEqual(expect.arrayContaining(['hang', 'ntdll', 'kernel32']));
    // After an attach winedbg has not read the symbols yet: "Deferred" until something needs them.
    expect(modules.find((m) => m.name === 'hang')?.debugInfo).toMatch(/^(Deferred|Dwarf)/);
    const threads = parseInfoThread((await p.execute('info thread')).text);
    expect(threads.find((g) => g.pid === pid)?.threads.length).toBeGreaterThanOrEqual(1);
    const detach = await p.execute('detach');
    console.log(`info share ${share.ms.toFixed(1)} ms, detach ${detach.ms.toFixed(1)} ms`);
    const unix = sessionProcesses(free.sessionId).find((x) => x.command.endsWith('hang.exe'));
    await new Promise((r) => setTimeout(r, 500));
    expect(readProc(unix?.pid as number)?.state).toBe('R');
  });

  it('a crash under the prompt: the exception record says write, the address, the pc', async () => {
    const p = await prompt([windowsFixture('access'), 'write']);
    expect(p.banner).toMatch(/WineDbg starting on pid/);
    const r = await p.execute('cont');
    const exception = parseExceptionLine(r.text);
    console.log(
      `prompt crash: ${JSON.stringify(exception, (_k, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v))}`,
    );
    expect(exception).toMatchObject({ firstChance: false, access: 'write', address: 0n, bits: 64 });
    expect(r.text).toMatch(/Backtrace:\n=>0 0x[0-9a-f]+ store\+0x[0-9a-f]+\(p=0+, value=0xa\) \[.*access\.c:12\]/);
    await p.execute('kill');
  });

  it('where the prompt is worse than GDB: no file:line breakpoints, function breakpoints before the prologue', async () => {
    const p = await prompt([windowsFixture('locals')]);
    expect((await p.execute('break locals.c:25')).text).toMatch(/Unknown line number/);
    expect((await p.execute('break square')).text).toMatch(/Breakpoint 1 at 0x[0-9a-f]+ square \[.*locals\.c:10\]/);
    const stop = await p.execute('cont');
    // Line 10 is the function's opening line: its argument is not stored yet.
    expect(stop.text).toMatch(/Stopped on breakpoint 1 .*locals\.c:10/);
    await p.execute('kill');
  });
});
