// C++ values through GDB/MI with auto-load off, as the backend runs GDB: raw internals without
// libstdc++'s printers, and the readable forms with them loaded explicitly, within the same
// value bounds (print elements 200, print max-depth 8).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { miList, narrowVariables } from '../../../src/backends/gdb/gdbNarrow.js';
import {
  findLibstdcxxPrinters,
  loadLibstdcxxPrinters,
  type PrettyPrinterStatus,
  programUsesLibstdcxx,
} from '../../../src/backends/gdb/gdbPrettyPrinters.js';
import { GdbProbeProcess } from '../../../src/backends/gdb/gdbProbeProcess.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import { findOnPath } from '../../../src/util/which.js';
import { WAIT_MS } from '../../helpers/outcomes.js';
import { fixture, repoRoot } from '../../helpers/paths.js';

const run = promisify(execFile);
const cppDir = join(repoRoot, 'fixtures', 'cpp');
const program = fixture('cpp/containers');
const haveCompiler = findOnPath(['g++']) !== undefined;
const printers = findLibstdcxxPrinters();
const cacheDir = mkdtempSync(join(tmpdir(), 'dbg-mcp-pycache-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

/** The line of containers.cpp marked @ready. */
async function readyLine(): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const lines = (await readFile(join(cppDir, 'containers.cpp'), 'utf8')).split('\n');
  return lines.findIndex((l) => l.includes('/* @ready */')) + 1;
}

beforeAll(async () => {
  if (!haveCompiler) return;
  mkdirSync(fixture('cpp'), { recursive: true });
  let stale = true;
  try {
    stale = statSync(join(cppDir, 'containers.cpp')).mtimeMs > statSync(program).mtimeMs;
  } catch {
    // not built yet
  }
  if (stale) {
    await run('g++', ['-g', '-O0', '-fno-omit-frame-pointer', '-Wall', '-o', program, 'containers.cpp'], {
      cwd: cppDir,
    });
  }
}, 120_000);

const open: GdbProbeProcess[] = [];
afterEach(async () => {
  for (const gdb of open.splice(0)) await gdb.close();
});

/** gdb configured as the backend configures it, stopped at @ready. */
async function stoppedAtReady(): Promise<GdbProbeProcess> {
  const gdb = await GdbProbeProcess.start({
    gdbPath: 'gdb',
    env: childEnvironment(process.env),
    commandTimeoutMs: WAIT_MS,
    separateDebugInfo: true,
  });
  open.push(gdb);
  for (const setting of ['print elements 200', 'print repeats 10', 'print max-depth 8', 'may-call-functions off']) {
    await gdb.send('gdb-set', { raw: setting });
  }
  await gdb.send('file-exec-and-symbols', [program]);
  await gdb.send('break-insert', [`containers.cpp:${await readyLine()}`]);
  const stop = await gdb.resume(() => gdb.send('exec-run'));
  expect(stop?.['reason']).toBe('breakpoint-hit');
  return gdb;
}

async function locals(gdb: GdbProbeProcess): Promise<Record<string, string>> {
  const r = await gdb.send('stack-list-variables', ['--all-values']);
  return Object.fromEntries(narrowVariables(miList(r.results, 'variables')).map((v) => [v.name, v.value ?? '']));
}

const cli = (gdb: GdbProbeProcess) => (command: string) => gdb.cli(command);

describe.skipIf(!haveCompiler)('libstdc++ pretty-printers through MI', () => {
  it('knows the fixture is C++ and a C program is not', async () => {
    expect(await programUsesLibstdcxx(program)).toBe(true);
    expect(await programUsesLibstdcxx(fixture('hello'))).toBe(false);
  });

  it('without them, std types show their raw members', async () => {
    const gdb = await stoppedAtReady();
    const values = await locals(gdb);
    expect(values['greeting']).toMatch(/_M_dataplus/);
    expect(values['numbers']).toMatch(/_M_start/);
    expect(values['answer']).toMatch(/_M_head_impl/);
    // No xmethods either, and calls into the program are off: v[1] cannot be evaluated.
    await expect(gdb.evaluate('numbers[1]')).rejects.toThrow();
  });

  it.skipIf(!printers)('with them, values read as a person writes them', async (ctx) => {
    const gdb = await stoppedAtReady();
    const status = await loadLibstdcxxPrinters(cli(gdb), { cacheDir });
    expect(status.state).toBe('loaded');
    await ctx.annotate(`printers from ${status.pythonDir} loaded in ${status.ms} ms`);
    const values = await locals(gdb);
    expect(values['greeting']).toBe('"hello"');
    expect(values['numbers']).toBe('std::vector of length 3, capacity 3 = {1, 2, 3}');
    expect(values['ages']).toBe('std::map with 2 elements = {["ada"] = 36, ["alan"] = 41}');
    expect(values['answer']).toMatch(/^std::unique_ptr<int> = \{get\(\) = 0x[0-9a-f]+\}$/);
    expect(values['grid']).toBe(
      'std::vector of length 2, capacity 2 = {std::vector of length 2, capacity 2 = {1, 2}, std::vector of length 1, capacity 1 = {3}}',
    );
    expect(values['inv']).toBe(
      '{owner = "ada", items = std::vector of length 2, capacity 2 = {"pen", "ink"}, counts = std::map with 1 element = {["pen"] = std::vector of length 2, capacity 2 = {1, 2}}}',
    );
    // The same expressions through -data-evaluate-expression, and libstdc++'s xmethods: no call
    // into the program is made (may-call-functions is off).
    expect(await gdb.evaluate('numbers')).toBe(values['numbers']);
    expect(await gdb.evaluate('numbers[1]')).toBe('2');
    expect(await gdb.evaluate('numbers.size()')).toBe('3');
    expect(await gdb.evaluate('*answer')).toBe('42');
    expect(await gdb.evaluate('inv.owner')).toBe('"ada"');
  });

  it.skipIf(!printers)('keeps the value bounds: 200 elements, 8 levels', async () => {
    const gdb = await stoppedAtReady();
    await loadLibstdcxxPrinters(cli(gdb), { cacheDir });
    const values = await locals(gdb);
    const many = values['many'] ?? '';
    expect(many.startsWith('std::vector of length 1000, capacity 1000 = {7, 7')).toBe(true);
    expect(many.match(/7/g)).toHaveLength(200);
    expect(many.endsWith('...}')).toBe(true);
    // Each level is a struct and a vector: max-depth 8 shows four levels, then {...}.
    const deep = values['deep'] ?? '';
    expect(deep.match(/depth = /g)).toHaveLength(4);
    expect(deep).toContain('{...}');
  });

  it.skipIf(!printers)('loads once: a second load changes nothing', async () => {
    const gdb = await stoppedAtReady();
    expect((await loadLibstdcxxPrinters(cli(gdb), { cacheDir })).state).toBe('loaded');
    expect((await loadLibstdcxxPrinters(cli(gdb), { cacheDir })).state).toBe('loaded');
    const names = await gdb.cli('python print(sum(1 for p in gdb.pretty_printers if p.name == "libstdc++-v6"))');
    expect(names.console.trim()).toBe('1');
    // auto-load is still off for everything else.
    const autoLoad = await gdb.cli('show auto-load python-scripts');
    expect(autoLoad.console).toMatch(/off/);
  });

  it('with no printers found, nothing is loaded and values stay raw', async () => {
    const gdb = await stoppedAtReady();
    const status: PrettyPrinterStatus = await loadLibstdcxxPrinters(cli(gdb), { printers: null });
    expect(status.state).toBe('not-found');
    expect((await locals(gdb))['greeting']).toMatch(/_M_dataplus/);
  });
});
