// The one-way dependency rule of HOUSE-STYLE.md, checked over the source text:
//   transport → server → session → backends → protocols → (model, process, util)
// A module imports its own layer or a lower one. At the bottom, model imports nothing but
// itself, util nothing but itself, process only itself and util. transport (HTTP and the unix
// socket, beside stdio) reaches the rest only through server (createServer) and util. src/main.ts
// and src/cli/ are entry points and may import anything; nothing else may import them.
//
// And the seam: server/ and session/ know two files of backends/ (debuggerBackend.ts, the
// interface, and registry.ts, the factory), and no debugger's words: no GDB command or MI name,
// no glibc internal. The server never reaches past a session's methods to its backend.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';

const srcDir = join(repoRoot, 'src');

type Layer = 'entry' | 'transport' | 'server' | 'session' | 'backends' | 'protocols' | 'model' | 'process' | 'util';

/** Height of each layer; the bottom three share 0 and have their own rules below. */
const rank: Record<Layer, number> = {
  entry: 6,
  transport: 5,
  server: 4,
  session: 3,
  backends: 2,
  protocols: 1,
  model: 0,
  process: 0,
  util: 0,
};

/** What each bottom layer (and transport) may import besides itself. */
const bottomAllows: Partial<Record<Layer, readonly Layer[]>> = {
  model: [],
  util: [],
  process: ['util'],
  transport: ['server', 'util'],
};

/** The layer of a path relative to src/ (posix separators), or undefined if it is in none. */
function layerOf(path: string): Layer | undefined {
  if (path === 'main.ts') return 'entry';
  const top = path.split('/')[0];
  if (top === 'cli') return 'entry';
  if (top !== undefined && top in rank && top !== 'entry' && path.includes('/')) return top as Layer;
  return undefined;
}

function mayImport(from: Layer, to: Layer): boolean {
  if (from === 'entry') return true;
  if (from === to) return true;
  const only = bottomAllows[from];
  if (only !== undefined) return only.includes(to);
  return rank[to] < rank[from];
}

/** Comments out of the way, so an import written in a comment is not taken for one. */
function stripComments(source: string): string {
  // `[^:]` before `//` keeps URLs in strings ("https://…") from being read as comments.
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

/** Module specifiers of `… from '…'`, `import '…'` and `import('…')`. */
function importsOf(source: string): string[] {
  const text = stripComments(source);
  const specs: string[] = [];
  const patterns = [
    /\bfrom\s*['"]([^'"\n]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
    /^\s*import\s*['"]([^'"\n]+)['"]/gm,
  ];
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) if (m[1] !== undefined) specs.push(m[1]);
  }
  return specs;
}

interface Violation {
  file: string;
  import: string;
  why: string;
}

/** Every breach of the rule among `files` (path relative to src/ → source text). */
function findViolations(files: ReadonlyMap<string, string>): Violation[] {
  const out: Violation[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file);
    if (from === undefined) {
      out.push({ file, import: '-', why: 'the file is in no known layer (add its folder to layers.test.ts)' });
      continue;
    }
    for (const spec of importsOf(source)) {
      if (!spec.startsWith('.')) continue; // a package or node: builtin
      const target = relative(srcDir, resolve(srcDir, dirname(file), spec))
        .split(sep)
        .join('/');
      if (target.startsWith('..')) {
        out.push({ file, import: spec, why: 'imports from outside src/' });
        continue;
      }
      const to = layerOf(target.replace(/\.js$/, '.ts'));
      if (to === undefined) {
        out.push({ file, import: spec, why: `imports ${target}, which is in no known layer` });
      } else if (!mayImport(from, to)) {
        out.push({ file, import: spec, why: `${from} may not import ${to === 'entry' ? 'an entry point' : to}` });
      }
    }
  }
  return out;
}

function sourceFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const full = join(entry.parentPath, entry.name);
    files.set(relative(dir, full).split(sep).join('/'), readFileSync(full, 'utf8'));
  }
  return files;
}

describe('layering of src/', () => {
  it('no module imports a higher layer', () => {
    const files = sourceFiles(srcDir);
    expect(files.size).toBeGreaterThan(10);
    const violations = findViolations(files);
    const report = violations.map((v) => `  src/${v.file}: import '${v.import}' (${v.why})`).join('\n');
    expect(
      violations,
      `dependency rule broken (server → session → backends → protocols → model/process/util):\n${report}`,
    ).toEqual([]);
  });

  it('the import scanner sees every form of import in the real sources', () => {
    // viewTypes.ts… every form must be seen, or the checks here would be blind. The real sources
    // use `from`; the scanner's other forms are pinned by the checker's own test below.
    const files = sourceFiles(srcDir);
    const backend = files.get('backends/gdb/gdbBackend.ts') ?? '';
    expect(importsOf(backend)).toContain('../../protocols/mi/miConnection.js');
  });

  it('server/ and session/ import only the interface and the registry from backends/', () => {
    const breaches = seamViolations(sourceFiles(srcDir));
    expect(breaches, `past the seam:\n${breaches.join('\n')}`).toEqual([]);
  });

  it('no GDB command, MI name or glibc internal appears above backends/', () => {
    const leaks = debuggerWords(sourceFiles(srcDir));
    expect(leaks, `debugger words above backends/:\n${leaks.join('\n')}`).toEqual([]);
  });
});

const SEAM = new Set(['backends/debuggerBackend.ts', 'backends/registry.ts']);

/** Imports of server/ and session/ files that reach into backends/ past the interface and the registry. */
function seamViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file);
    if (from !== 'server' && from !== 'session') continue;
    for (const spec of importsOf(source)) {
      if (!spec.startsWith('.')) continue;
      const target = relative(srcDir, resolve(srcDir, dirname(file), spec))
        .split(sep)
        .join('/')
        .replace(/\.js$/, '.ts');
      if (target.startsWith('backends/') && !SEAM.has(target)) out.push(`src/${file}: import '${spec}'`);
    }
    // The server talks to sessions through their methods, never to the backend behind one.
    if (from === 'server') {
      const code = stripComments(source);
      for (const m of code.matchAll(/[sS]ession\??\.(backend)\b|\.(query|mutate)\(/g)) {
        out.push(`src/${file}: uses session.${m[1] ?? m[2]}`);
      }
    }
  }
  return out;
}

/**
 * Words of a debugger's own language in code above backends/: MI operations, GDB convenience
 * registers, CLI commands, glibc's struct fields and symbols. Text meant for people (tool and
 * field descriptions, the guide, the prompts) may show GDB syntax as examples, so string
 * arguments of `.describe(` and `description:` fields are left out, as are guide.ts and prompts.ts.
 */
const DEBUGGER_WORDS: readonly [RegExp, string][] = [
  [/['"`]-(exec|data|stack|break|var|thread|target|file|gdb|interpreter)-[a-z-]+/, 'an MI command'],
  [/\bsend\(\s*['"`](exec|data|stack|break|var|target|file|gdb|interpreter)-/, 'an MI command'],
  [/\$(pc|sp|fp|rip|rsp|_siginfo|_exitcode)\b/, 'a GDB convenience variable or register'],
  [
    /['"`](info (symbol|frame|record|sharedlibrary|registers|threads|proc)|source \/|list \S+:|shell |starti\b|advance |record (full|stop)|when-ticks|when['"`])/,
    'a GDB CLI command',
  ],
  [/__data\.__owner|__abort_msg|pthread_mutex_t|__lll_lock_wait/, 'a glibc internal'],
  [/instanceof\s+Gdb|GdbBackend|['"`]i1['"`]/, 'the GDB backend by name'],
  [/\bLWP \(\\d|\/LWP/, 'GDB target-id parsing'],
];

function debuggerWords(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, source] of files) {
    const layer = layerOf(file);
    if (layer !== 'server' && layer !== 'session') continue;
    if (file === 'server/guide.ts' || file === 'server/prompts.ts') continue;
    const code = stripComments(source)
      .replace(/\.describe\(\s*(['"`])(?:\\.|(?!\1)[\s\S])*\1/g, '.describe(')
      .replace(/description:\s*(['"`])(?:\\.|(?!\1)[\s\S])*\1/g, 'description:');
    code.split('\n').forEach((line, i) => {
      for (const [re, what] of DEBUGGER_WORDS) {
        if (re.test(line)) out.push(`src/${file}:${i + 1}: ${what}: ${line.trim()}`);
      }
    });
  }
  return out;
}

describe('the checker itself', () => {
  const fake = new Map<string, string>([
    ['main.ts', "import { x } from './server/createServer.js';\nimport './cli/demo.js';"],
    ['cli/demo.ts', "import { GdbBackend } from '../backends/gdb/gdbBackend.js';"],
    ['server/tool.ts', "import type { Session } from '../session/session.js';\nimport { log } from '../util/log.js';"],
    ['session/bad.ts', "import { createServer } from '../server/createServer.js';"],
    ['backends/bad.ts', "export { Session } from '../session/session.js';"],
    ['protocols/mi/bad.ts', "type T = import('../../backends/debuggerBackend.js').DebuggerBackend;"],
    ['protocols/mi/ok.ts', "import { OutputRing } from '../../process/outputRing.js';\nimport { z } from 'zod';"],
    ['model/bad.ts', "import { DebuggerError } from '../util/errors.js';"],
    ['util/bad.ts', "import { OutputRing } from '../process/outputRing.js';"],
    ['process/ok.ts', "import { sleep } from '../util/deadline.js';\nimport { spawn } from 'node:child_process';"],
    ['process/bad.ts', "import type { Frame } from '../model/model.js';"],
    ['session/toEntry.ts', "import { main } from '../main.js';"],
    [
      'session/comment.ts',
      "// import { x } from '../server/x.js';\n/* import('../server/y.js') */\nconst url = 'https://x';",
    ],
    ['stray.ts', ''],
    ['util/outside.ts', "import { fixture } from '../../test/helpers/paths.js';"],
    [
      'transport/ok.ts',
      "import { createServer } from '../server/createServer.js';\nimport { log } from '../util/log.js';",
    ],
    ['transport/bad.ts', "import type { Session } from '../session/session.js';"],
    ['server/up.ts', "import { Metrics } from '../transport/metrics.js';"],
  ]);

  it('finds imports past the seam and the server reaching for a backend', () => {
    const found = seamViolations(
      new Map([
        ['server/a.ts', "import { GdbBackend } from '../backends/gdb/gdbBackend.js';"],
        ['server/b.ts', "import { createBackend } from '../backends/registry.js';\nconst x = session.backend.info;"],
        ['session/c.ts', "import type { DebuggerBackend } from '../backends/debuggerBackend.js';"],
        ['server/d.ts', "await session.query(['stopped'], 'x', (b) => b.stack({}));"],
      ]),
    );
    expect(found).toEqual([
      "src/server/a.ts: import '../backends/gdb/gdbBackend.js'",
      'src/server/b.ts: uses session.backend',
      'src/server/d.ts: uses session.query',
    ]);
  });

  it('finds debugger words in code, not in descriptions', () => {
    const found = debuggerWords(
      new Map([
        ['server/a.ts', "await evaluate('$pc', sel);"],
        ['session/b.ts', "const owner = '((pthread_mutex_t *) a)->__data.__owner';"],
        ['server/c.ts', "send('exec-continue', []);\nconst n = 'info symbol 0x1';\nconst m = 'list breakpoints';"],
        [
          'server/d.ts',
          "const s = z.string().describe('Address: 0x401000, $pc-16.');\nconst t = { description: 'info frame' };",
        ],
        ['server/guide.ts', 'const guide = `$pc and info frame`;'],
      ]),
    );
    expect(found.map((f) => f.split(': ')[0])).toEqual([
      'src/server/a.ts:1',
      'src/session/b.ts:1',
      'src/server/c.ts:1',
      'src/server/c.ts:2',
    ]);
  });

  it('reports exactly the breaches, with file and import', () => {
    const found = findViolations(fake).map((v) => `${v.file} ${v.import}`);
    expect(found.sort()).toEqual(
      [
        'backends/bad.ts ../session/session.js',
        'model/bad.ts ../util/errors.js',
        'process/bad.ts ../model/model.js',
        'protocols/mi/bad.ts ../../backends/debuggerBackend.js',
        'session/bad.ts ../server/createServer.js',
        'session/toEntry.ts ../main.js',
        'stray.ts -',
        'util/bad.ts ../process/outputRing.js',
        'util/outside.ts ../../test/helpers/paths.js',
        'transport/bad.ts ../session/session.js',
        'server/up.ts ../transport/metrics.js',
      ].sort(),
    );
  });
});
