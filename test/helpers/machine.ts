// This machine's hardware debugging, probed as the server probes it (once per test process): the
// tests of watchpoints and hardware breakpoints assert the mechanism the answer says it used.
import { machineProbe } from '../../src/backends/machineProbe.js';

export type Mechanism = 'hardware' | 'software';

/** What hardware watchpoints and breakpoints do here: 'work', 'dead' or 'unknown', with the probe's words. */
export async function hardwareVerdicts() {
  return (await machineProbe()).hardware;
}

/**
 * Whether gdb can call functions in a program here: 'work', 'broken' (an AMX CPU under GDB 13:
 * "Couldn't write extended state status") or 'unknown', with the probe's words. A test of a call
 * asserts the value where calls work and the server's plain refusal where they are broken.
 */
export async function inferiorCallVerdict() {
  return (await machineProbe()).calls;
}

/**
 * Whether GDB's process record runs a program backwards here: 'work', 'broken' (an AMX CPU under
 * GDB 13: recording works, going back fails with "Couldn't write extended state status") or
 * 'unknown', with the probe's words. A test of reverse execution runs where it works, and where
 * it is broken asserts the server's refusal of record=true instead.
 */
export async function recordVerdict() {
  return (await machineProbe()).record;
}
