// Line numbers of fixture lines tagged with a marker comment (/* @report */), so tests name a
// place in a fixture without hard-coding a number that an edit would shift.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from './paths.js';

export function lineOf(file: string, marker: string): number {
  const lines = readFileSync(join(fixturesDir, file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(`/* ${marker} */`));
  if (i < 0) throw new Error(`${file} has no line marked ${marker}`);
  return i + 1;
}

/** `file:line` of the marked line, as a GDB location. */
export function at(file: string, marker: string): string {
  return `${file}:${lineOf(file, marker)}`;
}
