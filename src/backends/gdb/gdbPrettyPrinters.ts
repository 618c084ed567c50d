// libstdc++'s pretty-printers, loaded explicitly. GDB runs with `auto-load off` (a program's
// directory must not run code in our debugger), which also keeps libstdc++'s own
// `libstdc++.so.6.0.N-gdb.py` from loading, so std::string, vector, map and unique_ptr print as
// their raw internals (`_M_dataplus = {…}`), while LLDB formats them. Here the printers are found
// on disk and registered by two lines of Python of our own; auto-load stays off for everything.
//
// Where distributions put them: the path is written in the auto-load script
// (`pythondir = '/usr/share/gcc/python'`, read as text, never run); failing that, the known
// places: Debian and Ubuntu /usr/share/gcc/python (older: /usr/share/gcc-N/python), Fedora,
// Arch and GCC's own default /usr/share/gcc-N/python, Gentoo /usr/share/gcc-data/CHOST/N/python,
// a GCC built from source under /usr/local.
//
// Cost, measured on a 2-core VM (GDB 13, Python 3.11): importing printers.py and xmethods.py
// takes 50-130 ms, because GDB sets Python's dont_write_bytecode and so compiles them on every
// start. With a bytecode cache of our own (sys.pycache_prefix) it takes 8-11 ms after the first.

import { type Dirent, existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hasStringContaining, hasStringStarting, readElfStrings } from '../../util/elfStrings.js';

export interface LibstdcxxPrinters {
  /** The directory that holds the `libstdcxx` package (goes on Python's sys.path). */
  pythonDir: string;
  /** Where the path came from: libstdc++'s auto-load script, or a known location. */
  foundBy: 'auto-load script' | 'known location';
}

export type PrettyPrinterState = 'loaded' | 'no-python' | 'not-found' | 'failed';

export interface PrettyPrinterStatus {
  state: PrettyPrinterState;
  /** What was loaded from where, or why nothing was: a doctor line. */
  detail: string;
  pythonDir?: string;
  ms: number;
}

export interface FindPrintersOptions {
  /** GDB's auto-load directories to read libstdc++'s script from. */
  autoLoadDirs?: readonly string[];
  /** Parent directories whose `gcc*` children may hold `python/libstdcxx`. */
  shareDirs?: readonly string[];
}

const AUTO_LOAD_DIRS = ['/usr/share/gdb/auto-load', '/usr/local/share/gdb/auto-load'];
const SHARE_DIRS = ['/usr/share', '/usr/local/share'];
const SCRIPT = /^libstdc\+\+\.so\.[\d.]+-gdb\.py$/;

function hasPrinters(dir: string): boolean {
  return existsSync(join(dir, 'libstdcxx', 'v6', 'printers.py'));
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** libstdc++'s auto-load scripts under `root`, depth-first and bounded. */
function scripts(root: string, depth = 0, found: string[] = []): string[] {
  if (depth > 8 || found.length >= 16) return found;
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const e of entries) {
    const path = join(root, e.name);
    if (e.isDirectory()) scripts(path, depth + 1, found);
    else if (SCRIPT.test(e.name)) found.push(path);
  }
  return found;
}

/** The `pythondir = '…'` line of libstdc++'s auto-load script: read, never executed. */
export function pythonDirOfScript(text: string): string | undefined {
  const m = /^pythondir\s*=\s*(['"])([^'"\n]+)\1\s*$/m.exec(text);
  return m?.[2];
}

/** Orders gcc-N directories newest first: the newest printers know the layouts of older ones. */
function byVersionDescending(a: string, b: string): number {
  const v = (s: string): number[] => (s.match(/\d+/g) ?? []).map(Number);
  const [x, y] = [v(a), v(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (y[i] ?? -1) - (x[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** Finds this machine's libstdc++ printers; undefined when it has none. */
export function findLibstdcxxPrinters(options: FindPrintersOptions = {}): LibstdcxxPrinters | undefined {
  for (const root of options.autoLoadDirs ?? AUTO_LOAD_DIRS) {
    // The native library's script first (/usr/lib/…), cross-compilers' after (/usr/aarch64-…).
    const found = scripts(root).sort((a, b) => Number(b.includes('/usr/lib/')) - Number(a.includes('/usr/lib/')));
    for (const script of found) {
      let text: string;
      try {
        text = readFileSync(script, 'utf8');
      } catch {
        continue;
      }
      const dir = pythonDirOfScript(text);
      if (dir && hasPrinters(dir)) return { pythonDir: dir, foundBy: 'auto-load script' };
    }
  }
  for (const share of options.shareDirs ?? SHARE_DIRS) {
    const candidates: string[] = [];
    for (const name of list(share)
      .filter((n) => /^gcc(?:-?\d[\w.]*)?$/.test(n))
      .sort(byVersionDescending)) {
      candidates.push(join(share, name, 'python'));
    }
    // Gentoo: /usr/share/gcc-data/<chost>/<version>/python.
    for (const chost of list(join(share, 'gcc-data'))) {
      for (const version of list(join(share, 'gcc-data', chost)).sort(byVersionDescending)) {
        candidates.push(join(share, 'gcc-data', chost, version, 'python'));
      }
    }
    const dir = candidates.find(hasPrinters);
    if (dir) return { pythonDir: dir, foundBy: 'known location' };
  }
  return undefined;
}

let found: LibstdcxxPrinters | null | undefined;

/** findLibstdcxxPrinters once per server (null: none here); it reads directories, sessions need not. */
export function libstdcxxPrintersOnce(): LibstdcxxPrinters | null {
  if (found === undefined) found = findLibstdcxxPrinters() ?? null;
  return found;
}

/** Where compiled printer bytecode is kept between runs: $XDG_CACHE_HOME or ~/.cache. */
export function defaultPrinterCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'dbg-mcp', 'python');
}

/**
 * The one GDB command that loads the printers (and libstdc++'s xmethods, which make
 * `v[1]` and `v.size()` work without calling into the program). It registers them for every
 * program (`None`), once: run twice, it leaves the first registration alone. Bytecode is
 * written only under `cacheDir`, and Python's settings are restored after the import.
 */
export function libstdcxxPrinterCommand(pythonDir: string, cacheDir?: string): string {
  const program = [
    'import sys, gdb',
    `path, cache = ${JSON.stringify(pythonDir)}, ${cacheDir === undefined ? 'None' : JSON.stringify(cacheDir)}`,
    "if not any(getattr(p, 'name', '') == 'libstdc++-v6' for p in gdb.pretty_printers):",
    '    if path not in sys.path:',
    '        sys.path.insert(0, path)',
    '    saved = (sys.dont_write_bytecode, sys.pycache_prefix)',
    '    if cache:',
    '        sys.dont_write_bytecode, sys.pycache_prefix = False, cache',
    // The package imports printers.py and xmethods.py inside this call: it stays in the try.
    '    try:',
    '        from libstdcxx.v6 import register_libstdcxx_printers',
    '        register_libstdcxx_printers(None)',
    '    finally:',
    '        sys.dont_write_bytecode, sys.pycache_prefix = saved',
  ].join('\n');
  // A JSON string is a valid Python string literal, and keeps the command on one line.
  return `python exec(${JSON.stringify(program)}, {})`;
}

/** Runs one GDB CLI command; rejects with GDB's error message. */
export type GdbCli = (command: string) => Promise<unknown>;

/**
 * Loads the printers through `cli`. Never throws: the status says what happened, for the log and
 * the doctor. `printers: null` means "known to be absent" (skips the search).
 */
export async function loadLibstdcxxPrinters(
  cli: GdbCli,
  options: { printers?: LibstdcxxPrinters | null; cacheDir?: string } = {},
): Promise<PrettyPrinterStatus> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  const printers = options.printers === undefined ? findLibstdcxxPrinters() : options.printers;
  if (!printers) {
    return {
      state: 'not-found',
      detail:
        "libstdc++'s pretty-printers were not found (no libstdcxx/v6/printers.py under /usr/share/gcc*/python): " +
        'C++ standard types show as their raw members',
      ms: ms(),
    };
  }
  try {
    await cli(libstdcxxPrinterCommand(printers.pythonDir, options.cacheDir));
    return {
      state: 'loaded',
      detail: `libstdc++ pretty-printers loaded from ${printers.pythonDir} (auto-load stays off)`,
      pythonDir: printers.pythonDir,
      ms: ms(),
    };
  } catch (e) {
    const message = (e as Error).message;
    if (/Python scripting is not supported/i.test(message)) {
      return {
        state: 'no-python',
        detail: 'this gdb was built without Python, so it cannot load pretty-printers: C++ standard types show raw',
        pythonDir: printers.pythonDir,
        ms: ms(),
      };
    }
    return {
      state: 'failed',
      detail: `loading libstdc++ pretty-printers from ${printers.pythonDir} failed: ${message.slice(0, 200)}`,
      pythonDir: printers.pythonDir,
      ms: ms(),
    };
  }
}

/**
 * True when a program uses libstdc++: it needs the shared library, or carries std:: symbols
 * (linked statically, or templates instantiated in it). A program without it needs no printers.
 */
export async function programUsesLibstdcxx(path: string): Promise<boolean> {
  const strings = await readElfStrings(path);
  if (!strings) return false;
  return (
    hasStringContaining(strings, 'libstdc++.so') ||
    hasStringStarting(strings, '_ZNSt') ||
    hasStringStarting(strings, '_ZNKSt') ||
    hasStringStarting(strings, '_ZSt')
  );
}
