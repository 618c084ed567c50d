// The crash view's plain-words reading, on facts recorded from real crashes: a sanitizer's report
// before the abort, a fault the kernel gave no address for (SI_KERNEL), and the readings they
// must not be mistaken for (NULL dereference, "abort() called: no message").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DebuggerBackend } from '../../../src/backends/debuggerBackend.js';
import { sanitizerRuntimeReport } from '../../../src/backends/runtime/glibcRuntime.js';
import { OutputRing } from '../../../src/process/outputRing.js';
import { type CrashFacts, crashHint, currentReport } from '../../../src/session/evidence/crashView.js';
import type { ViewContext } from '../../../src/session/evidence/viewContext.js';
import { initialSnapshot } from '../../../src/session/sessionState.js';
import { repoRoot } from '../../helpers/paths.js';

const sample = (name: string): string =>
  readFileSync(join(repoRoot, 'test', 'unit', 'runtime', 'samples', `${name}.txt`), 'utf8');

const facts = (f: Partial<CrashFacts>): CrashFacts => ({
  signal: 'SIGSEGV',
  fault: undefined,
  sp: undefined,
  depth: undefined,
  abortMessage: undefined,
  where: 'value_of at kernel_fault.c:14',
  ...f,
});

// What the GDB backend decodes for fixtures/c/kernel_fault.c (x86-64, GDB 13).
const KERNEL_NOTE =
  "bad pointer: the access to 0xfefefefefefeff06 through rax = 0xfefefefefefefefe hit a non-canonical address, so the CPU raised a general-protection fault and the kernel reported no address; 0xfefefefefefefefe is uninitialised memory: GCC's -ftrivial-auto-var-init=pattern fills locals with 0xfe, and glibc's MALLOC_PERTURB_=1 fills fresh malloc blocks with it";

describe('crashHint', () => {
  it('names the bad pointer of a general-protection fault, never a NULL dereference', () => {
    const hint = crashHint(facts({ fault: 0xfefefefefefeff06n, faultNote: KERNEL_NOTE }));
    expect(hint).toBe(`invalid memory access in value_of at kernel_fault.c:14: ${KERNEL_NOTE}`);
    expect(hint).not.toMatch(/NULL/);
  });

  it('without the note, an SI_KERNEL fault (no address) is not called a NULL dereference either', () => {
    expect(crashHint(facts({ fault: undefined }))).toMatch(/^invalid memory access in value_of/);
    // What it said before: the kernel's 0 read as a NULL pointer.
    expect(crashHint(facts({ fault: 0n }))).toBe('NULL pointer dereference in value_of at kernel_fault.c:14');
  });

  it('reads a sanitizer’s abort as its report, not as an abort without a message', () => {
    const report = sanitizerRuntimeReport(sample('asan-use-after-free'));
    expect(report).toBeDefined();
    const hint = crashHint(
      facts({ signal: 'SIGABRT', report, where: '__sanitizer::Abort at sanitizer_posix_libcdep.cpp:143' }),
    );
    expect(hint).toMatch(
      /^AddressSanitizer reported heap-use-after-free \(READ of 4 bytes at 0x[0-9a-f]+\) in read_after_free \(asan_errors\.c:11\)$/,
    );
    expect(crashHint(facts({ signal: 'SIGABRT', where: 'main at a.c:3' }))).toMatch(/^abort\(\) called .*no message/);
  });

  it('says plainly that LeakSanitizer cannot run under the debugger, and what to do', () => {
    const report = sanitizerRuntimeReport(sample('lsan-under-ptrace'));
    expect(report?.kind).toBe('unavailable-under-ptrace');
    const hint = crashHint(facts({ signal: 'SIGABRT', report }));
    expect(hint).toMatch(/^LeakSanitizer cannot run under a debugger/);
    expect(hint).toMatch(/detect_leaks=0/);
    expect(hint).not.toMatch(/fatal error/);
  });
});

describe('whose report it is', () => {
  /** A view context over recorded output and the session's live processes; nothing else is read. */
  function context(output: string, pids: number[]): ViewContext {
    const ring = new OutputRing(1 << 20);
    ring.write(Buffer.from(output));
    const snapshot = { ...initialSnapshot(), inferiors: new Map(pids.map((p, i) => [`i${i + 1}`, p])) };
    return { backend: { output: ring } as unknown as DebuggerBackend, snapshot, signal: undefined, failures: [] };
  }
  const asan = sample('asan-use-after-free');
  const asanPid = Number(/==(\d+)==ERROR/.exec(asan)?.[1]);

  it('takes a report printed by the process that stopped', () => {
    const report = sanitizerRuntimeReport(asan);
    expect(report?.pid).toBe(asanPid);
    expect(currentReport(context(asan, [asanPid]), report)).toBe(report);
  });

  it('leaves out a report an earlier run printed, before this run aborted for its own reason', () => {
    const output = `${asan}mode assert\nloop: loop.c:9: main: Assertion \`n > 0' failed.\n`;
    const report = sanitizerRuntimeReport(output);
    expect(currentReport(context(output, [asanPid + 7]), report)).toBeUndefined();
  });

  it('takes a report without a pid (UBSan’s) only when it is among the last lines printed', () => {
    const ubsan = sample('ubsan-signed-overflow');
    const report = sanitizerRuntimeReport(ubsan);
    expect(report?.pid).toBeUndefined();
    expect(currentReport(context(ubsan, [1234]), report)).toBe(report);
    const later = `${ubsan}${'a later line of output, printed after that report\n'.repeat(200)}`;
    expect(currentReport(context(later, [1234]), report)).toBeUndefined();
  });
});
