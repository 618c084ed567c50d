// Builds the fixture programs once per test run.
import { execFileSync } from 'node:child_process';
import { fixturesDir } from './paths.js';

export default function setup(): void {
  execFileSync('make', ['-s', '-C', fixturesDir], { stdio: 'inherit' });
}
