// The commit this copy of dbg-mcp was built from, for `--version`: read from the checkout it runs
// in (a git work tree or worktree), with "-dirty" when tracked files differ from it. A copy
// installed from a package has no checkout: then the commit is not known, and says so.

import { execFileSync } from 'node:child_process';

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** "1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty", or undefined outside a git checkout. */
export function sourceCommit(root: string): string | undefined {
  // Only the package's own repository: a copy unpacked inside someone else's work tree must
  // not report that tree's commit.
  const top = git(root, ['rev-parse', '--show-toplevel']);
  if (top === undefined || top !== root) return undefined;
  const commit = git(root, ['rev-parse', '--short=12', 'HEAD']);
  if (!commit) return undefined;
  const changed = git(root, ['status', '--porcelain', '--untracked-files=no']);
  return changed ? `${commit}-dirty` : commit;
}
