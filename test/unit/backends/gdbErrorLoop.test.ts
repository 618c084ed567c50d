// The error-loop breaker on MI lines recorded from GDB 13.1 on an AMX CPU (a reverse-continue under
// record full: the same error for ever, the thread "running"), against a GDB whose answers are those
// recorded ones. The end-to-end run on a real AMX machine is in test/e2e/reverse.test.ts.
import { describe, expect, it } from 'vitest';
import type { BackendEvent } from '../../../src/backends/debuggerBackend.js';
import type { GdbContext } from '../../../src/backends/gdb/gdbContext.js';
import { initialState } from '../../../src/backends/gdb/gdbContext.js';
import { ErrorLoopBreaker, errorLoopReason, REPEATS } from '../../../src/backends/gdb/gdbErrorLoop.js';
import type { MiCommandResult } from '../../../src/protocols/mi/miConnection.js';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';

const RUNNING = '*running,thread-id="1"';
const STOPPED =
  '*stopped,reason="signal-received",signal-name="SIGSEGV",signal-meaning="Segmentation fault",frame={addr="0x0000555555555201",func="main",args=[],file="corrupt.c",fullname="/work/fixtures/c/corrupt.c",line="28",arch="i386:x86-64"},thread-id="1",stopped-threads="all",core="0"';
const EXTENDED = '&"Couldn\'t write extended state status: Bad address.\\n"';
const THREADS_RUNNING =
  '^done,threads=[{id="1",target-id="Thread 0x7ffff7dd1740 (LWP 28760)",name="corrupt",state="running",core="1"}],current-thread-id="1"';
const THREADS_STOPPED =
  '^done,threads=[{id="1",target-id="Thread 0x7ffff7dd1740 (LWP 28760)",name="corrupt",state="stopped",frame={level="0",addr="0x0000555555555201",func="main",args=[]},core="1"}],current-thread-id="1"';

/** A GDB context whose thread-info answers `threads`, recording what was sent and emitted. */
function fakeGdb(threads: string) {
  const sent: string[] = [];
  const events: BackendEvent[] = [];
  const answer = (line: string): MiCommandResult => {
    const r = parseMiLine(line);
    if (r.kind !== 'result' || r.class === 'error') throw new Error(`not an answer: ${line}`);
    return { class: r.class, results: r.results, console: '', log: '' };
  };
  const state = initialState();
  const g = {
    state,
    mi: {
      send: async (operation: string) => {
        sent.push(operation);
        return answer(threads);
      },
    },
    cli: async (text: string) => {
      sent.push(`cli ${text}`);
      return answer('^done');
    },
    emit: (e: BackendEvent) => {
      events.push(e as BackendEvent);
    },
  } as unknown as GdbContext;
  const breaker = new ErrorLoopBreaker(g);
  const feed = (...lines: string[]) => {
    for (const line of lines) breaker.see(parseMiLine(line), false);
  };
  return { g, state, sent, events, feed };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the error-loop breaker', () => {
  it('kills the program when GDB repeats the extended-state error while it says the thread runs', async () => {
    const gdb = fakeGdb(THREADS_RUNNING);
    gdb.state.reversing = true;
    gdb.feed(RUNNING, EXTENDED, EXTENDED);
    await settle();
    // Twice may be a one-off; the third time it is the loop.
    expect(gdb.sent).toEqual([]);
    gdb.feed(EXTENDED);
    await settle();
    expect(gdb.sent).toEqual(['thread-info', 'cli kill']);
    expect(gdb.events).toEqual([
      {
        type: 'exited',
        exit: {
          killed: true,
          reason: expect.stringMatching(
            /^gdb could not carry out this run and printed "Couldn't write extended state status: Bad address\." 3 times without stopping, so the program was killed to end it\. Going backwards .*reverse execution does not work here/,
          ),
        },
      },
    ]);
    // Once: the lines still arriving from the same run are not a second loop.
    gdb.feed(EXTENDED, EXTENDED);
    await settle();
    expect(gdb.events).toHaveLength(1);
  });

  it('leaves a stop GDB made without saying so to the silent-stop watch', async () => {
    const gdb = fakeGdb(THREADS_STOPPED);
    gdb.feed(RUNNING, EXTENDED, EXTENDED, EXTENDED);
    await settle();
    expect(gdb.sent).toEqual(['thread-info']);
    expect(gdb.events).toEqual([]);
  });

  it('takes any other line for a loop only when it repeats, and only within one run', async () => {
    const gdb = fakeGdb(THREADS_RUNNING);
    const other = '&"Cannot access memory at address 0x8\\n"';
    gdb.feed(RUNNING, ...Array(REPEATS - 1).fill(other), STOPPED, RUNNING, ...Array(REPEATS - 1).fill(other));
    await settle();
    expect(gdb.sent).toEqual([]);
    gdb.feed(other);
    await settle();
    expect(gdb.sent).toEqual(['thread-info', 'cli kill']);
    expect(gdb.events).toEqual([
      {
        type: 'exited',
        exit: { killed: true, reason: expect.stringMatching(/printed "Cannot access memory at address 0x8" 50 times/) },
      },
    ]);
  });

  it('ignores errors while the program is stopped, and lines a command asked for', async () => {
    const gdb = fakeGdb(THREADS_RUNNING);
    gdb.feed(EXTENDED, EXTENDED, EXTENDED);
    await settle();
    expect(gdb.sent).toEqual([]);
    const breaker = new ErrorLoopBreaker(gdb.g);
    breaker.see(parseMiLine(RUNNING), false);
    for (let i = 0; i < 3; i++) breaker.see(parseMiLine(EXTENDED), true);
    await settle();
    expect(gdb.sent).toEqual([]);
  });

  it('says what to do, forwards and backwards', () => {
    expect(errorLoopReason("Couldn't write extended state status: Bad address.", 1, false)).toMatch(
      /printed "Couldn't write extended state status: Bad address\." without stopping.*This gdb cannot write the CPU's extended register state back.*dbg_run restart/,
    );
    expect(errorLoopReason('Something else.', 60, true)).toBe(
      'gdb could not carry out this run and printed "Something else." 60 times without stopping, so the program was killed to end it. dbg_run restart runs the program again',
    );
  });
});
