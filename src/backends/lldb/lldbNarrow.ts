// lldb-dap's answers turned into the model, once, here: frames (with arguments parsed out of the
// frame name our custom frame format asks for), values, stop descriptions and siginfo, modules,
// instructions, and the hit counts of `breakpoint list`. No other file reads LLDB's words.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Frame, Instruction, Library, SignalInfo, Variable } from '../../model/model.js';

/**
 * The frame name lldb-dap is asked to build (launch/attach `customFrameFormat`): the function's
 * plain name, a unit separator, and the name with its arguments. The plain name lets the argument
 * list be cut off the second part without guessing where a C++ name ends; the separator (0x1f) is
 * a control character, which neither symbol names nor LLDB's escaped value summaries contain.
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: LLDB's format syntax, not a template
export const FRAME_FORMAT = '${function.name-without-args}\x1f${function.name-with-args}';
const SEPARATOR = '\x1f';

/** Values LLDB prints as 16 hex digits: GDB's shortest form (0x0, 0x7ffff7fbeff8), which is also shorter. */
export function tidyValue(value: string): string {
  return value.replace(/^0x0+([0-9a-fA-F])/, '0x$1');
}

/**
 * Splits `a=1, b="x, y", c={...}` at its top-level commas: quotes (with backslash escapes),
 * parentheses, braces and brackets nest. Returns undefined when the text does not parse.
 */
export function splitArguments(text: string): Variable[] | undefined {
  const args: Variable[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  const push = (end: number): boolean => {
    const part = text.slice(start, end).trim();
    if (part === '') return args.length === 0 && end === text.length;
    const eq = /^([A-Za-z_$][\w$:.]*)=/.exec(part);
    if (!eq?.[1]) return false;
    args.push({ name: eq[1], value: tidyValue(part.slice(eq[0].length)) });
    return true;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      if (!push(i)) return undefined;
      start = i + 1;
    }
  }
  if (quote !== '' || !push(text.length)) return undefined;
  return args;
}

/**
 * The argument list that ends `text`: the first top-level `(` whose `)` is the last character
 * (`S::operator()(this=…)` and `(anonymous namespace)::f(x=1)` have parentheses before it).
 */
function trailingArgumentList(text: string): { name: string; inner: string } | undefined {
  if (!text.endsWith(')')) return undefined;
  let depth = 0;
  let quote = '';
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if ((c === '"' || c === "'") && depth > 0) quote = c;
    else if (c === '(') {
      if (depth === 0) open = i;
      depth++;
    } else if (c === ')' && depth > 0) {
      depth--;
      if (depth === 0 && i === text.length - 1) return { name: text.slice(0, open), inner: text.slice(open + 1, i) };
    }
  }
  return undefined;
}

/** The function name and arguments out of a frame name in FRAME_FORMAT. */
export function parseFrameName(name: string): { function?: string; args?: Variable[] } {
  const at = name.indexOf(SEPARATOR);
  const plain = (at < 0 ? name : name.slice(0, at)).trim();
  const full = at < 0 ? '' : name.slice(at + 1).trim();
  // `update(p=0x0000000000000000, value=6)`. The plain name of a C++ function carries its
  // parameter types (`::parse(const std::string &)`); the full one's prefix is the shorter name.
  const list = trailingArgumentList(full);
  const out: { function?: string; args?: Variable[] } = {};
  const fn = list?.name.trim() || full || plain;
  if (fn !== '') out.function = fn;
  if (list) {
    const args = splitArguments(list.inner);
    if (args) out.args = args;
  }
  return out;
}

/** A path relative to a build tree, with GDB's `./` prefix. */
function relativePath(path: string): string {
  return path.startsWith('./') || path.startsWith('../') ? path : `./${path}`;
}

/**
 * A DAP stack frame as a model frame. Frames without debug info come with a made-up source (the
 * disassembly lldb-dap can serve by `sourceReference`, named `module\`symbol`): not a file and line.
 * A relative path (glibc's `nptl/futex-internal.c`: LLDB joins a relative compile directory with
 * `../` away) is given GDB's `./` prefix, the convention that marks a build tree's own path.
 */
export function narrowFrame(f: DebugProtocol.StackFrame, level: number, modules: ReadonlyMap<string, string>): Frame {
  const parsed = parseFrameName(f.name);
  const frame: Frame = { level };
  if (f.instructionPointerReference) frame.address = tidyValue(f.instructionPointerReference.toLowerCase());
  if (parsed.function) frame.function = parsed.function;
  const source = f.source;
  const real = source?.path !== undefined && !source.sourceReference && f.line > 0;
  if (real && source?.path) {
    const path = source.path;
    if (path.startsWith('/')) {
      frame.file = source.name ?? path.slice(path.lastIndexOf('/') + 1);
      frame.fullname = path;
    } else {
      frame.file = relativePath(path);
    }
    frame.line = f.line;
  }
  const module = f.moduleId === undefined ? undefined : modules.get(String(f.moduleId));
  if (module !== undefined) frame.library = module;
  // GDB lists no arguments as an empty list, for a function without parameters or debug info alike.
  frame.args = parsed.args ?? [];
  return frame;
}

/** What GDB calls each signal (its `signal-meaning`), so both backends say the same words. */
const SIGNAL_MEANINGS: Readonly<Record<string, string>> = {
  SIGHUP: 'Hangup',
  SIGINT: 'Interrupt',
  SIGQUIT: 'Quit',
  SIGILL: 'Illegal instruction',
  SIGTRAP: 'Trace/breakpoint trap',
  SIGABRT: 'Aborted',
  SIGBUS: 'Bus error',
  SIGFPE: 'Arithmetic exception',
  SIGKILL: 'Killed',
  SIGUSR1: 'User defined signal 1',
  SIGSEGV: 'Segmentation fault',
  SIGUSR2: 'User defined signal 2',
  SIGPIPE: 'Broken pipe',
  SIGALRM: 'Alarm clock',
  SIGTERM: 'Terminated',
  SIGCHLD: 'Child status changed',
  SIGCONT: 'Continued',
  SIGSTOP: 'Stopped (signal)',
  SIGTSTP: 'Stopped (user)',
  SIGSYS: 'Bad system call',
  SIGXCPU: 'CPU time limit exceeded',
  SIGXFSZ: 'File size limit exceeded',
};

/** Linux's signal numbers (x86-64 and AArch64 share them), for exits LLDB reports as numbers. */
export const SIGNAL_NUMBERS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGBUS: 7,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGSEGV: 11,
  SIGUSR2: 12,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGSYS: 31,
};

export function signalInfo(name: string, detail?: string): SignalInfo {
  const meaning = SIGNAL_MEANINGS[name] ?? name;
  return { name, meaning: detail ? `${meaning} (${detail})` : meaning };
}

export interface StopDescription {
  signal?: SignalInfo;
  /** The fault address LLDB wrote into the description (SIGSEGV only, and not over gdb-remote). */
  faultAddress?: string;
}

/**
 * `signal SIGSEGV: address not mapped to object (fault address=0x0)` (a live stop), or the same
 * without `signal ` (a core's first stop).
 */
export function parseStopDescription(description: string | undefined): StopDescription {
  const m = /^(?:signal )?(SIG[A-Z0-9]+)(?::\s*(.*?))?\s*$/.exec(description ?? '');
  if (!m?.[1]) return {};
  let detail = m[2];
  let faultAddress: string | undefined;
  const fault = detail === undefined ? null : /\s*\(fault address=(0x[0-9a-fA-F]+)\)\s*$/.exec(detail);
  if (fault?.[1] && detail !== undefined) {
    faultAddress = fault[1];
    detail = detail.slice(0, fault.index).trim();
  }
  return { signal: signalInfo(m[1], detail || undefined), ...(faultAddress ? { faultAddress } : {}) };
}

export interface Siginfo {
  signo?: number;
  code?: number;
  address?: string;
}

/** `thread siginfo`: `si_signo = 11`, `si_code = 1`, and `_sigfault = { si_addr = 0x… }`. */
export function parseSiginfo(text: string): Siginfo {
  const out: Siginfo = {};
  const signo = /\bsi_signo = (-?\d+)/.exec(text)?.[1];
  const code = /\bsi_code = (-?\d+)/.exec(text)?.[1];
  const addr = /_sigfault = \{\s*si_addr = (0x[0-9a-fA-F]+)/.exec(text)?.[1];
  if (signo !== undefined) out.signo = Number(signo);
  if (code !== undefined) out.code = Number(code);
  if (addr !== undefined) out.address = tidyValue(addr);
  return out;
}

/** A module as a library: its path and whether its symbols loaded. lldb-dap gives its load address only. */
export function narrowModule(m: DebugProtocol.Module): Library {
  const path = m.path ?? m.name;
  const from = typeof m.addressRange === 'string' ? /^0x[0-9a-fA-F]+/.exec(m.addressRange)?.[0] : undefined;
  return {
    path,
    symbolsLoaded: m.symbolStatus === 'Symbols loaded.',
    ranges: from ? [{ from: tidyValue(from.toLowerCase()), to: tidyValue(from.toLowerCase()) }] : [],
  };
}

/**
 * Instructions of a `disassemble` answer. lldb-dap names the source line on the first instruction
 * of each line only; the ones after it belong to the same line until the next one is named.
 */
export function narrowInstructions(list: readonly DebugProtocol.DisassembledInstruction[]): Instruction[] {
  let line: number | undefined;
  let file: string | undefined;
  let fullname: string | undefined;
  return list.map((i) => {
    if (i.line !== undefined && i.location?.path) {
      // As for frames: an absolute path is the file; a relative one is a build tree's (./…).
      const path = i.location.path;
      line = i.line;
      fullname = path.startsWith('/') ? path : undefined;
      file = fullname !== undefined ? (i.location.name ?? path.slice(path.lastIndexOf('/') + 1)) : relativePath(path);
    }
    // `movl    %esi, -0xc(%rbp)         `: LLDB pads columns for a terminal.
    const out: Instruction = {
      address: tidyValue(i.address.toLowerCase()),
      instruction: i.instruction.trim().replace(/\s+/g, ' '),
    };
    if (i.instructionBytes) out.opcodes = i.instructionBytes;
    if (i.symbol) {
      const m = /^(.*?)(?:\s*\+\s*(\d+))?$/.exec(i.symbol);
      if (m?.[1]) out.function = m[1].slice(m[1].lastIndexOf('`') + 1);
      if (m?.[2]) out.offset = Number(m[2]);
    }
    if (line !== undefined && file !== undefined) {
      out.line = line;
      out.file = file;
      if (fullname !== undefined) out.fullname = fullname;
    }
    return out;
  });
}

/**
 * Hit counts of `breakpoint list`: `3: file = '…', line = 18, …, hit count = 2`. A disabled one
 * has no count on its own line, only on its locations (`  3.1: where = …, hit count = 2`).
 */
export function parseHitCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const fromLocations = new Map<string, number>();
  for (const line of text.split('\n')) {
    const top = /^(\d+): .*?\bhit count = (\d+)/.exec(line);
    if (top?.[1] && top[2]) {
      counts.set(top[1], Number(top[2]));
      continue;
    }
    const loc = /^\s+(\d+)\.\d+: .*?\bhit count = (\d+)/.exec(line);
    if (loc?.[1] && loc[2]) fromLocations.set(loc[1], (fromLocations.get(loc[1]) ?? 0) + Number(loc[2]));
  }
  for (const [id, n] of fromLocations) if (!counts.has(id)) counts.set(id, n);
  return counts;
}

/** `Breakpoint 7: where = …` (or `Breakpoint 7: no locations (pending).`): the number `breakpoint set` made. */
export function parseBreakpointSet(text: string): { number: string; pending: boolean } | undefined {
  const m = /^Breakpoint (\d+): (.*)$/m.exec(text);
  if (!m?.[1]) return undefined;
  return { number: m[1], pending: /no locations|pending/.test(m[2] ?? '') };
}

/** `image lookup -a`: `Summary: deadlock\`ledger` or `libc.so.6\`__libc_start_call_main + 122 at …` → the symbol. */
export function parseSymbolSummary(text: string): string | undefined {
  const m = /Summary: (?:[^`\s]+`)?([^\s+]+)/.exec(text);
  return m?.[1];
}
