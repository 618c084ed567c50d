// The leak check (issue 30: scripts/leakCheck.mjs, leakSetup.ts and globalSetup.ts's teardown)
// fails on purpose: a vitest of its own runs a file that leaves a program running, and must fail
// twice, once for the file and once at the end of the run, naming the program's pid, command
// line and start time, and the file; then the program must be gone (the run's check kills it).
// A file that ends what it starts passes the same check.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, repoRoot } from '../helpers/paths.js';
import { alive, killQuietly, until } from '../helpers/procfs.js';

interface Run {
  code: number | null;
  output: string;
}

// The program the fixture files start: a copy of spin in a directory of the nested run's own
// (DBG_MCP_LEAK_CHECKOUT), so that this run's own programs, out of the tree for a moment while
// another file runs beside this one, are never counted by the nested run.
const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-leak-'));
const spin = join(dir, 'spin');
copyFileSync(fixture('spin'), spin);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** vitest on one fixture file of leakCheck/, with the project's setup and teardown. */
function nestedVitest(filter: string): Promise<Run> {
  // Not the outer run's worker settings: the nested vitest is a run of its own.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'TEST' && k !== 'NODE_ENV'),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--config',
        join(repoRoot, 'test', 'e2e', 'leakCheck', 'vitest.config.ts'),
        filter,
      ],
      // The leaked program is certain to stay: no need for the whole grace given to exiting ones.
      {
        cwd: repoRoot,
        env: { ...env, DBG_MCP_LEAK_CHECKOUT: dir, DBG_MCP_LEAK_GRACE_MS: '1000', NO_COLOR: '1' },
        maxBuffer: 1 << 24,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('the leak check', () => {
  it('fails a run whose test leaves a program running, naming it, the file and when it started', async () => {
    const run = await nestedVitest('leaves.fixture');
    const pid = Number(/leaked pid (\d+)/.exec(run.output)?.[1]);
    try {
      expect(pid, run.output).toBeGreaterThan(0);
      expect(run.code, run.output).not.toBe(0);
      const named = new RegExp(
        `pid ${pid} \`${spin}\` started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, started during test/e2e/leakCheck/leaves.fixture.ts`,
      );
      // The file's own check, then the run's.
      expect(run.output).toMatch(
        /test\/e2e\/leakCheck\/leaves\.fixture\.ts left 1 process\(es\) running after its last test/,
      );
      expect(run.output).toMatch(/leak check: 1 process\(es\) of this run still alive at its end \(killed now\)/);
      expect(run.output.match(new RegExp(named.source, 'g')) ?? []).toHaveLength(2);
      // Out of the tree once the nested worker ended: the run's check found it by its executable.
      expect(run.output).toMatch(new RegExp(`${named.source} \\(re-parented: its parent is gone\\)`));
      // Killed by the run's check: it does not outlive the run that reported it.
      await until(() => !alive(pid), `leaked pid ${pid} to be gone`, 30_000);
    } finally {
      if (pid > 0) killQuietly(pid);
    }
  });

  it('passes a run whose test ends what it starts', async () => {
    const run = await nestedVitest('clean.fixture');
    expect(run.output).toMatch(/1 passed/);
    expect(run.output).not.toMatch(/leak check|left \d+ process/);
    expect(run.code, run.output).toBe(0);
  });
});
