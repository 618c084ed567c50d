// Whether rr can record on this machine, asked of rr itself (a recording of /bin/true), once per
// test file and independently of the code under test: the tests of the two paths (recording works;
// the refusal explains why) each skip with this reason where their path cannot be seen.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from '../../src/util/which.js';

export interface RrHere {
  /** rr's path, undefined where it is not installed. */
  path: string | undefined;
  records: boolean;
  /** rr's last line where it cannot record, or why it is not tried. */
  why: string;
}

let answer: RrHere | undefined;

export function rrHere(): RrHere {
  if (answer) return answer;
  const path = findOnPath(['rr']);
  if (path === undefined) {
    answer = { path, records: false, why: 'rr is not installed (.ci/run installs it)' };
    return answer;
  }
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-rr-probe-'));
  try {
    execFileSync(path, ['record', '-o', join(dir, 'probe'), '/bin/true'], { stdio: 'pipe', timeout: 60_000 });
    answer = { path, records: true, why: 'rr records on this machine' };
  } catch (e) {
    const said = String((e as { stderr?: Buffer }).stderr ?? e).trim();
    answer = { path, records: false, why: `rr cannot record on this machine: ${said.split('\n').pop() ?? said}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return answer;
}
