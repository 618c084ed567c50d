import { isAbsolute, relative, sep } from 'node:path';

/** Whether `path` is `root` or inside it (both absolute and already resolved). */
export function isUnder(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
