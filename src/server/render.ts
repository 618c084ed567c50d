// Short text renderings, terminal-like: what a person (or a model) reads at a glance beside the
// structured answer. Never a JSON dump of the same data.

import type {
  Breakpoint,
  ExitEvent,
  Frame,
  Instruction,
  StopEvent,
  TargetException,
  Variable,
} from '../model/model.js';
import type { SourceWindow, StackEntry, ThreadEntry, ViewData } from '../session/evidence.js';
import { describeFrame, summarizeStop } from '../session/evidence.js';
import type { RunOutcome } from '../session/session.js';

/**
 * Untrusted text on one line (a value, a name of a file, function, library or thread, a message
 * that quotes the debugger): C0/C1 controls, ESC and line breaks as \xNN or \n, and Unicode line
 * separators and bidi controls as \uNNNN, so no terminal sequence survives and none of it starts a
 * line of its own that could pass for the server's (`stop 2: …`, `hint: …`, `[session …]`). Tabs stay.
 */
export function printable(text: string): string {
  return text
    .replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, (c) =>
      c === '\n' ? '\\n' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    )
    .replace(/[\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/**
 * Untrusted text of many lines (program output, the debugger's console): each line escaped as
 * printable. A Windows line end (\r\n, what a program under Wine prints) ends a line as \n does.
 */
export function printableLines(text: string): string[] {
  return text.split(/\r?\n/).map(printable);
}

/** The mark before each quoted line of the program's (or the debugger's) text: no server line starts so. */
export const QUOTE = '| ';

/** Untrusted lines quoted: escaped, each behind `| `. */
export function quotedLines(text: string): string[] {
  return printableLines(text).map((l) => `${QUOTE}${l}`);
}

function shortLib(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const i = path.lastIndexOf('/');
  return i >= 0 ? path.slice(i + 1) : path;
}

export function renderArgs(args: readonly Variable[] | undefined): string {
  if (!args) return '';
  return printable(`(${args.map((a) => `${a.name}=${a.value ?? '…'}`).join(', ')})`);
}

export function renderFrame(f: Frame): string {
  const fn = `${f.function ?? '??'}${f.args ? ` ${renderArgs(f.args)}` : ''}`;
  let where = '';
  if (f.file !== undefined && f.line !== undefined) where = ` at ${f.file}:${f.line}`;
  else if (f.library) where = ` in ${shortLib(f.library)}`;
  else if (f.address) where = ` at ${f.address}`;
  return printable(`#${f.level} ${fn}${where}`);
}

export function renderStackEntry(e: StackEntry): string {
  if ('repeated' in e) {
    const f = e.frame;
    const where = f.file !== undefined && f.line !== undefined ? ` at ${f.file}:${f.line}` : '';
    return `#${e.fromLevel}-#${e.toLevel} ${f.function ?? '??'}${where} ×${e.repeated} (the same call, recursing)`;
  }
  if ('folded' in e) {
    const fns =
      e.functions.length > 3 ? `${e.functions[0]} … ${e.functions[e.functions.length - 1]}` : e.functions.join(', ');
    return printable(`#${e.fromLevel}-#${e.toLevel} ${e.folded} frames${e.library ? ` in ${e.library}` : ''}: ${fns}`);
  }
  return renderFrame(e);
}

export function renderVariables(vars: readonly Variable[]): string {
  if (vars.length === 0) return '(none)';
  return printable(vars.map((v) => `${v.type ? `${v.type} ` : ''}${v.name} = ${v.value ?? '…'}`).join(', '));
}

export function renderSource(w: SourceWindow): string[] {
  const width = String(w.lines[w.lines.length - 1]?.line ?? w.line).length;
  return w.lines.map((l) => `${l.line === w.line ? '>' : ' '}${String(l.line).padStart(width)}  ${printable(l.text)}`);
}

function renderInstruction(i: Instruction): string {
  const at = i.function ? `<${i.function}+${i.offset ?? 0}>` : '';
  return printable(`${i.address} ${at}: ${i.instruction}`);
}

export function renderExit(e: ExitEvent): string {
  if (e.killed) return e.reason ? printable(`the program was killed: ${e.reason}`) : 'the program was killed';
  if (e.signal) return printable(`the program was killed by ${e.signal.name} (${e.signal.meaning})`);
  return `the program exited with code ${e.code ?? 0}`;
}

/** The OS exception behind a stop, with how its access and address are known. */
export function renderException(e: TargetException): string {
  const access = e.access
    ? `; ${e.access}${e.address ? ` ${e.access === 'execute' ? 'at' : 'of'} ${e.address}` : ''}`
    : '';
  const how = e.inferredFrom ? ` (inferred from ${e.inferredFrom})` : '';
  const second = e.secondChance ? '; second chance: no handler took it, continuing ends the program' : '';
  return `exception: ${e.name} 0x${e.code.toString(16)}${access}${how}: ${e.meaning}${second}`;
}

export function renderOutcome(o: RunOutcome): string {
  switch (o.kind) {
    case 'stopped':
      return `stop ${o.stopId}: ${printable(summarizeStop(o.stop))}${unknownReason(o.stop)}${o.stop.exception ? `\n${renderException(o.stop.exception)}` : ''}${o.stop.recordNote ? `\nrecord: ${printable(o.stop.recordNote)}` : ''}`;
    case 'exited':
      return renderExit(o.exit);
    case 'running':
      return 'still running at the deadline (dbg_run action=interrupt stops it)';
    case 'dead':
      return `the debugger died: ${printable(o.reason)}`;
  }
}

/** A stop for a reason we do not know by name: the debugger's own words for it. */
function unknownReason(stop: StopEvent): string {
  return stop.reason === 'unknown' && stop.rawReason ? ` (${printable(stop.rawReason)})` : '';
}

function renderThread(t: ThreadEntry): string[] {
  const head = `thread ${t.id}${t.pid !== undefined ? ` of pid ${t.pid}` : ''}${t.name ? ` "${t.name}"` : ''}${t.targetId ? ` (${t.targetId})` : ''} ${t.state}${t.waiting ? `, waiting: ${t.waiting}` : ''}`;
  const lines = [printable(head)];
  if (t.stack) lines.push(...t.stack.map((e) => `  ${renderStackEntry(e)}`));
  else if (t.frame) lines.push(`  ${renderFrame(t.frame)}`);
  if (t.locals) lines.push(`  locals #${t.locals.level}: ${renderVariables(t.locals.variables)}`);
  return lines;
}

/** A view's lines; every piece of program or debug-info data in them escaped (printable). */
export function renderView(v: ViewData): string[] {
  return viewLines(v).map(printable);
}

function viewLines(v: ViewData): string[] {
  switch (v.view) {
    case 'stop': {
      const lines = [summarizeStop(v.stop)];
      if (v.stop.frame) lines.push(renderFrame(v.stop.frame));
      if (v.callers) lines.push(...v.callers.map(renderFrame));
      if (v.source) lines.push(...renderSource(v.source));
      return lines;
    }
    case 'crash': {
      const sig = v.signal ? `${v.signal.name} (${v.signal.meaning})` : 'crash';
      const lines = [
        `${sig}${v.faultAddress ? ` at ${v.faultAddress}` : ''}${v.threadId !== undefined ? `, thread ${v.threadId}` : ''}${v.pid !== undefined ? ` of pid ${v.pid}` : ''}`,
      ];
      lines.push(`hint: ${printable(v.hint)}`);
      if (v.report) {
        lines.push(`report: ${printable(v.report.errorLine)}`);
        if (v.report.summaryLine) lines.push(`report: ${printable(v.report.summaryLine)}`);
      }
      lines.push(...v.stack.map(renderStackEntry));
      if (v.depth !== undefined) {
        lines.push(v.depthAtLeast ? `… at least ${v.depth} frames (counted no further)` : `… ${v.depth} frames in all`);
      }
      for (const l of v.locals) lines.push(`locals #${l.level} ${l.function ?? ''}: ${renderVariables(l.variables)}`);
      if (v.source) lines.push(...renderSource(v.source));
      if (v.instruction) lines.push(`pc: ${renderInstruction(v.instruction)}`);
      // With a report, the output's last lines are the report's own legend.
      if (v.outputTail && !v.report) {
        const tail = quotedLines(v.outputTail.trimEnd()).slice(-4);
        lines.push(`program output (last ${tail.length} line${tail.length === 1 ? '' : 's'}):`, ...tail);
      }
      return lines;
    }
    case 'stack':
      return [
        ...v.frames.map(renderFrame),
        ...(v.more ? [`… more frames: ask again with from=${v.from + v.frames.length}`] : []),
      ];
    case 'threads': {
      const lines = v.threads.flatMap(renderThread);
      if (v.more) lines.push(`… ${v.total - v.threads.length} more threads`);
      if (v.hint) lines.push(`hint: ${v.hint}`);
      return lines;
    }
    case 'frame': {
      const lines = [renderFrame(v.frame), `locals: ${renderVariables(v.locals)}`];
      if (v.source) lines.push(...renderSource(v.source));
      return lines;
    }
    case 'locals':
    case 'args':
      return [
        `${v.view} of frame ${v.frame}: ${renderVariables(v.variables)}${v.omitted ? ` (+${v.omitted} more)` : ''}`,
      ];
    case 'registers':
      return [v.registers.map((r) => `${r.name}=${r.value}`).join(' ')];
    case 'source':
      return [`${v.source.file}:`, ...renderSource(v.source)];
    case 'libraries':
      return [
        ...v.libraries.map((l) => `${l.ranges[0]?.from ?? '?'} ${l.path}${l.symbolsLoaded ? '' : ' (no symbols)'}`),
        ...(v.total > v.libraries.length ? [`… ${v.total - v.libraries.length} more`] : []),
      ];
  }
}

export function renderBreakpoint(b: Breakpoint): string {
  const flags = [b.enabled ? '' : 'disabled', b.temporary ? 'temporary' : '', b.pending ? 'pending' : ''].filter(
    Boolean,
  );
  const where =
    b.file !== undefined && b.line !== undefined
      ? `${b.function ? `${b.function} ` : ''}at ${b.file}:${b.line}`
      : (b.what ?? b.requested ?? b.address ?? '');
  const extra = [
    b.condition ? `if ${b.condition}` : '',
    b.ignoreCount ? `ignore next ${b.ignoreCount}` : '',
    b.locations.length > 1 ? `${b.locations.length} locations` : '',
  ].filter(Boolean);
  return printable(
    `${b.number} ${b.type} ${where}${flags.length ? ` [${flags.join(', ')}]` : ''}${extra.length ? ` ${extra.join(', ')}` : ''} hits=${b.hits}`,
  );
}

export { describeFrame };
