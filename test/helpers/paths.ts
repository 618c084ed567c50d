import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = join(repoRoot, 'fixtures', 'c');

/** Path of a built fixture program. */
export function fixture(name: string): string {
  return join(fixturesDir, 'build', name);
}

/**
 * A test server's command line: `args`, with no warm debugger unless the test asks for one
 * (`--warm N` or DBG_MCP_WARM): a pooled gdb is started after each session's start and almost
 * no test uses it (the pool's own tests are e2e/warmPool.test.ts).
 */
export function serverArgs(args: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): string[] {
  return args.includes('--warm') || env['DBG_MCP_WARM'] !== undefined ? [...args] : [...args, '--warm', '0'];
}
