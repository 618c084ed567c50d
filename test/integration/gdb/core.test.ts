// Core files: a dump opens at the crash it recorded, with the same evidence a live crash gives;
// a dump that is not one, is cut short or belongs to another program is refused in words.
import { copyFileSync, readdirSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CrashViewData, gatherView } from '../../../src/session/evidence.js';
import type { Session } from '../../../src/session/session.js';
import { expectStopped, failure } from '../../helpers/outcomes.js';
import { fixture, fixturesDir } from '../../helpers/paths.js';
import { loaded, newManager, openTarget } from '../../helpers/sessions.js';
import { corePattern, crashWithCore, tempDir } from '../../helpers/targets.js';

/** Runs the crash fixture to its fatal signal and saves a core there (GDB's gcore). */
async function dumpAtCrash(mode: string, dir: string): Promise<string> {
  const manager = newManager();
  const session = await loaded('crash', [mode], manager);
  expectStopped(await session.run({ action: 'run', startMode: 'none' }));
  const path = join(dir, `core.${mode}`);
  const bytes = await session.saveCore(path, { phases: ['stopped'], doing: 'save a core' });
  expect(bytes).toBe(statSync(path).size);
  await manager.closeAll();
  return path;
}

function openCore(core: string, program = fixture('crash')) {
  return openTarget(newManager(), { kind: 'core', core, load: { program, args: [] }, timeoutMs: 15_000 });
}

async function crashView(session: Session): Promise<CrashViewData> {
  const view = await session.query(['stopped'], 'crash view', (b) =>
    gatherView(b, session.snapshot, { view: 'crash' }),
  );
  if (view.data?.view !== 'crash') throw new Error(`no crash view: ${view.failures.join('; ')}`);
  return view.data;
}

describe('core files', () => {
  it('opens a dump at the crash it recorded: signal, fault address, stack, locals', async () => {
    const core = await dumpAtCrash('segv', tempDir('dbg-core-'));
    const { session, outcome, generatedBy } = await openCore(core);
    const { stop, stopId } = expectStopped(outcome ?? { kind: 'running' });
    expect(stopId).toBe(1);
    expect(session.phase).toBe('stopped');
    expect(stop.signal?.name).toBe('SIGSEGV');
    expect(stop.faultAddress).toBe('0x0');
    expect(stop.frame?.function).toBe('store');
    expect(generatedBy).toContain('crash segv');
    const crash = await crashView(session);
    expect(crash.hint).toMatch(/^NULL pointer dereference in store at crash\.c:13/);
    const names = crash.stack.flatMap((e) => ('function' in e ? [e.function] : []));
    expect(names.slice(0, 4)).toEqual(['store', 'update', 'process', 'main']);
    expect(crash.locals.find((l) => l.function === 'update')?.variables).toContainEqual(
      expect.objectContaining({ name: 'doubled', value: '12' }),
    );
    expect(crash.source?.line).toBe(13);
  });

  it('opens a dump the kernel wrote when the program died', async (ctx) => {
    const pattern = corePattern();
    if (pattern.startsWith('|') || pattern.includes('/')) {
      // The dump goes to a handler (systemd-coredump, apport) or elsewhere: gcore's dumps cover the reading.
      ctx.skip(`core_pattern is ${pattern}: the kernel writes no file in the program's directory`);
    }
    const dir = tempDir('dbg-kcore-');
    const program = join(dir, 'crash');
    copyFileSync(fixture('crash'), program);
    crashWithCore(program, ['segv'], dir);
    const name = readdirSync(dir).find((f) => f.startsWith('core'));
    if (!name) throw new Error(`the kernel wrote no core into ${dir} (pattern ${pattern}, ulimit -c unlimited)`);
    const { session, outcome } = await openCore(join(dir, name), program);
    const { stop } = expectStopped(outcome ?? { kind: 'running' });
    expect(stop.signal).toEqual({ name: 'SIGSEGV', meaning: 'Segmentation fault' });
    expect(stop.faultAddress).toBe('0x0');
    expect((await crashView(session)).hint).toMatch(/^NULL pointer dereference in store/);
  });

  it("reads an assert's message out of the dump, where no output was kept", async () => {
    const core = await dumpAtCrash('assert', tempDir('dbg-core-'));
    const { session, outcome } = await openCore(core);
    expect(expectStopped(outcome ?? { kind: 'running' }).stop.signal?.name).toBe('SIGABRT');
    const crash = await crashView(session);
    expect(crash.outputTail).toBeUndefined();
    expect(crash.hint).toMatch(/^abort: .*Assertion `count == 0 && "count must be zero"' failed/);
  });

  it('refuses to run a core, and says what to do instead', async () => {
    const core = await dumpAtCrash('segv', tempDir('dbg-core-'));
    const { session } = await openCore(core);
    for (const action of ['continue', 'run', 'kill'] as const) {
      const f = await failure(session.run({ action }));
      expect(f.code).toBe('wrong_state');
      expect(f.message).toMatch(/a core file is the memory of a process that is gone.*dbg_start the program/);
    }
    expect(session.phase).toBe('stopped');
  });

  it('refuses a core of another program', async () => {
    const core = await dumpAtCrash('segv', tempDir('dbg-core-'));
    const f = await failure(openCore(core, fixture('hello')));
    expect(f.code).toBe('invalid_argument');
    expect(f.message).toMatch(
      /^core: .* was not dumped by .*hello \(the core says it was generated by `.*crash segv`\)/,
    );
  });

  it('refuses a truncated core with the sizes', async () => {
    const dir = tempDir('dbg-core-');
    const core = await dumpAtCrash('segv', dir);
    const cut = join(dir, 'core.cut');
    copyFileSync(core, cut);
    const size = statSync(core).size;
    truncateSync(cut, Math.floor(size / 3));
    const f = await failure(openCore(cut));
    expect(f.code).toBe('invalid_argument');
    const m = /is truncated: (\d+) bytes of the (\d+) its headers describe/.exec(f.message);
    expect(Number(m?.[1])).toBe(Math.floor(size / 3));
    expect(Number(m?.[2])).toBeGreaterThan(size / 2);
  });

  it('refuses a file that is not a core', async () => {
    const program = await failure(openCore(fixture('hello')));
    expect(program.message).toMatch(/^core: .*hello is a shared object or PIE, not a core dump/);
    const source = await failure(openCore(join(fixturesDir, 'crash.c')));
    expect(source.message).toMatch(/^core: .*crash\.c is not a core dump \(not an ELF file\)/);
  });

  it('closing a core session leaves nothing behind and refuses a second gcore of it', async () => {
    const dir = tempDir('dbg-core-');
    const core = await dumpAtCrash('segv', dir);
    const { session } = await openCore(core);
    const again = await failure(session.saveCore(join(dir, 'copy'), { phases: ['stopped'], doing: 'save a core' }));
    expect(again.code).toBe('wrong_state');
    const backend = session.backend as unknown as { groupAlive: boolean };
    await session.close();
    expect(backend.groupAlive).toBe(false);
  });
});
