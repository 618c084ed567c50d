#!/usr/bin/env node
// The one build of the fixture programs, shared by the tests (test/helpers/globalSetup.ts), the
// bench (bench/benchSupport.mjs) and a hand at the shell:
//
//   node scripts/buildFixtures.mjs
//
// An output is rebuilt when its key changes, never because of a timestamp: the key hashes what
// decides the binary, i.e. the sources and the local headers they include, the compiler's
// arguments, the compiler (its resolved path and `--version`) and the directory it compiles from
// (which GCC writes into the debug info as DW_AT_comp_dir). Timestamps were how the bench's
// build, with absolute source paths, got reused by the tests, which expect `crash.c` (19 tests
// failed after `npm run bench`).
//
// Each output gets `<output>.stamp` beside it: the key and the SHA-256 of the output it describes.
// Both are written under a temporary name and renamed into place, so two processes building at
// once each leave whole files, and a stamp that does not match its binary (the other process
// renamed its binary last, or `make` rebuilt it) makes the next run build again.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const fixtureSourceDir = path.join(repoRoot, 'fixtures', 'c');
export const fixtureBuildDir = path.join(fixtureSourceDir, 'build');

/** The flags of fixtures/c/Makefile: what the tests' line numbers and frames are written for. */
export const CFLAGS = ['-g', '-O0', '-fno-omit-frame-pointer', '-Wall'];

/**
 * How each source in fixtures/c becomes a program of its own name: by extension. A `.cpp` file
 * dropped there is built by g++ with no other change.
 */
export const RULES = {
  '.c': { compiler: 'gcc', flags: CFLAGS, libs: ['-lpthread'] },
  '.cpp': { compiler: 'g++', flags: CFLAGS, libs: ['-lpthread'] },
};

/**
 * Programs beyond one per source, one entry each. `optional`: built only where its compiler is
 * installed (the tests that need it say what to install); a required one missing fails the build.
 * The compiler runs in the source directory, or in `cwd` relative to it (fixtures/cpp for C++
 * sources kept there), and sources are named relative to where it runs, so the debug info says
 * `crash.c` wherever the checkout lies. An `output` may name a subdirectory of the build
 * (`sanitized/asan_errors`); an entry whose `output` is a source's own name replaces that
 * source's build by RULES (a `.c` file meant only for a sanitizer build).
 */
/** Where Debian's binutils keep the i386pe linker script mingw's x86_64 toolchain lacks. */
const I386PE_SCRIPT = [
  '/usr/lib/x86_64-linux-gnu/ldscripts/i386pe.x',
  '/usr/x86_64-w64-mingw32/lib/ldscripts/i386pe.x',
].find((p) => existsSync(p));

/**
 * A Windows program of fixtures/windows, built with mingw into build/windows/NAME.exe, for the
 * winedbg backend. DWARF 4: winedbg's own symbol reader does not read gcc 12's default DWARF 5
 * (GDB reads both).
 */
const windows = (name) => ({
  output: `windows/${name}.exe`,
  compiler: 'x86_64-w64-mingw32-gcc',
  cwd: '../windows',
  sources: [`${name}.c`],
  flags: ['-g', '-gdwarf-4', '-O0', '-Wall'],
  optional: true,
});

/** A sanitized build of fixtures/c/NAME.c into build/sanitized/NAME. */
const sanitized = (sanitizer, name) => ({
  output: `sanitized/${name}`,
  compiler: 'gcc',
  sources: [`${name}.c`],
  flags: [...CFLAGS, `-fsanitize=${sanitizer}`],
});

export const EXTRA_FIXTURES = [
  // Without debug info, for the warnings about it.
  { output: 'hello_nodebug', compiler: 'gcc', sources: ['hello.c'], flags: ['-O0', '-s'] },
  // AArch64, for QEMU user mode: static, and dynamic against the cross sysroot.
  {
    output: 'crash-aarch64',
    compiler: 'aarch64-linux-gnu-gcc',
    sources: ['crash.c'],
    flags: ['-g', '-O0', '-fno-omit-frame-pointer', '-static'],
    optional: true,
  },
  {
    output: 'crash-aarch64-dyn',
    compiler: 'aarch64-linux-gnu-gcc',
    sources: ['crash.c'],
    flags: ['-g', '-O0', '-fno-omit-frame-pointer'],
    optional: true,
  },
  // Windows programs under Wine (the winedbg backend), one entry each.
  windows('access'),
  windows('assert'),
  windows('deadlock'),
  windows('debugbreak'),
  windows('divzero'),
  windows('echo'),
  windows('hang'),
  windows('locals'),
  windows('noisy'),
  windows('overflow'),
  windows('raise'),
  windows('sleeper'),
  windows('spawn'),
  windows('threads'),
  // 32-bit, no C runtime (mingw's x86_64 toolchain has none for i386): linked with the i386pe
  // script, to be refused where wine32 is absent. Left out where the script is not installed.
  ...(I386PE_SCRIPT === undefined
    ? []
    : [
        {
          output: 'windows/tiny32.exe',
          compiler: 'x86_64-w64-mingw32-gcc',
          cwd: '../windows',
          sources: ['tiny32.c'],
          flags: [
            '-m32',
            '-O1',
            '-nostdlib',
            '-nostartfiles',
            `-Wl,-T,${I386PE_SCRIPT}`,
            '-Wl,-m,i386pe',
            '-Wl,-e,_mainCRTStartup@0',
            '-Wl,--subsystem,console',
          ],
          optional: true,
        },
      ]),
  // Sanitized builds of C fixtures (ASan, UBSan, LSan), for the evidence of sanitizer reports.
  sanitized('address', 'asan_errors'),
  sanitized('undefined', 'ubsan_errors'),
  sanitized('leak', 'lsan_leak'),
  // C++, kept in fixtures/cpp: libstdc++ values and exceptions.
  { output: 'cpp/containers', compiler: 'g++', cwd: '../cpp', sources: ['containers.cpp'], flags: CFLAGS },
  { output: 'cpp/throw', compiler: 'g++', cwd: '../cpp', sources: ['throw.cpp'], flags: CFLAGS },
];

/** Every fixture of `sourceDir`: one per source by RULES, then EXTRA_FIXTURES (which win by output). */
export function fixtureEntries(sourceDir = fixtureSourceDir, extra = EXTRA_FIXTURES) {
  const byOutput = new Map();
  for (const file of readdirSync(sourceDir).sort()) {
    const ext = path.extname(file);
    const rule = RULES[ext];
    if (rule === undefined) continue;
    byOutput.set(file.slice(0, -ext.length), { output: file.slice(0, -ext.length), sources: [file], ...rule });
  }
  for (const entry of extra) byOutput.set(entry.output, entry);
  return [...byOutput.values()];
}

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        error.stderr = stderr;
        reject(error);
      } else resolve({ stdout, stderr });
    });
  });
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The first executable called `name` on PATH, resolved through links; undefined when none. */
function resolveCommand(name) {
  if (name.includes('/')) return existsSync(name) ? realpathSync(name) : undefined;
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    const candidate = path.join(dir || '.', name);
    try {
      if (statSync(candidate).isFile()) return realpathSync(candidate);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

// One `--version` per compiler and process: the same answer for every output it builds.
const compilerIds = new Map();

/**
 * The compiler to run (its real path) and what identifies it (that path and the first line of
 * `--version`, which names the release); undefined when it is not installed.
 */
function compilerIdentity(name) {
  let id = compilerIds.get(name);
  if (id === undefined) {
    const resolved = resolveCommand(name);
    id =
      resolved === undefined
        ? Promise.resolve(undefined)
        : run(resolved, ['--version'], {}).then(({ stdout }) => ({
            path: resolved,
            id: `${resolved} ${stdout.split('\n')[0]?.trim()}`,
          }));
    compilerIds.set(name, id);
  }
  return id;
}

const INCLUDE = /^\s*#\s*include\s+"([^"]+)"/gm;

/** The sources and every local header they include ("…", not <…>), each with its hash. */
function sourceHashes(cwd, sources) {
  const seen = new Map();
  const visit = (name) => {
    const file = path.resolve(cwd, name);
    if (seen.has(file)) return;
    const text = readFileSync(file);
    seen.set(file, [path.relative(cwd, file), sha256(text)]);
    for (const m of text.toString('utf8').matchAll(INCLUDE)) {
      const header = path.resolve(path.dirname(file), m[1]);
      if (existsSync(header)) visit(path.relative(cwd, header));
    }
  };
  for (const s of sources) visit(s);
  return [...seen.values()];
}

/** Where the compiler runs for `entry`: the source directory, or its `cwd` relative to it. */
const compileDir = (entry, sourceDir) => path.resolve(sourceDir, entry.cwd ?? '.');

/** The compiler's argv for `entry`, with the output path left as a placeholder. */
function compilerArgs(entry, outputPath) {
  return [...(entry.flags ?? []), '-o', outputPath, ...entry.sources, ...(entry.libs ?? [])];
}

/**
 * The key of one output: a hash of everything that decides its bytes. Exported for the tests of
 * this module; undefined when the compiler is not installed.
 */
export async function fixtureKey(entry, sourceDir = fixtureSourceDir) {
  return (await keyInputs(entry, sourceDir))?.key;
}

/** The key and what it hashes (kept in the stamp, to read why an output was rebuilt). */
async function keyInputs(entry, sourceDir) {
  const compiler = await compilerIdentity(entry.compiler);
  if (compiler === undefined) return undefined;
  const cwd = compileDir(entry, sourceDir);
  const inputs = {
    sources: sourceHashes(cwd, entry.sources),
    argv: compilerArgs(entry, '<output>'),
    compiler: compiler.id,
    cwd,
  };
  return { key: sha256(JSON.stringify(inputs)), inputs, compiler: compiler.path };
}

function readStamp(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function outputHash(file) {
  try {
    return sha256(readFileSync(file));
  } catch {
    return undefined;
  }
}

let tempCounter = 0;
/** A name in `dir` no other process or call uses: same directory, so rename is atomic. */
const tempName = (dir, base) => path.join(dir, `.${base}.${process.pid}.${++tempCounter}.tmp`);

/** Writes `text` to `file` through a temporary name and a rename. */
function writeAtomically(file, text) {
  const temp = tempName(path.dirname(file), path.basename(file));
  writeFileSync(temp, text);
  renameSync(temp, file);
}

/** Builds one entry if its key changed; answers 'built', 'current' or a skip reason. */
async function buildOne(entry, sourceDir, outDir) {
  const keyed = await keyInputs(entry, sourceDir);
  if (keyed === undefined) {
    if (entry.optional) return { status: 'skipped', reason: `${entry.compiler} is not installed` };
    throw new Error(`cannot build fixture ${entry.output}: ${entry.compiler} is not installed`);
  }
  const target = path.join(outDir, entry.output);
  const stampFile = `${target}.stamp`;
  const { key, inputs, compiler } = keyed;
  const stamp = readStamp(stampFile);
  if (stamp?.key === key && stamp.output === outputHash(target)) return { status: 'current' };
  mkdirSync(path.dirname(target), { recursive: true });
  const temp = tempName(path.dirname(target), path.basename(target));
  try {
    await run(compiler, compilerArgs(entry, temp), { cwd: compileDir(entry, sourceDir) });
  } catch (e) {
    rmSync(temp, { force: true });
    throw new Error(
      `building fixture ${entry.output} failed: ${entry.compiler} ${compilerArgs(entry, entry.output).join(' ')}\n${e.stderr ?? e.message}`,
    );
  }
  const hash = outputHash(temp);
  renameSync(temp, target);
  writeAtomically(stampFile, `${JSON.stringify({ key, output: hash, inputs }, null, 2)}\n`);
  return { status: 'built' };
}

/**
 * Builds every fixture whose key changed. Options: `sourceDir` (where the sources are and the
 * compiler runs), `outDir` (default `<sourceDir>/build`), `entries` (default fixtureEntries),
 * `jobs` (compilers at once). Answers the outputs built, current and skipped (with the reason).
 */
export async function buildFixtures(options = {}) {
  const sourceDir = path.resolve(options.sourceDir ?? fixtureSourceDir);
  const outDir = path.resolve(options.outDir ?? path.join(sourceDir, 'build'));
  const entries = options.entries ?? fixtureEntries(sourceDir);
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  mkdirSync(outDir, { recursive: true });
  const result = { built: [], current: [], skipped: [] };
  const queue = [...entries];
  const errors = [];
  const worker = async () => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
      try {
        const r = await buildOne(entry, sourceDir, outDir);
        if (r.status === 'skipped') result.skipped.push({ output: entry.output, reason: r.reason });
        else result[r.status].push(entry.output);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, entries.length) }, worker));
  if (errors.length > 0) throw errors[0];
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await buildFixtures();
  console.log(`fixtures: ${r.built.length} built, ${r.current.length} current, ${r.skipped.length} skipped`);
  for (const s of r.skipped) console.log(`  skipped ${s.output}: ${s.reason}`);
}
