// What this machine's debugging hardware does, for every backend: whether hardware watchpoints
// and breakpoints fire, whether a debugger can call functions in a program, and whether GDB's
// process record can run a program backwards. Some VMs
// (measured: Firecracker, GDB 13 and LLDB alike) accept hardware watchpoints and never fire them,
// so a backend asks here before it sets one. The probe (gdb/gdbHardwareProbe.ts) runs once per
// server: started in the background once the client has initialised, shared by every caller,
// and its verdicts are kept for the rest of the boot (machineProbeCache.ts).

import { childEnvironment } from '../process/childEnvironment.js';
import { log } from '../util/log.js';
import type { BackendKind } from './debuggerBackend.js';
import { type MachineProbe, probeMachineOnce } from './gdb/gdbHardwareProbe.js';
import { probeCacheKey, readCachedProbe, writeCachedProbe } from './machineProbeCache.js';

export type {
  HardwareDebugProbe,
  HardwareVerdict,
  InferiorCallProbe,
  MachineProbe,
  RecordProbe,
} from './gdb/gdbHardwareProbe.js';

/**
 * A probe that has not answered by then is taken as 'unknown': each of its gdb commands has a
 * deadline of its own, but a wedged gdb could make a watchpoint wait for several of them.
 */
const PROBE_DEADLINE_MS = 20_000;

interface ProbeSettings {
  gdbPath: string;
  env: Record<string, string>;
}

let settings: ProbeSettings | undefined;
let result: Promise<MachineProbe> | undefined;

/** Where the probe runs: the server's gdb and the environment its debuggers get. */
export function configureMachineProbe(options: {
  paths: Readonly<Partial<Record<BackendKind, string>>>;
  passthroughEnv?: readonly string[];
}): void {
  if (result) return;
  settings = {
    gdbPath: options.paths.gdb ?? 'gdb',
    env: childEnvironment(process.env, options.passthroughEnv),
  };
}

/** Starts the probe now, in the background (the server calls this once the client is ready). */
export function startMachineProbe(): void {
  void machineProbe().then(({ hardware, calls, record }) =>
    log('info', 'machine probe', {
      watchpoints: hardware.watchpoints,
      breakpoints: hardware.breakpoints,
      inferiorCalls: calls.inferiorCalls,
      reverseExecution: record.reverse,
      ms: hardware.ms,
      kept: keptFromEarlier || undefined,
      detail: hardware.detail,
    }),
  );
}

let keptFromEarlier = false;

/** The probe, or 'unknown' verdicts once PROBE_DEADLINE_MS has passed without them. */
function probeWithDeadline(chosen: ProbeSettings): Promise<MachineProbe> {
  const why = `the probe gave no answer within ${PROBE_DEADLINE_MS / 1000} s`;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<MachineProbe>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          hardware: { watchpoints: 'unknown', breakpoints: 'unknown', detail: why, ms: PROBE_DEADLINE_MS },
          calls: { inferiorCalls: 'unknown', detail: why },
          record: { reverse: 'unknown', detail: why },
        }),
      PROBE_DEADLINE_MS,
    );
    timer.unref();
  });
  return Promise.race([probeMachineOnce(chosen), late]).finally(() => clearTimeout(timer));
}

/**
 * The machine's verdicts: the server's probe (or this boot's earlier one, kept on disk), started
 * now when nobody started it yet. Never rejects; a probe that cannot decide (no gdb, no
 * /bin/true, past its deadline) says 'unknown', and 'unknown' is never acted on nor kept.
 */
export function machineProbe(): Promise<MachineProbe> {
  if (!result) {
    const chosen = settings ?? { gdbPath: 'gdb', env: childEnvironment(process.env) };
    const key = probeCacheKey(chosen.gdbPath, chosen.env['PATH']);
    const kept = key ? readCachedProbe(key) : undefined;
    keptFromEarlier = kept !== undefined;
    result = kept
      ? Promise.resolve(kept)
      : probeWithDeadline(chosen).then((probe) => {
          if (key) writeCachedProbe(key, probe);
          return probe;
        });
  }
  return result;
}
