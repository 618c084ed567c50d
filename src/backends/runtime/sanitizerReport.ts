// Reading a sanitizer's report out of a program's output: which sanitizer, what kind of bug, the
// ERROR and SUMMARY lines, the bad access and the first frame in the program's own code. Pure:
// text in, facts out. The text is untrusted program output, so nothing here does more than match
// lines, and every field is cut to a bounded length.
//
// Formats, as GCC 12's libsanitizer prints them (clang's compiler-rt prints the same lines, with
// a column after the line number):
//   ==32472==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000014 at pc …
//   READ of size 4 at 0x602000000014 thread T0
//       #0 0x564a0193025f in read_after_free /src/asan_errors.c:11
//   SUMMARY: AddressSanitizer: heap-use-after-free /src/asan_errors.c:11 in read_after_free
//   ubsan_errors.c:13:18: runtime error: signed integer overflow: 2147483645 + 100 cannot be …
//   ==32737==ERROR: LeakSanitizer: detected memory leaks
//   ==303==LeakSanitizer has encountered a fatal error.          (under ptrace: it cannot work)

export type SanitizerName =
  | 'AddressSanitizer'
  | 'UndefinedBehaviorSanitizer'
  | 'LeakSanitizer'
  | 'ThreadSanitizer'
  | 'MemorySanitizer'
  | 'HWAddressSanitizer';

export interface ReportFrame {
  index: number;
  address?: string;
  function?: string;
  file?: string;
  line?: number;
  column?: number;
  /** `(module+0xoffset)` when the frame has no source. */
  module?: string;
}

export interface SanitizerReport {
  sanitizer: SanitizerName;
  /** heap-use-after-free, stack-buffer-overflow, signed-integer-overflow, memory-leak, … */
  kind: string;
  /** The line that opens the report (ERROR:, WARNING:, or UBSan's `file:line:col: runtime error:`). */
  errorLine: string;
  summaryLine?: string;
  access?: { op: 'READ' | 'WRITE'; size?: number; address: string };
  /** The first frame of the report's stack that is neither the sanitizer runtime nor libc. */
  firstUserFrame?: { function?: string; file: string; line: number; column?: number };
  /** The report's own stack (the bad access, the leak's allocation), at most MAX_FRAMES. */
  frames: ReportFrame[];
  /** One sentence for a hint: what happened, where; for LSan under ptrace, what to do instead. */
  hint: string;
  /** The process that printed it, from the `==PID==` prefix (UBSan's lines have none). */
  pid?: number;
}

const MAX_FRAMES = 32;
const MAX_LINE = 400;

// `==PID==ERROR: AddressSanitizer: heap-use-after-free on …`, `WARNING: ThreadSanitizer: data race`.
const HEADER =
  /^(?:==\d+==)?(?:ERROR|WARNING): (AddressSanitizer|LeakSanitizer|ThreadSanitizer|MemorySanitizer|HWAddressSanitizer|UndefinedBehaviorSanitizer): (.*)$/;
const UBSAN_ERROR = /^(.+?):(\d+):(\d+): runtime error: (.*)$/;
const SUMMARY = /^SUMMARY: (\w+): (\S+)/;
const ACCESS = /^(READ|WRITE) of size (\d+) at (0x[0-9a-f]+)/;
const SEGV_ACCESS = /The signal is caused by a (READ|WRITE) memory access/;
const UNKNOWN_ADDRESS = /on unknown address (0x[0-9a-f]+)/;
const LSAN_PTRACE = /LeakSanitizer has encountered a fatal error|LeakSanitizer does not work under ptrace/;
// `#3 0x7f… in main /src/a.c:54:7`, `#4 0x… in _start (/bin/a+0x1150)`, `#0 0x… (/lib/libc.so.6+0x…)`.
const FRAME = /^\s*#(\d+) (0x[0-9a-f]+)(?: in (.+?))?(?: \((\S+)\))?$/;
const SOURCE_TAIL = /^(.*) (\S+?):(\d+)(?::(\d+))?$/;
// Colour escapes, in case the program ran with color=always.
const ANSI = /\x1b\[[0-9;]*m/g;

// UBSan's messages and the check names clang gives them (report_error_type=1 prints these).
const UBSAN_KINDS: [RegExp, string][] = [
  [
    /^(?:signed integer overflow|negation of .* cannot be represented|division of .* by -1 cannot)/,
    'signed-integer-overflow',
  ],
  [/^unsigned integer overflow/, 'unsigned-integer-overflow'],
  [/^division by zero/, 'division-by-zero'],
  [/^(?:load of|store to|member access within|member call on|reference binding to) null pointer/, 'null-pointer-use'],
  [/^applying (?:non-zero|zero) offset .* null pointer|^pointer index expression/, 'pointer-overflow'],
  [/^(?:load of|store to|member access within|member call on) misaligned address/, 'misaligned-pointer-use'],
  [/^shift exponent|^left shift of/, 'shift-out-of-bounds'],
  [/^index -?\d+ out of bounds/, 'index-out-of-bounds'],
  [/with insufficient space for an object/, 'object-size'],
  [/^execution reached an unreachable program point/, 'unreachable'],
  [/^execution reached the end of a value-returning function/, 'missing-return'],
  [/^load of value .* which is not a valid value for type '(?:bool|_Bool)'/, 'invalid-bool-load'],
  [/^load of value .* which is not a valid value for type/, 'invalid-enum-load'],
  [/^variable length array bound/, 'vla-bound'],
  [/^null pointer (?:passed as argument|returned from function)/, 'nonnull-attribute'],
  [/is outside the range of representable values/, 'float-cast-overflow'],
  [/^implicit conversion from/, 'implicit-conversion'],
  [/^call to function .* through pointer to incorrect function type/, 'function-type-mismatch'],
];

const clip = (s: string): string => (s.length > MAX_LINE ? `${s.slice(0, MAX_LINE)}…` : s);

/** True for a frame of a sanitizer runtime (its interceptors, reporting and dying code). */
export function isSanitizerRuntimeFrame(frame: { function?: string; file?: string; library?: string }): boolean {
  const fn = frame.function ?? '';
  if (/^_{2,3}(?:interceptor_|asan|lsan|ubsan|tsan|msan|hwasan|sanitizer)/.test(fn)) return true;
  // UBSan's handlers are templates outside its namespace: handleIntegerOverflowImpl<…>.
  if (/^handle[A-Z]\w*Impl\b/.test(fn)) return true;
  const file = frame.file ?? '';
  // GCC's copy (../../../../src/libsanitizer/…) and LLVM's (compiler-rt/lib/…).
  if (/(?:^|\/)(?:libsanitizer|compiler-rt\/lib|sanitizer_common)\//.test(file)) return true;
  return /(?:^|\/)lib(?:asan|ubsan|lsan|tsan|hwasan|clang_rt\.[a-z_]+)[^/]*\.so/.test(frame.library ?? '');
}

/** glibc's own frames (below main, or a libc function the program called). */
function isLibcFrame(frame: ReportFrame): boolean {
  if (/^(?:__libc_start|_start$|__GI_)/.test(frame.function ?? '')) return true;
  return /^\.{1,2}\/(?:sysdeps|csu|nptl|stdlib|string|libio|malloc|posix|signal)\//.test(frame.file ?? '');
}

function parseFrame(line: string): ReportFrame | undefined {
  const m = FRAME.exec(line);
  if (!m) return undefined;
  const frame: ReportFrame = { index: Number(m[1]), address: m[2] };
  if (m[4]) frame.module = m[4];
  const rest = m[3];
  if (rest) {
    const src = SOURCE_TAIL.exec(rest);
    if (src?.[1] && src[2]) {
      frame.function = src[1];
      frame.file = src[2];
      frame.line = Number(src[3]);
      if (src[4]) frame.column = Number(src[4]);
    } else {
      frame.function = rest;
    }
  }
  return frame;
}

function ubsanKind(message: string): string {
  for (const [pattern, kind] of UBSAN_KINDS) if (pattern.test(message)) return kind;
  return 'undefined-behavior';
}

function firstUser(frames: ReportFrame[]): SanitizerReport['firstUserFrame'] {
  const f = frames.find(
    (fr) => fr.file !== undefined && fr.line !== undefined && !isSanitizerRuntimeFrame(fr) && !isLibcFrame(fr),
  );
  if (f?.file === undefined || f.line === undefined) return undefined;
  return { function: f.function, file: f.file, line: f.line, ...(f.column ? { column: f.column } : {}) };
}

function where(frame: SanitizerReport['firstUserFrame']): string {
  if (!frame) return '';
  const base = frame.file.split('/').pop() ?? frame.file;
  return frame.function ? ` in ${frame.function} (${base}:${frame.line})` : ` at ${base}:${frame.line}`;
}

function describe(report: Omit<SanitizerReport, 'hint'>, message: string): string {
  if (report.kind === 'unavailable-under-ptrace') {
    return (
      'LeakSanitizer cannot run under a debugger: it stops the threads with ptrace itself, and a ' +
      'traced program cannot be traced twice, so no leak report is possible here. Run the program ' +
      'without the debugger to get its leak report, or set detect_leaks=0 (ASAN_OPTIONS, or ' +
      'LSAN_OPTIONS for -fsanitize=leak) to run it under the debugger without the leak check.'
    );
  }
  const a = report.access;
  const access = a
    ? ` (${a.op} of ${a.size === undefined ? '' : `${a.size} byte${a.size === 1 ? '' : 's'} `}at ${a.address})`
    : '';
  // UBSan's message usually starts with its kind in words ("signed integer overflow: …"): once is enough.
  const saysKind = message.toLowerCase().startsWith(report.kind.replace(/-/g, ' '));
  const what =
    report.sanitizer === 'UndefinedBehaviorSanitizer'
      ? saysKind
        ? clip(message)
        : `${report.kind}: ${clip(message)}`
      : report.kind;
  return `${report.sanitizer} reported ${what}${access}${where(report.firstUserFrame)}`;
}

/**
 * The `#N` frame lines that follow a report's header: they start within a few lines (after the
 * access line, the SEGV notes, or LSan's "Direct leak of …") and end at the first other line.
 */
function framesFrom(lines: string[], start: number): ReportFrame[] {
  const frames: ReportFrame[] = [];
  for (let i = start; i < lines.length && i < start + 200; i++) {
    const f = parseFrame(lines[i] ?? '');
    if (!f && frames.length === 0 && i >= start + 4) break;
    if (f) {
      // A second stack (freed by, allocated by) starts again at #0.
      if (f.index === 0 && frames.length > 0) break;
      if (frames.length < MAX_FRAMES) frames.push(f);
    } else if (frames.length > 0) {
      break;
    }
  }
  return frames;
}

/**
 * Every sanitizer report in `text`, in the order printed. A halting report is the last one; a
 * recovering UBSan prints one per problem and goes on.
 */
export function parseSanitizerReports(text: string): SanitizerReport[] {
  const lines = text.replace(ANSI, '').split(/\r?\n/);
  const reports: SanitizerReport[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    const header = HEADER.exec(line);
    const ubsan = header ? undefined : UBSAN_ERROR.exec(line);
    const ptrace = header || ubsan ? undefined : LSAN_PTRACE.test(line);
    if (!header && !ubsan && !ptrace) continue;
    const pid = /^==(\d+)==/.exec(line)?.[1];
    if (ptrace) {
      const partial = {
        sanitizer: 'LeakSanitizer' as const,
        kind: 'unavailable-under-ptrace',
        errorLine: clip(line),
        frames: [],
        ...(pid ? { pid: Number(pid) } : {}),
      };
      reports.push({ ...partial, hint: describe(partial, '') });
      // Its two HINT lines belong to the same report.
      while (i + 1 < lines.length && /^==\d+==HINT: /.test(lines[i + 1] ?? '')) i++;
      continue;
    }
    let sanitizer: SanitizerName;
    let kind: string;
    let message: string;
    let access: SanitizerReport['access'];
    let end = lines.length;
    if (header) {
      sanitizer = header[1] as SanitizerName;
      message = header[2] ?? '';
      // `attempting double-free on …`, `heap-use-after-free on address …`, `detected memory leaks`.
      kind = /^detected memory leaks/.test(message)
        ? 'memory-leak'
        : (/^(?:attempting )?([A-Za-z0-9_-]+)/.exec(message)?.[1] ?? 'unknown').replace(/_/g, '-');
    } else {
      sanitizer = 'UndefinedBehaviorSanitizer';
      message = ubsan?.[4] ?? '';
      kind = ubsanKind(message);
    }
    // The report runs to its SUMMARY line, or to the next report.
    let summaryLine: string | undefined;
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j] ?? '';
      if (SUMMARY.test(l)) {
        summaryLine = l;
        end = j + 1;
        break;
      }
      if (HEADER.test(l) || UBSAN_ERROR.test(l)) {
        end = j;
        break;
      }
    }
    const summary = summaryLine ? SUMMARY.exec(summaryLine) : undefined;
    // The SUMMARY names the kind canonically (bad-free, SEGV, a UBSan check with report_error_type).
    if (summary?.[2] && summary[1] === sanitizer && !/^\d/.test(summary[2]) && summary[2] !== 'undefined-behavior') {
      kind = summary[2];
    }
    kind = kind.toLowerCase() === 'segv' ? 'segv' : kind;
    for (let j = i; j < Math.min(end, i + 6); j++) {
      const l = lines[j] ?? '';
      const m = ACCESS.exec(l);
      if (m?.[3]) {
        access = { op: m[1] as 'READ' | 'WRITE', size: Number(m[2]), address: m[3] };
        break;
      }
      const segv = SEGV_ACCESS.exec(l);
      const address = UNKNOWN_ADDRESS.exec(line)?.[1];
      if (segv && address) {
        access = { op: segv[1] as 'READ' | 'WRITE', address };
        break;
      }
    }
    const frames = framesFrom(lines.slice(0, end), i + 1);
    let firstUserFrame = firstUser(frames);
    if (!firstUserFrame && ubsan?.[1]) {
      // Without print_stacktrace UBSan gives only the place, from the compiler: no function.
      firstUserFrame = { file: ubsan[1], line: Number(ubsan[2]), column: Number(ubsan[3]) };
    }
    const partial = {
      sanitizer,
      kind,
      errorLine: clip(line),
      ...(summaryLine ? { summaryLine: clip(summaryLine) } : {}),
      ...(access ? { access } : {}),
      ...(firstUserFrame ? { firstUserFrame } : {}),
      frames,
      ...(pid ? { pid: Number(pid) } : {}),
    };
    reports.push({ ...partial, hint: describe(partial, message) });
    i = Math.max(i, end - 1);
  }
  return reports;
}
