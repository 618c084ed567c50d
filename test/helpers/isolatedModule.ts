// Runs a piece of src/ in a child node process, for tests whose failure mode is a frozen event
// loop: in-process, a spinning write would hang the test worker with it, and vitest's own timers
// could never report it. The module and the src/ files it imports (relative imports, followed)
// are transpiled with TypeScript into test/.tmp/, where node_modules is still found above.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './paths.js';

const IMPORT = /\bfrom\s+'(\.{1,2}\/[^']+)\.js'/g;

/**
 * Transpiles `entry` (a path under src/, e.g. 'src/process/programTerminal.ts') and what it
 * imports; answers the file URL of the entry's JavaScript.
 */
export function isolatedModule(entry: string): string {
  const sources = new Map<string, string>();
  const todo = [resolve(repoRoot, entry)];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (sources.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    sources.set(file, text);
    for (const m of text.matchAll(IMPORT)) todo.push(resolve(dirname(file), `${m[1]}.ts`));
  }
  const hash = createHash('sha256');
  for (const [file, text] of [...sources].sort()) hash.update(file).update(text);
  const out = join(repoRoot, 'test', '.tmp', `isolated-${hash.digest('hex').slice(0, 16)}`);
  for (const [file, text] of sources) {
    const js = ts.transpileModule(text, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    }).outputText;
    const target = join(out, relative(repoRoot, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  // ESM by package scope: the copies need a package.json of their own saying so.
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  return `file://${join(out, entry).replace(/\.ts$/, '.js')}`;
}
