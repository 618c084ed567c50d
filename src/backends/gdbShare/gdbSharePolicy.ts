// What an agent may ask of a person's gdb through a share, one MI command at a time. The share
// process applies it to every line before gdb sees it (so a server of any version, or a bug in
// it, cannot do more than the person allowed), and the joined backend applies it first for a
// clearer refusal. Reading: stacks, threads, frames' variables, expressions that do not write,
// memory, registers, disassembly, the breakpoint list. Control (dbg-mcp share --allow-control)
// adds running, stepping and interrupting, and breakpoints of the agent's own. Never: starting,
// killing, detaching or ending the person's program or gdb, writing memory or variables, calling
// functions, changing settings, moving the person's selected thread or frame.

import type { MiInput } from '../../protocols/mi/miInputParser.js';
import type { ShareAccess } from '../debuggerBackend.js';
import { classifyGdbCommand } from '../gdb/gdbRawPolicy.js';
import { expressionEffects } from '../shares/expressionEffects.js';

/** MI commands that only read (expressions among their arguments are checked for writes). */
const READ = new Set([
  'thread-info',
  'thread-list-ids',
  'stack-list-frames',
  'stack-list-arguments',
  'stack-list-locals',
  'stack-list-variables',
  'stack-info-depth',
  'stack-info-frame',
  'data-evaluate-expression',
  'data-list-register-names',
  'data-list-register-values',
  'data-list-changed-registers',
  'data-read-memory-bytes',
  'data-read-memory',
  'data-disassemble',
  'break-list',
  'list-thread-groups',
  'gdb-version',
  'gdb-show',
  'list-features',
  'list-target-features',
  'var-create',
  'var-delete',
  'var-evaluate-expression',
  'var-list-children',
  'var-info-type',
  'var-info-expression',
  'var-info-path-expression',
  'var-info-num-children',
  'var-show-format',
  'var-set-format',
  'var-update',
  'file-list-exec-source-file',
  'file-list-exec-source-files',
  'file-list-shared-libraries',
  'symbol-list-lines',
  'inferior-tty-show',
  'info-os',
  'interpreter-exec',
]);

/** Run control, given to a person's gdb only with --allow-control. */
const RUN = new Set([
  'exec-continue',
  'exec-next',
  'exec-step',
  'exec-next-instruction',
  'exec-step-instruction',
  'exec-finish',
  'exec-until',
  'exec-interrupt',
]);

/** Breakpoints, with --allow-control: inserting any, changing only the agent's own. */
const BREAK_NEW = new Set(['break-insert', 'break-watch']);
const BREAK_OWN = new Set(['break-delete', 'break-enable', 'break-disable', 'break-condition', 'break-after']);

/** Options whose text is no expression, exempt from the write check. */
const OPTION =
  /^(-[a-z]|--|--(thread|frame|language|all-values|simple-values|no-values|skip-unavailable|no-frame-filters|thread-group|all|recurse|available|i|x|r|c|t))$/;

/** CLI commands the agent may run through -interpreter-exec console (first word, GDB's spellings). */
const CLI_READ = new Set(['backtrace', 'bt', 'where', 'ptype', 'whatis', 'output', 'disassemble', 'show', 'help']);
const INFO = /^(i|inf|info)$/;
/** `info` subcommands that only read; the short forms GDB takes for them. */
const INFO_READ =
  /^(symbol|sym|program|prog|frame|f|registers|reg|r|all-registers|threads|thr|breakpoints|break|b|sharedlibrary|shared|dll|source|line|locals|args|inferiors|signals|display|proc|scope|address|files)$/;
/** With control, the CLI commands that move the program (MI has no -exec-advance). */
const CLI_RUN = new Set(['advance']);

export interface GdbShareAsk {
  access: ShareAccess;
  /** Breakpoint numbers the agent created (it may change only those). */
  own: ReadonlySet<string>;
  /** The share's id, for the command the person can type. */
  id: string;
}

/** What the person types to allow running the program. */
export function allowControlHint(id: string): string {
  return `the person can allow it by typing: dbg-mcp share --allow-control --id ${id} (in gdb: !dbg-mcp share --allow-control --id ${id})`;
}

/** Why an expression may not be evaluated on a person's gdb: it writes, or calls past the program. */
function expressionRefusal(text: string): string | undefined {
  const effect = expressionEffects(text, 'gdb')[0];
  if (effect === undefined) return undefined;
  if (effect.kind === 'write') return `"${effect.what}" would change the person's program; a shared gdb is only read`;
  if (effect.kind === 'program-call') return `${effect.reason}: a shared gdb makes no calls`;
  return `${effect.reason}; a shared gdb is only read`;
}

function writes(args: readonly string[]): string | undefined {
  for (const a of args) {
    if (OPTION.test(a)) continue;
    const why = expressionRefusal(a);
    if (why) return why;
  }
  return undefined;
}

function cliRefusal(command: string, ask: GdbShareAsk): string | undefined {
  // One command per line: what gdb makes of a second line inside one is not ours to guess
  // (measured, GDB 13 ran only the first of "show version\nshow confirm").
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(command)) return 'a console command is one line, without control characters';
  const words = command.trim().split(/\s+/);
  const first = words[0] ?? '';
  if (INFO.test(first)) {
    if (!INFO_READ.test(words[1] ?? ''))
      return `info ${words[1] ?? ''} is not one of the reading commands allowed on a shared gdb`;
  } else if (CLI_RUN.has(first)) {
    if (ask.access !== 'control') return `${first} runs the person's program; ${allowControlHint(ask.id)}`;
  } else if (!CLI_READ.has(first)) {
    if (/^(p|print|call|x|list|l|frame|f|thread|up|down|select-frame)$/.test(first)) {
      return `${first} changes the person's session (value history, listing position or selection): use dbg_evaluate, dbg_memory or dbg_inspect instead`;
    }
    return `${first} is not one of the reading commands allowed on a shared gdb (info, backtrace, ptype, whatis, output, disassemble, show)`;
  }
  // The server's own read policy holds here too: `info proc PID` (another process) and `show
  // commands` (the person's history) are refused.
  if (INFO.test(first) || first === 'show') {
    const verdict = classifyGdbCommand(command, 'gdb');
    if (!verdict.allowed) return verdict.reason;
  }
  return expressionRefusal(words.slice(1).join(' '));
}

/** Why `input` may not reach the person's gdb, or undefined when it may. */
export function gdbShareRefusal(input: MiInput, ask: GdbShareAsk): string | undefined {
  const op = input.operation;
  if (READ.has(op)) {
    if (op === 'interpreter-exec') {
      const [interp, command] = input.args.filter(
        (a, i, all) => !/^--(thread|frame)$/.test(a) && !/^--(thread|frame)$/.test(all[i - 1] ?? ''),
      );
      if (interp !== 'console' || command === undefined)
        return 'only console commands may be run through -interpreter-exec';
      return cliRefusal(command, ask);
    }
    if (op === 'gdb-show' || op === 'var-set-format') return undefined;
    return writes(input.args);
  }
  if (RUN.has(op)) {
    if (ask.access !== 'control') return `${op} runs the person's program; ${allowControlHint(ask.id)}`;
    if (input.args.includes('--reverse')) return "running backwards would change the person's recording";
    return undefined;
  }
  if (BREAK_NEW.has(op)) {
    if (ask.access !== 'control') return `${op} changes the person's breakpoints; ${allowControlHint(ask.id)}`;
    return writes(input.args);
  }
  if (BREAK_OWN.has(op)) {
    if (ask.access !== 'control') return `${op} changes the person's breakpoints; ${allowControlHint(ask.id)}`;
    const numbers = op === 'break-condition' || op === 'break-after' ? input.args.slice(0, 1) : input.args;
    const theirs = numbers.filter((n) => !ask.own.has(n.split('.')[0] ?? n));
    if (theirs.length > 0)
      return `breakpoint ${theirs.join(', ')} is the person's, not the agent's: it stays as they set it`;
    return op === 'break-condition' ? writes(input.args.slice(1)) : undefined;
  }
  if (
    op === 'exec-run' ||
    op === 'exec-abort' ||
    op === 'gdb-exit' ||
    op.startsWith('target-') ||
    op.startsWith('file-exec')
  ) {
    return `${op} would start, end or replace the person's program or gdb, which a share never does`;
  }
  if (op === 'thread-select' || op === 'stack-select-frame') {
    return "it would move the person's selected thread or frame: name the thread and frame in the request instead";
  }
  if (op === 'gdb-set' || op.startsWith('enable-') || op.startsWith('environment-')) {
    return "the person's gdb settings are theirs";
  }
  return `${op} is not allowed on a shared gdb`;
}
