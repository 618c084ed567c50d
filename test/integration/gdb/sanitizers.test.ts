// Sanitized programs under GDB (driven over MI, the program on a pty as the backend runs it):
// with the options sanitizerEnvironment gives, a report stops the program alive with SIGABRT,
// the report is in its output and reads right, and the stack reaches the user's function
// below the sanitizer runtime's frames.
import { execFile } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isExitStop, narrowExit, narrowStack, narrowStop } from '../../../src/backends/gdb/gdbNarrow.js';
import { GdbProbeProcess } from '../../../src/backends/gdb/gdbProbeProcess.js';
import { type Sanitizer, sanitizerEnvironment, sanitizersIn } from '../../../src/backends/runtime/sanitizerBuild.js';
import { isSanitizerRuntimeFrame, parseSanitizerReports } from '../../../src/backends/runtime/sanitizerReport.js';
import type { Frame } from '../../../src/model/model.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import { ProgramTerminal } from '../../../src/process/programTerminal.js';
import type { MiTuple } from '../../../src/protocols/mi/miRecords.js';
import { WAIT_MS } from '../../helpers/outcomes.js';
import { fixturesDir } from '../../helpers/paths.js';
import { alive } from '../../helpers/procfs.js';

const run = promisify(execFile);
const outDir = join(fixturesDir, 'build', 'sanitized');

// Until the shared fixture builder has them: source, compiler, flags.
const BUILDS = {
  asan_errors: ['asan_errors.c', '-fsanitize=address'],
  ubsan_errors: ['ubsan_errors.c', '-fsanitize=undefined'],
  lsan_leak: ['lsan_leak.c', '-fsanitize=leak'],
} as const;
type Build = keyof typeof BUILDS;

async function build(name: Build): Promise<string> {
  const [source, flag] = BUILDS[name];
  const out = join(outDir, name);
  const stale = (() => {
    try {
      return statSync(join(fixturesDir, source)).mtimeMs > statSync(out).mtimeMs;
    } catch {
      return true;
    }
  })();
  if (stale) {
    // Compiled from the fixtures directory with the bare name, as the shared fixtures are.
    await run('gcc', ['-g', '-O0', '-fno-omit-frame-pointer', '-Wall', flag, '-o', out, source], { cwd: fixturesDir });
  }
  return out;
}

interface Run {
  gdb: GdbProbeProcess;
  terminal: ProgramTerminal;
  stop: MiTuple | undefined;
  output: () => Promise<string>;
}

const open: Run[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) {
    await r.gdb.close();
    r.terminal.close();
  }
});

/** Runs `program mode` under gdb on a pty with `env` set for the program; returns at the first stop or exit. */
async function runUnderGdb(
  program: string,
  args: string[],
  env: Record<string, string>,
  breakAt?: string,
): Promise<Run> {
  const terminal = await ProgramTerminal.open();
  const gdb = await GdbProbeProcess.start({
    gdbPath: 'gdb',
    env: childEnvironment(process.env),
    commandTimeoutMs: WAIT_MS,
    programTerminal: terminal.path,
    // As the backend runs: separate debug files are read (libasan's frames have their names
    // either way; libc's static functions get theirs only from libc6-dbg).
    separateDebugInfo: true,
  });
  const r: Run = {
    gdb,
    terminal,
    stop: undefined,
    output: async () => {
      await terminal.sync(2000);
      return terminal.output.read(0, 1 << 20).data.toString('utf8');
    },
  };
  open.push(r);
  await gdb.send('file-exec-and-symbols', [program]);
  await gdb.send('exec-arguments', args);
  for (const [name, value] of Object.entries(env)) await gdb.send('gdb-set', { raw: `environment ${name}=${value}` });
  if (breakAt) {
    await gdb.send('gdb-set', { raw: 'breakpoint pending on' });
    await gdb.send('break-insert', ['-f', breakAt]);
  }
  r.stop = await gdb.resume(() => gdb.send('exec-run'));
  return r;
}

async function pidOf(gdb: GdbProbeProcess): Promise<number> {
  const groups = (await gdb.send('list-thread-groups')).results['groups'];
  const pid = Array.isArray(groups) ? (groups[0] as MiTuple | undefined)?.['pid'] : undefined;
  return Number(pid);
}

async function stack(gdb: GdbProbeProcess): Promise<Frame[]> {
  return narrowStack((await gdb.send('stack-list-frames')).results);
}

/** Frames above the first user frame: the sanitizer runtime's and libc's (raise, abort). */
function depthOfUser(frames: Frame[], fn: string): number {
  return frames.findIndex((f) => f.function === fn);
}

const env = (sanitizers: Sanitizer[]) => sanitizerEnvironment(undefined, undefined, sanitizers).additions;

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  await Promise.all((Object.keys(BUILDS) as Build[]).map(build));
}, 120_000);

describe('sanitizersIn', () => {
  it('tells each sanitizer build apart from its ELF alone', async () => {
    expect(await sanitizersIn(await build('asan_errors'))).toEqual(['address']);
    expect(await sanitizersIn(await build('ubsan_errors'))).toEqual(['undefined']);
    expect(await sanitizersIn(await build('lsan_leak'))).toEqual(['leak']);
  });
});

describe('AddressSanitizer under gdb', () => {
  it.for([
    ['use-after-free', 'heap-use-after-free', 'READ', 4, 'read_after_free', 11],
    ['stack-overflow', 'stack-buffer-overflow', 'WRITE', 1, 'fill_name', 19],
    ['heap-overflow', 'heap-buffer-overflow', 'WRITE', 1, 'write_past_heap', 15],
  ] as const)(
    '%s stops alive with SIGABRT and the report reads as %s',
    async ([mode, kind, op, size, fn, line], ctx) => {
      const program = await build('asan_errors');
      const r = await runUnderGdb(program, [mode], env(['address']));
      if (!r.stop || isExitStop(r.stop)) throw new Error(`expected a stop, got ${JSON.stringify(r.stop)}`);
      expect(narrowStop(r.stop).signal?.name).toBe('SIGABRT');
      expect(alive(await pidOf(r.gdb))).toBe(true);
      const output = await r.output();
      // color=never took: a pty would otherwise get colour escapes.
      expect(output).not.toMatch(/\x1b\[/);
      const reports = parseSanitizerReports(output);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({
        sanitizer: 'AddressSanitizer',
        kind,
        access: { op, size },
        firstUserFrame: { function: fn, line },
      });
      const frames = await stack(r.gdb);
      const depth = depthOfUser(frames, fn);
      expect(depth).toBeGreaterThan(0);
      // Every frame above the user's is the runtime's or libc's, and the crash view can tell.
      const above = frames.slice(0, depth);
      const runtime = above.filter((f) => isSanitizerRuntimeFrame(f));
      expect(runtime.map((f) => f.function)).toContain('__sanitizer::Die');
      expect(isSanitizerRuntimeFrame(frames[depth] as Frame)).toBe(false);
      await ctx.annotate(
        `user frame at level ${depth}; above it: ${above.map((f) => f.function ?? f.library ?? '??').join(' < ')}`,
      );
    },
  );

  it('a program that does nothing wrong exits normally (without detect_leaks=0 it aborts at exit)', async (ctx) => {
    const program = await build('asan_errors');
    const clean = await runUnderGdb(program, ['none'], env(['address']));
    expect(clean.stop && isExitStop(clean.stop) ? narrowExit(clean.stop) : clean.stop).toEqual({ code: 0 });
    const leaky = await runUnderGdb(program, ['none'], { ASAN_OPTIONS: 'abort_on_error=1:color=never' });
    if (!leaky.stop || isExitStop(leaky.stop)) throw new Error(`expected a stop, got ${JSON.stringify(leaky.stop)}`);
    expect(narrowStop(leaky.stop).signal?.name).toBe('SIGABRT');
    const frames = await stack(leaky.gdb);
    expect(frames.map((f) => f.function)).toContain('__lsan::CheckForLeaks');
    const [report] = parseSanitizerReports(await leaky.output());
    expect(report?.kind).toBe('unavailable-under-ptrace');
    await ctx.annotate('with leak checks on, every ASan program stops with SIGABRT in __lsan::CheckForLeaks at exit');
  });

  it('a breakpoint on __sanitizer::Die stops after the report is printed, closer to the user frame', async (ctx) => {
    const program = await build('asan_errors');
    const r = await runUnderGdb(program, ['use-after-free'], env(['address']), '__sanitizer::Die');
    if (!r.stop || isExitStop(r.stop) || narrowStop(r.stop).reason !== 'breakpoint-hit') {
      // libasan without its symbol table (Die is not exported) never resolves the breakpoint.
      ctx.skip(`the breakpoint on __sanitizer::Die did not stop the program (${JSON.stringify(r.stop)})`);
      return;
    }
    expect(parseSanitizerReports(await r.output())[0]?.kind).toBe('heap-use-after-free');
    const depth = depthOfUser(await stack(r.gdb), 'read_after_free');
    await ctx.annotate(`at __sanitizer::Die the user frame is at level ${depth}`);
    expect(depth).toBe(4);
  });
});

describe('UndefinedBehaviorSanitizer under gdb', () => {
  it('signed-integer-overflow stops alive with SIGABRT (halt_on_error, abort_on_error) and reads right', async (ctx) => {
    const program = await build('ubsan_errors');
    const r = await runUnderGdb(program, ['signed-overflow'], env(['undefined']));
    if (!r.stop || isExitStop(r.stop)) throw new Error(`expected a stop, got ${JSON.stringify(r.stop)}`);
    expect(narrowStop(r.stop).signal?.name).toBe('SIGABRT');
    expect(alive(await pidOf(r.gdb))).toBe(true);
    const [report, ...more] = parseSanitizerReports(await r.output());
    expect(more).toEqual([]);
    expect(report).toMatchObject({
      sanitizer: 'UndefinedBehaviorSanitizer',
      kind: 'signed-integer-overflow',
      firstUserFrame: { function: 'add_interest', line: 13 },
    });
    const frames = await stack(r.gdb);
    const depth = depthOfUser(frames, 'add_interest');
    expect(frames.slice(0, depth).filter((f) => isSanitizerRuntimeFrame(f)).length).toBeGreaterThanOrEqual(4);
    await ctx.annotate(
      `user frame at level ${depth}; above it: ${frames
        .slice(0, depth)
        .map((f) => f.function ?? '??')
        .join(' < ')}`,
    );
  });

  it('without halt_on_error the same program reports and runs on to its exit', async () => {
    const program = await build('ubsan_errors');
    const r = await runUnderGdb(program, ['signed-overflow'], { UBSAN_OPTIONS: 'color=never' });
    expect(r.stop && isExitStop(r.stop)).toBe(true);
    expect(parseSanitizerReports(await r.output())[0]?.kind).toBe('signed-integer-overflow');
  });
});

describe('LeakSanitizer under gdb', () => {
  it('cannot run under ptrace: the output says so and the parser turns it into plain words', async () => {
    const program = await build('lsan_leak');
    const r = await runUnderGdb(program, [], {});
    expect(r.stop && isExitStop(r.stop) ? narrowExit(r.stop) : r.stop).toEqual({ code: 23 });
    const [report] = parseSanitizerReports(await r.output());
    expect(report).toMatchObject({ sanitizer: 'LeakSanitizer', kind: 'unavailable-under-ptrace' });
    expect(report?.hint).toMatch(/run the program without the debugger/i);
  });

  it('with the debugger defaults (detect_leaks=0) the program exits normally, with no report', async () => {
    const program = await build('lsan_leak');
    const r = await runUnderGdb(program, [], env(['leak']));
    expect(r.stop && isExitStop(r.stop) ? narrowExit(r.stop) : r.stop).toEqual({ code: 0 });
    expect(parseSanitizerReports(await r.output())).toEqual([]);
  });
});
