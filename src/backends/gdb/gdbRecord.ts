// GDB's process record ("record full"): what it needs from the program's environment, and how
// to read what it says. Record full has no MI events for its limits; it speaks in console text
// before the stop, so that text is parsed here.

/**
 * Measured with GDB 13.1 on this machine: record full cannot step glibc's AVX, AVX2, AVX-512
 * and TSX (RTM) string routines ("Process record does not support instruction 0x62", then 0xc5
 * in __strchrnul_avx2). These tunables make glibc pick its SSE2 routines, and binding every
 * symbol at start keeps the dynamic linker's lazy resolver (which saves vector state with
 * XSAVE) out of the recording. They are set only for sessions started with record=true.
 */
export const RECORD_ENVIRONMENT: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: 'glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-EVEX,-RTM,-AVX2,-AVX',
  LD_BIND_NOW: '1',
};

/** What a recorded session is told about the program's changed environment. */
export const RECORD_WARNING =
  "recording: glibc's vector string routines are off for this program (GLIBC_TUNABLES) and symbols bind at " +
  'start (LD_BIND_NOW=1), because record full cannot step them; watchpoints are software while recording';

/** Merges the record environment into a program's own, keeping tunables the user set. */
export function recordEnvironment(env: Readonly<Record<string, string>> = {}): Record<string, string> {
  const merged: Record<string, string> = { ...env, LD_BIND_NOW: RECORD_ENVIRONMENT['LD_BIND_NOW'] ?? '1' };
  const ours = RECORD_ENVIRONMENT['GLIBC_TUNABLES'] ?? '';
  merged['GLIBC_TUNABLES'] = env['GLIBC_TUNABLES'] ? `${env['GLIBC_TUNABLES']}:${ours}` : ours;
  return merged;
}

export interface RecordNotes {
  history?: 'start' | 'end';
  /** A problem recording met, in plain words with what to do. */
  note?: string;
  /** The stop is recording's own (a limit or refusal), not the program's. */
  recordStop?: boolean;
}

/** Reads what GDB printed between a resume and the stop that ended it. */
export function readRecordNotes(said: string): RecordNotes {
  const notes: RecordNotes = {};
  if (/No more reverse-execution history\./.test(said)) {
    // GDB prints the same line at both ends; the direction of travel tells them apart (the caller knows it).
    notes.history = 'start';
  }
  const unsupported =
    /Process record does not support instruction (0x[0-9a-f]+|[\w ]+?) at address (0x[0-9a-f]+)/i.exec(said);
  if (unsupported) {
    notes.recordStop = true;
    notes.note =
      `recording stopped: GDB's process record cannot step instruction ${unsupported[1]} at ${unsupported[2]} ` +
      '(vector code, often in glibc). Start the program with dbg_start record=true, which steers glibc to ' +
      'instructions it can record, or begin recording after this code (record_start later); reverse execution ' +
      'works within what was recorded.';
  } else if (/Process record does not support instruction/i.test(said)) {
    notes.recordStop = true;
    notes.note = "recording stopped: GDB's process record met an instruction it cannot step here.";
  }
  if (/The next instruction is syscall exit(_group)?/.test(said)) {
    notes.recordStop = true;
    notes.note =
      'recording stopped the program just before it exits (exit_group): step backwards from here, or ' +
      'record_stop and continue to let it exit.';
  }
  if (/auto delete previous execution log entries/.test(said)) {
    const trimmed =
      'the record buffer filled and its oldest instructions were dropped (record full insn-number-max): ' +
      'reverse execution reaches only back to the oldest kept one.';
    notes.note = notes.note ? `${notes.note} Also, ${trimmed}` : trimmed;
  }
  return notes;
}

/** Whether `info record` says GDB is replaying history (not at the live end). */
export function isReplaying(infoRecord: string): boolean {
  return /^Replay mode:/m.test(infoRecord);
}
