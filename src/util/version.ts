// The package's own root and version. The code runs from dist/ (tsc's modules, two levels below
// the root) or from the bundle dist/dbg-mcp.js (one level): the root is the nearest directory
// above with dbg-mcp's package.json.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;
let version: string | undefined;

export function packageRoot(): string {
  if (root === undefined) {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (;;) {
      const candidate = join(dir, 'package.json');
      if (existsSync(candidate)) {
        try {
          if ((JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'dbg-mcp') break;
        } catch {
          // not ours
        }
      }
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    root = dir;
  }
  return root;
}

export function packageVersion(): string {
  if (version === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
      version = pkg.version ?? '0.0.0';
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}

/** The server's entry point for clients: the bundle when built, else tsc's main.js. */
export function serverEntry(): string {
  const bundle = join(packageRoot(), 'dist', 'dbg-mcp.js');
  return existsSync(bundle) ? bundle : join(packageRoot(), 'dist', 'main.js');
}
