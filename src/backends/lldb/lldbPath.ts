// Which lldb-dap to run: the one the operator named (--lldb-dap), else the newest `lldb-dap-NN` on
// PATH, else a plain `lldb-dap`. Distributions install it versioned (Debian: lldb-dap-22 from the
// lldb-22 package) and several versions can sit side by side. The path returned is absolute:
// lldb-dap rebuilds its own path from argv[0] (docs/notes/lldb-dap.md).

import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

const VERSIONED = /^lldb-dap-(\d+)$/;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Every lldb-dap on `path`, newest first (a versioned name before the plain one). */
export function lldbDapCandidates(path = process.env['PATH'] ?? ''): string[] {
  const versioned: { version: number; path: string }[] = [];
  const plain: string[] = [];
  for (const dir of path.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = VERSIONED.exec(name);
      if ((m || name === 'lldb-dap') && executable(join(dir, name))) {
        if (m?.[1]) versioned.push({ version: Number(m[1]), path: join(dir, name) });
        else plain.push(join(dir, name));
      }
    }
  }
  versioned.sort((a, b) => b.version - a.version);
  return [...versioned.map((v) => v.path), ...plain];
}

/** The lldb-dap to run, or undefined when there is none. */
export function findLldbDap(configured?: string): string | undefined {
  if (configured !== undefined) {
    if (configured.includes('/')) {
      const absolute = resolve(configured);
      return executable(absolute) ? absolute : undefined;
    }
    for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
      if (dir && isAbsolute(dir) && executable(join(dir, configured))) return join(dir, configured);
    }
    return undefined;
  }
  return lldbDapCandidates()[0];
}

/** `lldb-dap --version`: "lldb-dap: Debian LLVM version 22.1.8 … liblldb: lldb version 22.1.8". */
export function lldbDapVersion(path: string, env: Record<string, string>): Promise<string> {
  return new Promise((done) => {
    execFile(path, ['--version'], { env, timeout: 10_000 }, (error, stdout) => {
      if (error) {
        done('');
        return;
      }
      const lib = /liblldb: (.*)/.exec(stdout)?.[1]?.trim();
      const own = /lldb-dap: (.*)/.exec(stdout)?.[1]?.trim();
      done(lib ?? own ?? stdout.trim().split('\n')[0] ?? '');
    });
  });
}
