// Issue 11, item 6: `env: {LD_PRELOAD: <library outside the roots>}` (also LD_AUDIT,
// LD_LIBRARY_PATH, GCONV_PATH) made the loader run code from anywhere in a program the roots
// allowed. dbg_start (a launch, and a program given with a remote target) and dbg_record now take
// such variables only when every path they name lies under the roots, symlinks resolved.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/util/which.js';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';

let root: string;
let outside: string;
let program: string;

/** A shared object whose constructor prints a marker: loading it is running it. */
function buildMarkerLibrary(path: string, marker: string): void {
  const source = `${path}.c`;
  writeFileSync(
    source,
    `#include <unistd.h>\n__attribute__((constructor)) static void hello(void) { write(1, "${marker}\\n", ${marker.length + 1}); }\n`,
  );
  execFileSync('gcc', ['-shared', '-fPIC', '-o', path, source]);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'dbg-mcp-envroot-'));
  outside = mkdtempSync(join(tmpdir(), 'dbg-mcp-outside-'));
  program = join(root, 'print_env');
  copyFileSync(fixture('print_env'), program);
  buildMarkerLibrary(join(outside, 'evil.so'), 'EVIL-LOADED');
  mkdirSync(join(root, 'lib'));
  buildMarkerLibrary(join(root, 'lib', 'good.so'), 'GOOD-LOADED');
  // A path under the root that leads outside it.
  symlinkSync(outside, join(root, 'door'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function server(): Promise<McpHarness> {
  return startServer(['--root', root]);
}

describe('loader variables of a program', () => {
  it('dbg_start refuses each loader variable naming a path outside the roots, before anything starts', async () => {
    const h = await server();
    const cases: [string, string][] = [
      ['LD_PRELOAD', join(outside, 'evil.so')],
      ['LD_PRELOAD', `${join(root, 'lib', 'good.so')}:${join(outside, 'evil.so')}`],
      ['LD_PRELOAD', join(root, 'door', 'evil.so')],
      ['LD_PRELOAD', join(root, '..', outside.split('/').pop() as string, 'evil.so')],
      ['LD_AUDIT', join(outside, 'evil.so')],
      ['LD_LIBRARY_PATH', outside],
      ['LD_LIBRARY_PATH', `${join(root, 'lib')};${outside}`],
      ['GCONV_PATH', outside],
      ['LD_DEBUG_OUTPUT', join(outside, 'debug.log')],
      ['MALLOC_TRACE', join(outside, 'trace')],
    ];
    for (const [name, value] of cases) {
      const r = await h.call('dbg_start', { program, env: { [name]: value } });
      expect(r, `${name}=${value}`).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(r.data.error.message, `${name}=${value}`).toMatch(
        new RegExp(`^env\\.${name}: .*outside the workspace roots`),
      );
      expect(r.data.error.details.fields).toEqual([`env.${name}`]);
    }
    // $LIB and $PLATFORM name directories the loader picks: refused, with the reason.
    const token = await h.call('dbg_start', { program, env: { LD_PRELOAD: `${root}/$LIB/x.so` } });
    expect(token.data.error.message).toMatch(/uses \$LIB, which the loader expands/);
    expect((await h.call('dbg_sessions', {})).data.sessions).toEqual([]);
  });

  it('a library under the roots is loaded (so the refusals above did stop a real load)', async () => {
    const h = await server();
    const r = await h.call('dbg_start', {
      program,
      env: { LD_PRELOAD: join(root, 'lib', 'good.so'), LD_LIBRARY_PATH: join(root, 'lib') },
      timeout_ms: WAIT_MS,
    });
    expect(r.data.outcome, r.text).toEqual({ kind: 'exited', exit_code: 0 });
    expect(r.data.output.text).toMatch(/^GOOD-LOADED\nenv:\n/);
    // $ORIGIN is the program's own directory, under the root.
    const origin = await h.call('dbg_start', { program, env: { LD_PRELOAD: '$ORIGIN/lib/good.so' } });
    expect(origin.data.output.text).toMatch(/^GOOD-LOADED\n/);
  });

  it('the same policy holds for a program given with a remote target, before any connection', async () => {
    const h = await server();
    const r = await h.call('dbg_start', {
      program,
      remote: 'localhost:1',
      extended: true,
      env: { LD_PRELOAD: join(outside, 'evil.so') },
    });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toMatch(/^env\.LD_PRELOAD: .*outside the workspace roots/);
  });

  // The policy is checked before rr records (rr cannot record on this VM, and need not).
  it.skipIf(findOnPath(['rr']) === undefined)(
    'dbg_record refuses it too, before rr runs (skipped where rr is not installed)',
    async () => {
      const h = await server();
      const r = await h.call('dbg_record', { program, env: { LD_AUDIT: join(outside, 'evil.so') } });
      expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(r.data.error.message).toMatch(/^env\.LD_AUDIT: .*outside the workspace roots/);
    },
  );

  it("passes the server's LC_ variables only when they are locale categories", async () => {
    const h = await startServer(['--root', root], { LC_ALL: 'C', LC_TIME: 'C', LC_SECRET_TOKEN: 'hunter2' });
    const r = await h.call('dbg_start', { program, timeout_ms: WAIT_MS });
    expect(r.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    const env = (r.data.output.text as string).split('\n');
    expect(env).toContain('LC_ALL=C');
    expect(env).toContain('LC_TIME=C');
    expect(env.filter((l) => l.startsWith('LC_SECRET'))).toEqual([]);
  });
});
