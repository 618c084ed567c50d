// Finding an executable the way a shell would, without a shell.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first of `names` found executable on `path` (default: PATH), or undefined. */
export function findOnPath(names: readonly string[], path = process.env['PATH'] ?? ''): string | undefined {
  for (const name of names) {
    for (const dir of path.split(delimiter)) {
      if (!dir) continue;
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
