// Work that must not grow with the program's data: a crash deep in a recursion counts its stack
// only so far, source lines come from the file GDB named (and only such files), and the fault
// address is read without a symbol lookup.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CrashViewData, gatherView } from '../../../src/session/evidence.js';
import { LIMITS } from '../../../src/session/limits.js';
import { SessionManager } from '../../../src/session/sessionManager.js';
import { expectStopped, WAIT_MS } from '../../helpers/outcomes.js';
import { fixturesDir } from '../../helpers/paths.js';
import { loaded } from '../../helpers/sessions.js';

const wait = { timeoutMs: WAIT_MS };

describe('bounded work on big programs', () => {
  it('a crash 5,000 frames deep: the crash view counts 1,000 frames, says "at least", and keeps the NULL hint', async () => {
    const s = await loaded('recurse', ['5000', 'crash']);
    const { stop } = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the SIGSEGV');
    expect(stop.faultAddress).toBe('0x0');
    const view = await s.query(['stopped'], 'gather the crash view', (b) =>
      gatherView(b, s.snapshot, { view: 'crash' }),
    );
    const crash = view.data as CrashViewData;
    expect(view.failures).toEqual([]);
    expect(crash.depth).toBe(LIMITS.crashDepthProbe);
    expect(crash.depthAtLeast).toBe(true);
    // The frames read stay at the crash view's page; the recursion among them is one line.
    const read = crash.stack.reduce((n, e) => n + ('repeated' in e ? e.repeated : 'folded' in e ? e.folded : 1), 0);
    expect(read).toBe(LIMITS.crashStackDepth);
    expect(crash.stack).toHaveLength(3);
    expect(crash.hint).toBe('NULL pointer dereference in bottom at recurse.c:12');
  });

  it('a crash 20 frames deep counts all of them, exactly', async () => {
    const s = await loaded('recurse', ['20', 'crash']);
    expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the SIGSEGV');
    const view = await s.query(['stopped'], 'gather the crash view', (b) =>
      gatherView(b, s.snapshot, { view: 'crash' }),
    );
    const crash = view.data as CrashViewData;
    // bottom, 21 descend frames, main.
    expect(crash.depth).toBe(23);
    expect(crash.depthAtLeast).toBeUndefined();
  });

  it("source lines of a frame are the file's own lines, read from the path GDB resolved, not listed by GDB", async () => {
    const transcripts = mkdtempSync(join(tmpdir(), 'dbg-mcp-transcript-'));
    const manager = new SessionManager({ idleTimeoutMs: 0, transcriptDir: transcripts });
    try {
      const s = await loaded('recurse', ['3', 'crash'], manager);
      const { stop } = expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the SIGSEGV');
      const file = stop.frame?.fullname;
      expect(file).toBe(join(fixturesDir, 'recurse.c'));
      const onDisk = readFileSync(join(fixturesDir, 'recurse.c'), 'utf8').split('\n');
      const lines = await s.query(['stopped'], 'list source', (b) => b.sourceLines(file ?? '', 9, 14));
      expect(lines).toEqual([9, 10, 11, 12, 13, 14].map((line) => ({ line, text: onDisk[line - 1] })));
      // One more command, so the transcript is known to hold everything sent before it.
      await s.query(['stopped'], 'read the stack', (b) => b.stackDepth(undefined, 5));
      const path = join(transcripts, `${s.id}.mi`);
      let sent = '';
      for (let i = 0; i < 100 && !sent.includes('-stack-info-depth'); i++) {
        await new Promise((r) => setTimeout(r, 20));
        sent = readFileSync(path, 'utf8');
      }
      expect(sent).toContain('-stack-info-depth');
      expect(sent).not.toMatch(/console "list /);
    } finally {
      await manager.closeAll();
      rmSync(transcripts, { recursive: true, force: true });
    }
  });

  it('a file GDB never named is not read from disk: view=source cannot list any file on the machine', async () => {
    const s = await loaded('recurse', ['3', 'crash']);
    expectStopped(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run to the SIGSEGV');
    // hello.c is a fixture, readable, but not a source of this program.
    const other = join(fixturesDir, 'hello.c');
    const listed = await s.query(['stopped'], 'list source', (b) => b.sourceLines(other, 1, 5)).catch((e: Error) => e);
    const text = listed instanceof Error ? '' : listed.map((l) => l.text).join('\n');
    expect(text).not.toContain('Prints a greeting');
  });
});
