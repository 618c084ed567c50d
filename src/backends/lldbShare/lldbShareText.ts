// LLDB's command output, as its MCP `command` tool returns it, turned into the model once. LLDB's
// protocol server gives text only, so this reads the default formats of LLDB 22.1.8 (recorded in
// test/unit/backends/lldbShareText.test.ts). A person may have customised frame-format or
// thread-format: a line that does not parse is kept as it is (a frame named by its text), never
// guessed at.

import type {
  Breakpoint,
  BreakpointLocation,
  Frame,
  Instruction,
  Library,
  Register,
  SignalInfo,
  StopEvent,
  StopReason,
  Thread,
  Variable,
} from '../../model/model.js';

/** `target list`: the program, its process and state ("stopped", "running", "exited"), or none. */
export interface TargetStatus {
  program?: string;
  pid?: number;
  state: 'stopped' | 'running' | 'exited' | 'none';
}

export function narrowTargetList(text: string): TargetStatus {
  const m = /^\* target #\d+: (.*?) \( (.*) \)\s*$/m.exec(text);
  if (!m) return { state: 'none' };
  const fields = new Map(
    (m[2] ?? '').split(', ').flatMap((kv) => {
      const eq = kv.indexOf('=');
      return eq > 0 ? [[kv.slice(0, eq), kv.slice(eq + 1)] as const] : [];
    }),
  );
  const pid = Number(fields.get('pid'));
  const said = fields.get('state');
  const state =
    said === 'stopped' || said === 'running' || said === 'exited' ? said : said === undefined ? 'none' : 'running';
  return { ...(m[1] ? { program: m[1] } : {}), ...(Number.isInteger(pid) && pid > 0 ? { pid } : {}), state };
}

/** `statistics dump --summary --plugins false`: how often the target has stopped (a new stop changes it). */
export function narrowStopCount(text: string): number | undefined {
  try {
    const json = JSON.parse(text) as { targets?: { stopCount?: unknown }[] };
    const n = json.targets?.[0]?.stopCount;
    return typeof n === 'number' ? n : undefined;
  } catch {
    return undefined;
  }
}

/** `process status` when the program has exited: "Process 123 exited with status = 9 (0x00000009) killed". */
export function narrowExitStatus(text: string): { code?: number; pid?: number } {
  const m = /^Process (\d+) exited with status = (-?\d+)/m.exec(text);
  return m ? { pid: Number(m[1]), code: Number(m[2]) } : {};
}

/** What GDB calls each signal (the model's `meaning`), so both debuggers say it alike. */
const SIGNAL_MEANINGS: Record<string, string> = {
  SIGSEGV: 'Segmentation fault',
  SIGABRT: 'Aborted',
  SIGFPE: 'Arithmetic exception',
  SIGILL: 'Illegal instruction',
  SIGBUS: 'Bus error',
  SIGINT: 'Interrupt',
  SIGTRAP: 'Trace/breakpoint trap',
  SIGTERM: 'Terminated',
  SIGKILL: 'Killed',
  SIGSTOP: 'Stopped (signal)',
  SIGPIPE: 'Broken pipe',
  SIGUSR1: 'User defined signal 1',
  SIGUSR2: 'User defined signal 2',
  SIGALRM: 'Alarm clock',
  SIGCHLD: 'Child status changed',
};

/** "signal SIGSEGV: address not mapped to object (fault address=0x0)", "breakpoint 1.1", "step over"… */
export function narrowStopReason(said: string): Partial<StopEvent> & { reason: StopReason } {
  const text = said.trim();
  const signal = /^signal (SIG[A-Z0-9]+)(?::\s*(.*?))?(?:\s*\(fault address=(0x[0-9a-fA-F]+)\))?$/.exec(text);
  if (signal?.[1]) {
    const info: SignalInfo = { name: signal[1], meaning: SIGNAL_MEANINGS[signal[1]] ?? signal[2] ?? signal[1] };
    return { reason: 'signal-received', signal: info, ...(signal[3] ? { faultAddress: signal[3] } : {}) };
  }
  const bp = /^breakpoint (\d+)(?:\.\d+)?/.exec(text);
  if (bp?.[1]) return { reason: 'breakpoint-hit', breakpoint: bp[1] };
  const wp = /^watchpoint (\d+)/.exec(text);
  if (wp?.[1]) return { reason: 'watchpoint-trigger', breakpoint: wp[1] };
  if (/^step out/.test(text)) return { reason: 'function-finished' };
  if (/^(step (over|in)|instruction step (over|into)|trace|step)/.test(text)) return { reason: 'end-stepping-range' };
  if (/^exec/.test(text)) return { reason: 'exec' };
  if (/^v?fork/.test(text)) return { reason: text.startsWith('vfork') ? 'vfork' : 'fork' };
  return { reason: 'unknown', rawReason: text };
}

/** The argument list at the end of "update(p=0x0, value=6)": top-level commas, quotes and brackets respected. */
function splitArgs(inner: string): Variable[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{' || c === '<') depth++;
    else if (c === ')' || c === ']' || c === '}' || c === '>') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      return eq > 0 ? { name: p.slice(0, eq).trim(), value: p.slice(eq + 1).trim() } : { name: p };
    });
}

/** The index of the '(' that opens the last balanced (...) group ending at `end` (a ')'), or -1. */
function openingParen(text: string, end: number): number {
  let depth = 0;
  let quote = '';
  // Walk forwards to match quotes correctly, remembering each '(' at each depth.
  const opens: number[] = [];
  let match = -1;
  for (let i = 0; i <= end; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"') quote = c;
    else if (c === '(') {
      opens.push(i);
      depth++;
    } else if (c === ')') {
      depth--;
      const open = opens.pop();
      if (i === end && open !== undefined) match = open;
    }
  }
  return depth === 0 ? match : -1;
}

/**
 * One frame line of `thread backtrace`, e.g.
 * "  * frame #0: 0x000055555555519b crash`store(p=0x0000000000000000, value=12) at crash.c:13:8".
 */
export function narrowFrameLine(line: string): Frame | undefined {
  const m = /^\s*\*?\s*frame #(\d+): (0x[0-9a-fA-F]+)(?: (.*))?$/.exec(line);
  if (!m?.[1] || !m[2]) return undefined;
  const frame: Frame = { level: Number(m[1]), address: m[2] };
  let rest = (m[3] ?? '').trim();
  const at = /^(.*) at ([^\s:][^:]*):(\d+)(?::\d+)?$/.exec(rest);
  if (at?.[1] && at[2] && at[3]) {
    frame.file = at[2];
    frame.line = Number(at[3]);
    rest = at[1];
  }
  const tick = rest.indexOf('`');
  if (tick > 0 && !rest.slice(0, tick).includes(' ')) {
    frame.library = rest.slice(0, tick);
    rest = rest.slice(tick + 1);
  }
  rest = rest.replace(/ \[inlined\].*$/, '').replace(/ \+ \d+$/, '');
  if (rest.endsWith(')')) {
    const open = openingParen(rest, rest.length - 1);
    if (open > 0) {
      frame.args = splitArgs(rest.slice(open + 1, -1));
      rest = rest.slice(0, open);
    }
  }
  if (rest !== '') frame.function = rest;
  return frame;
}

/** `thread backtrace`: its frames (the header line about the thread is skipped). */
export function narrowBacktrace(text: string): Frame[] {
  return text.split('\n').flatMap((l) => {
    const f = narrowFrameLine(l);
    return f ? [f] : [];
  });
}

/** The head line of `thread backtrace` / `process status`: "* thread #2, name = 'x', stop reason = breakpoint 1.1". */
export function narrowThreadHead(text: string): { threadId?: number; reason?: string } {
  const m = /^\*? ?thread #(\d+)(?:[:,].*?)?(?:, stop reason = (.*))?$/m.exec(text);
  return m?.[1] ? { threadId: Number(m[1]), ...(m[2] ? { reason: m[2].trim() } : {}) } : {};
}

/**
 * `thread list`:
 * "* thread #2: tid = 13935, 0x00005555555551a5 threads`worker(arg=0x0) at threads.c:9:8, name = 'threads', stop reason = breakpoint 1.1"
 */
export function narrowThreadList(text: string): {
  threads: Thread[];
  currentThreadId?: number;
  reasons: Map<number, string>;
} {
  const threads: Thread[] = [];
  const reasons = new Map<number, string>();
  let currentThreadId: number | undefined;
  for (const line of text.split('\n')) {
    const m = /^(\*| ) thread #(\d+): tid = (\d+), (0x[0-9a-fA-F]+)(.*)$/.exec(line);
    if (!m?.[2] || !m[3] || !m[4]) continue;
    const id = Number(m[2]);
    let rest = m[5] ?? '';
    const reason = /, stop reason = (.*)$/.exec(rest);
    if (reason?.[1]) {
      reasons.set(id, reason[1].trim());
      rest = rest.slice(0, reason.index);
    }
    const name = /, name = '([^']*)'(?:, queue = .*)?$/.exec(rest);
    if (name) rest = rest.slice(0, name.index);
    const frame = narrowFrameLine(`frame #0: ${m[4]}${rest}`);
    threads.push({
      id,
      osThreadId: Number(m[3]),
      targetId: `Thread (LWP ${m[3]})`,
      state: 'stopped',
      ...(name?.[1] !== undefined ? { name: name[1] } : {}),
      ...(frame ? { frame } : {}),
    });
    if (m[1] === '*') currentThreadId = id;
  }
  return { threads, ...(currentThreadId !== undefined ? { currentThreadId } : {}), reasons };
}

/** "frame #2: 0x… crash`process(…) at crash.c:24:3" as `frame info` prints it: the frame's level. */
export function narrowFrameInfo(text: string): number | undefined {
  const m = /^frame #(\d+):/m.exec(text);
  return m?.[1] ? Number(m[1]) : undefined;
}

/**
 * An aggregate LLDB prints over several lines ("{", "  x = 1", "  y = {", "    z = 2", "  }", "}"),
 * as one line in GDB's style: "{x = 1, y = {z = 2}}".
 */
export function flattenValue(first: string, more: readonly string[]): string {
  if (more.length === 0) return first;
  let out = first;
  let needComma = false;
  for (const raw of more) {
    const line = raw.trim().replace(/^\([^()]*(?:\([^()]*\)[^()]*)*\) /, '');
    if (line === '') continue;
    if (line.startsWith('}')) {
      out += line;
      needComma = true;
      continue;
    }
    if (needComma) out += ', ';
    out += line;
    needComma = !line.endsWith('{');
  }
  return out;
}

/** A type in parentheses at the start of `text` (types may hold parentheses: "int (*)(int)"). */
function leadingType(text: string): { type: string; rest: string } | undefined {
  if (!text.startsWith('(')) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return { type: text.slice(1, i), rest: text.slice(i + 1).trimStart() };
  }
  return undefined;
}

/** `frame variable -s` (scope prefixes ARG:/LOCAL:) or plain `frame variable`: the top-level variables. */
export function narrowVariables(text: string): Variable[] {
  const vars: (Variable & { more: string[] })[] = [];
  for (const line of text.split('\n')) {
    const scoped = /^(ARG|LOCAL|GLOBAL|STATIC|THREAD): (.*)$/.exec(line);
    const body = scoped ? (scoped[2] ?? '') : line;
    const typed = !/^\s/.test(body) ? leadingType(body) : undefined;
    const eq = typed ? typed.rest.indexOf(' = ') : -1;
    if (typed && eq > 0) {
      vars.push({
        name: typed.rest.slice(0, eq),
        type: typed.type,
        value: typed.rest.slice(eq + 3),
        ...(scoped ? { isArg: scoped[1] === 'ARG' } : {}),
        more: [],
      });
    } else if (vars.length > 0 && line.trim() !== '') {
      vars[vars.length - 1]?.more.push(line);
    }
  }
  return vars.map(({ more, ...v }) => ({ ...v, value: flattenValue(v.value ?? '', more) }));
}

/** The value of one `frame variable NAME` or `expression` answer: "(int) value = 12", "(int) 24". */
export function narrowValue(text: string): string {
  const lines = text.split('\n').filter((l) => !/^note: /.test(l));
  const first = lines.findIndex((l) => l.startsWith('('));
  if (first < 0) return text.trim();
  const typed = leadingType(lines[first] as string);
  if (!typed) return text.trim();
  // expression: "(int) 24"; frame variable: "(int) value = 12"; expression of an aggregate: "(record)  (id = 7, …)".
  const eq = typed.rest.indexOf(' = ');
  const named = eq > 0 && /^[^\s"'(]+$/.test(typed.rest.slice(0, eq));
  const head = named ? typed.rest.slice(eq + 3) : typed.rest;
  const more = lines.slice(first + 1).filter((l) => l.trim() !== '');
  return flattenValue(head, more).trim();
}

/** The text of an error answer, its "error: " prefix and the caret lines LLDB draws removed. */
export function errorText(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !/^note: /.test(l) && !/^\s+(\d+ \||\|)/.test(l));
  return (lines.find((l) => l.startsWith('error: ')) ?? lines[0] ?? 'LLDB refused the command')
    .replace(/^error: /, '')
    .replace(/^<user expression \d+>:\d+:\d+: /, '')
    .trim();
}

/** `register read`: "     rip = 0x0000555555555183  data`scale + 10 at data.c:22:7". */
export function narrowRegisters(text: string): Register[] {
  const out: Register[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s+([A-Za-z_][\w.]*) = (\S+(?: \S+)*?)(?:\s{2,}.*)?$/.exec(line);
    if (m?.[1] && m[2]) out.push({ number: out.length, name: m[1], value: m[2] });
  }
  return out;
}

/** `memory read --format x --size 1`: "0x555555558010: 0x40 0x20 …" → its first address and the bytes as hex. */
export function narrowMemory(text: string): { address?: string; hex: string } {
  let address: string | undefined;
  let hex = '';
  for (const line of text.split('\n')) {
    const m = /^(0x[0-9a-fA-F]+): ((?:0x[0-9a-fA-F]{2}\s*)+)/.exec(line);
    if (!m?.[1] || !m[2]) continue;
    address ??= m[1];
    for (const b of m[2].trim().split(/\s+/)) hex += b.slice(2).toLowerCase();
  }
  return { ...(address ? { address } : {}), hex };
}

/**
 * `disassemble` (with --bytes): "data`scale:" heads a function; "->  0x555555555183 <+10>: 8b 45 ec     movl   -0x14(%rbp), %eax"
 * is an instruction, "->" marking the pc.
 */
export function narrowDisassembly(text: string, withOpcodes: boolean): { instructions: Instruction[]; pc?: string } {
  const instructions: Instruction[] = [];
  let fn: string | undefined;
  let pc: string | undefined;
  for (const line of text.split('\n')) {
    const head = /^(?:[^\s`]+`)?([^\s:][^:]*):$/.exec(line);
    if (head?.[1] && !/^\s/.test(line)) {
      fn = head[1];
      continue;
    }
    const m = /^(->)?\s*(0x[0-9a-fA-F]+)(?: <\+(\d+)>)?:\s+(.*)$/.exec(line);
    if (!m?.[2] || m[4] === undefined) continue;
    let rest = m[4];
    let opcodes: string | undefined;
    if (withOpcodes) {
      const ops = /^((?:[0-9a-f]{2} )*[0-9a-f]{2})(?:\s{2,}(.*))?$/.exec(rest);
      if (ops?.[1]) {
        opcodes = ops[1];
        rest = ops[2] ?? '';
      }
    }
    if (m[1]) pc = m[2];
    instructions.push({
      address: m[2],
      instruction: rest.trim().replace(/\s+/g, ' '),
      ...(fn ? { function: fn } : {}),
      ...(m[3] !== undefined ? { offset: Number(m[3]) } : {}),
      ...(opcodes ? { opcodes } : {}),
    });
  }
  return { instructions, ...(pc ? { pc } : {}) };
}

/** `source info -a ADDR`: "[0x…-0x…): /work/x/crash.c:13:8" → the file's path as the debug info gives it. */
export function narrowSourceInfo(text: string): string | undefined {
  return /^\[0x[0-9a-fA-F]+-0x[0-9a-fA-F]+\): (.+?):\d+(?::\d+)?$/m.exec(text)?.[1];
}

/** `image list -f`: "[  3] /lib/x86_64-linux-gnu/libc.so.6"; the main program (index 0) is not a library. */
export function narrowImages(text: string): Library[] {
  const out: Library[] = [];
  for (const line of text.split('\n')) {
    const m = /^\[\s*(\d+)\] (\S.*?)\s*$/.exec(line);
    if (!m?.[1] || !m[2] || m[1] === '0') continue;
    const path = m[2].replace(/\(0x[0-9a-fA-F]+\)$/, '').trim();
    out.push({ path, symbolsLoaded: true, ranges: [] });
  }
  return out;
}

/**
 * `breakpoint list`:
 * "1: name = 'square', locations = 1, resolved = 1, hit count = 2"
 * "  1.1: where = loop`square + 7 at loop.c:7:7, address = 0x0000555555555140, resolved, hit count = 2"
 */
export function narrowBreakpoints(text: string): Breakpoint[] {
  const out: Breakpoint[] = [];
  for (const line of text.split('\n')) {
    const top = /^(\d+): (.*)$/.exec(line);
    if (top?.[1] && top[2] !== undefined) {
      const body = top[2];
      const name = /^name = '([^']*)'/.exec(body)?.[1];
      const file = /^file = '([^']*)', line = (\d+)/.exec(body);
      const hits = Number(/hit count = (\d+)/.exec(body)?.[1] ?? 0);
      out.push({
        number: top[1],
        type: 'breakpoint',
        enabled: !/Options: .*disabled/.test(body),
        temporary: /one-shot/.test(body),
        pending: /locations = 0|\(pending\)/.test(body),
        hits,
        locations: [],
        ...(name !== undefined ? { requested: name } : file?.[1] ? { requested: `${file[1]}:${file[2]}` } : {}),
      });
      continue;
    }
    const current = out[out.length - 1];
    if (!current) continue;
    const cond = /^\s+Condition: (.*)$/.exec(line);
    if (cond?.[1]) current.condition = cond[1];
    const loc =
      /^\s+(\d+\.\d+): where = (?:[^`\s]+`)?(\S+)(?: \+ \d+)?(?: at ([^:]+):(\d+)(?::\d+)?)?, address = (0x[0-9a-fA-F]+)/.exec(
        line,
      );
    if (loc?.[1]) {
      const location: BreakpointLocation = {
        id: loc[1],
        enabled: !/disabled/.test(line),
        ...(loc[5] ? { address: loc[5] } : {}),
        ...(loc[2] ? { function: loc[2] } : {}),
        ...(loc[3] ? { file: loc[3] } : {}),
        ...(loc[4] ? { line: Number(loc[4]) } : {}),
      };
      current.locations.push(location);
      if (current.locations.length === 1) {
        Object.assign(current, {
          ...(location.address ? { address: location.address } : {}),
          ...(location.function ? { function: location.function } : {}),
          ...(location.file ? { file: location.file } : {}),
          ...(location.line !== undefined ? { line: location.line } : {}),
        });
      }
    }
  }
  return out;
}
