import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = join(repoRoot, 'fixtures', 'c');

/** Path of a built fixture program. */
export function fixture(name: string): string {
  return join(fixturesDir, 'build', name);
}
