// rr's own words, read into facts. The failure texts are what rr 5.6 printed on this machine
// (an AMD CPU it does not know; with -A, a VM without performance counters).
import { describe, expect, it } from 'vitest';
import {
  classifyRrFailure,
  parseReplayLaunch,
  parseRrPs,
  parseTraceDir,
  recordArgv,
  replayArgv,
} from '../../../src/backends/rr/rrText.js';

describe('rr failures', () => {
  it('no performance counters', () => {
    const p = classifyRrFailure(
      "[FATAL ./src/PerfCounters.cc:306:start_counter()] Unable to open performance counter with 'perf_event_open'; are hardware perf events available? See https://github.com/rr-debugger/rr/wiki/Will-rr-work-on-my-system",
    );
    expect(p.kind).toBe('no-pmu');
    expect(p.fix).toMatch(/record=true/);
  });

  it("names GDB's process record instead only as the machine probe saw it", () => {
    const text = "Unable to open performance counter with 'perf_event_open'";
    expect(classifyRrFailure(text, undefined, 'work').fix).toMatch(/still works here with GDB's process record/);
    expect(classifyRrFailure(text, undefined, 'broken').fix).toMatch(
      /process record \(dbg_start record=true\) cannot run backwards on this machine either/,
    );
    expect(classifyRrFailure(text).fix).toMatch(/where dbg_doctor's record full line says it works/);
  });

  it('an unknown CPU', () => {
    const p = classifyRrFailure(
      '[FATAL ./src/PerfCounters_x86.h:114:compute_cpu_microarch()] AMD CPU type 0xf20 (ext family 0xb) unknown',
    );
    expect(p.kind).toBe('cpu');
    expect(p.message).toMatch(/AMD CPU type 0xf20/);
  });

  it('perf events not allowed', () => {
    const p = classifyRrFailure(
      "[FATAL] Permission denied to use 'perf_event_open'; are perf events enabled? Try 'perf record'.",
      3,
    );
    expect(p).toMatchObject({ kind: 'paranoid' });
    expect(p.message).toMatch(/perf_event_paranoid=3/);
    expect(p.fix).toMatch(/sysctl kernel.perf_event_paranoid=1/);
  });

  it("anything else keeps rr's last line", () => {
    expect(classifyRrFailure('something\nrr: odd failure here\n')).toMatchObject({
      kind: 'other',
      message: 'rr: odd failure here',
    });
  });
});

describe('rr output', () => {
  it('the trace directory of a recording', () => {
    expect(parseTraceDir("rr: Saving execution to trace directory `/home/u/.local/share/rr/caller-0'.\n")).toBe(
      '/home/u/.local/share/rr/caller-0',
    );
    expect(parseTraceDir('nothing')).toBeUndefined();
  });

  it('rr ps', () => {
    const ps = parseRrPs('PID\tPPID\tEXIT\tCMD\n159145\t--\t0\t./caller\n159146\t159145\t-6\t./crasher arg\n');
    expect(ps).toEqual([
      { pid: 159145, exit: 0, command: './caller' },
      { pid: 159146, ppid: 159145, exit: -6, command: './crasher arg' },
    ]);
  });

  it('the replay server announcement', () => {
    const text =
      "Launch gdb with\n  gdb '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:41234' /home/u/.local/share/rr/prog-0/mmap_hardlink_3_prog\n";
    expect(parseReplayLaunch(text)).toEqual({
      address: '127.0.0.1:41234',
      program: '/home/u/.local/share/rr/prog-0/mmap_hardlink_3_prog',
    });
  });

  it('argv, never a shell line', () => {
    expect(recordArgv(['/p/prog', 'a b', '$x'])).toEqual(['record', '/p/prog', 'a b', '$x']);
    expect(recordArgv(['/p/prog'], '/t/x')).toEqual(['record', '-o', '/t/x', '/p/prog']);
    // Chaos mode is rr's option, before the program: never an argument of the program.
    expect(recordArgv(['/p/prog', '--chaos'], '/t/x', true)).toEqual([
      'record',
      '--chaos',
      '-o',
      '/t/x',
      '/p/prog',
      '--chaos',
    ]);
    expect(replayArgv('/t/x', 0, 42)).toEqual(['replay', '-s', '0', '-p', '42', '/t/x']);
  });
});
