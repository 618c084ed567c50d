// Running a sanitized program under a debugger: how to tell that a program is sanitized without
// running it, and the sanitizer options that make its report stop the program while it lives.
//
// Measured with GCC 12 (Debian 12) under GDB 13:
// - By default a report ends with _exit(1): the debugger sees only an exit. abort_on_error=1
//   makes it abort() after printing, so the stop is a SIGABRT with the program alive and the
//   user's function 8 frames down (libc raise/abort, __sanitizer::Abort, Die, the report's
//   scope guard, ReportGenericError, __asan_report_load4, then the user).
// - UBSan's checks recover and go on unless halt_on_error=1 (or -fno-sanitize-recover).
// - LeakSanitizer cannot work under ptrace: every ASan program ends with "LeakSanitizer has
//   encountered a fatal error" and exit code 1, even without a leak, and with abort_on_error=1
//   that becomes a SIGABRT at every exit. So leak checking is off under the debugger
//   (detect_leaks=0) unless the user's options say otherwise.
// - The program's terminal is a pty, so the runtime would colour its report: color=never.

import { hasStringContaining, hasStringStarting, readElfStrings } from '../../util/elfStrings.js';

export type Sanitizer = 'address' | 'hwaddress' | 'undefined' | 'leak' | 'thread' | 'memory';

// What each runtime leaves in a program: an imported or defined entry point, or a NEEDED library.
const MARKS: [Sanitizer, string[], string[]][] = [
  ['address', ['__asan_init'], ['libasan.so', 'libclang_rt.asan']],
  ['hwaddress', ['__hwasan_init'], ['libhwasan.so', 'libclang_rt.hwasan']],
  ['undefined', ['__ubsan_handle_'], ['libubsan.so', 'libclang_rt.ubsan']],
  ['leak', ['__lsan_init'], ['liblsan.so', 'libclang_rt.lsan']],
  ['thread', ['__tsan_init'], ['libtsan.so', 'libclang_rt.tsan']],
  ['memory', ['__msan_init'], ['libclang_rt.msan']],
];

/**
 * The sanitizers a program was built with, read from its ELF string tables; [] for a program
 * without any (or a file that is not ELF). A runtime linked in statically (clang's default)
 * defines every handler it has, so a clang ASan build also reads as UBSan: the options that
 * leads to are harmless. UBSan in trap mode (-fsanitize-trap) has no runtime and is not seen.
 */
export async function sanitizersIn(path: string): Promise<Sanitizer[]> {
  const strings = await readElfStrings(path);
  if (!strings) return [];
  return MARKS.filter(
    ([, symbols, libraries]) =>
      symbols.some((s) => hasStringStarting(strings, s)) || libraries.some((l) => hasStringContaining(strings, l)),
  ).map(([name]) => name);
}

export interface SanitizerEnvironment {
  /** Variables to set for the program (each merged with the user's own value, never overriding it). */
  additions: Record<string, string>;
  /** What the answer should tell the agent about these settings. */
  notes: string[];
}

const DEFAULTS: Record<string, [string, string][]> = {
  ASAN_OPTIONS: [
    ['abort_on_error', '1'],
    ['halt_on_error', '1'],
    ['detect_leaks', '0'],
    ['color', 'never'],
  ],
  HWASAN_OPTIONS: [
    ['abort_on_error', '1'],
    ['halt_on_error', '1'],
    ['color', 'never'],
  ],
  UBSAN_OPTIONS: [
    ['abort_on_error', '1'],
    ['halt_on_error', '1'],
    ['print_stacktrace', '1'],
    ['color', 'never'],
  ],
  LSAN_OPTIONS: [['detect_leaks', '0']],
  TSAN_OPTIONS: [
    ['abort_on_error', '1'],
    ['halt_on_error', '1'],
    ['color', 'never'],
  ],
  MSAN_OPTIONS: [
    ['abort_on_error', '1'],
    ['halt_on_error', '1'],
    ['color', 'never'],
  ],
};

/** The keys set in a sanitizer options string (`a=1:b=2`; ',' and spaces separate too). */
export function optionKeys(options: string): Set<string> {
  const keys = new Set<string>();
  for (const m of options.matchAll(/(?:^|[\s:,])([A-Za-z_][A-Za-z0-9_]*)=/g)) if (m[1]) keys.add(m[1]);
  return keys;
}

function variablesFor(sanitizers: readonly Sanitizer[]): string[] {
  const vars: string[] = [];
  if (sanitizers.includes('address')) vars.push('ASAN_OPTIONS');
  if (sanitizers.includes('hwaddress')) vars.push('HWASAN_OPTIONS');
  if (sanitizers.includes('undefined')) vars.push('UBSAN_OPTIONS');
  // Inside ASan, LeakSanitizer follows ASAN_OPTIONS' detect_leaks; alone, LSAN_OPTIONS'.
  if (sanitizers.includes('leak') && !sanitizers.includes('address')) vars.push('LSAN_OPTIONS');
  if (sanitizers.includes('thread')) vars.push('TSAN_OPTIONS');
  if (sanitizers.includes('memory')) vars.push('MSAN_OPTIONS');
  return vars;
}

/**
 * The sanitizer options a program built with `sanitizers` should run with under a debugger.
 * The user's value of each variable (the program's own `env` first, then one passed through from
 * the server's environment) is kept as given, and only the settings it lacks are appended:
 * a sanitizer takes the last value of a repeated key, so appending never overrides.
 */
export function sanitizerEnvironment(
  programEnv: Readonly<Record<string, string>> | undefined,
  passedThroughEnv: Readonly<Record<string, string>> | undefined,
  sanitizers: readonly Sanitizer[],
): SanitizerEnvironment {
  const additions: Record<string, string> = {};
  const notes: string[] = [];
  for (const variable of variablesFor(sanitizers)) {
    const given = programEnv?.[variable] ?? passedThroughEnv?.[variable] ?? '';
    const keys = optionKeys(given);
    const added = (DEFAULTS[variable] ?? []).filter(([key]) => !keys.has(key)).map(([k, v]) => `${k}=${v}`);
    if (added.length > 0) {
      const trimmed = given.replace(/[\s:,]+$/, '');
      additions[variable] = trimmed === '' ? added.join(':') : `${trimmed}:${added.join(':')}`;
    }
    if (/(?:^|[\s:,])abort_on_error=(?:0|false)\b/.test(given)) {
      notes.push(`${variable} sets abort_on_error=0: a report ends the program, and the debugger sees only its exit`);
    }
    if (added.some((a) => a === 'detect_leaks=0')) {
      notes.push(
        'leak checking is off under the debugger (LeakSanitizer cannot run under ptrace): run the program without the debugger for its leak report',
      );
    }
  }
  return { additions, notes };
}
