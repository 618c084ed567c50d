// Breakpoints, logpoints, C++ catchpoints and data breakpoints through lldb-dap. DAP sets them in
// whole sets (every breakpoint of one source file, every function breakpoint, every exception
// filter), so this table keeps each set and sends it whole on every change; lldb-dap keeps the
// LLDB breakpoints of unchanged entries, so their numbers stay. What DAP cannot say goes through
// LLDB commands on the same numbers: enable/disable, ignore counts, one thread, one-shot
// (temporary), and the hit counts of `breakpoint list`.
//
// Measured on lldb-dap 22 (docs/notes/lldb-dap.md): `hitCondition: "N"` is an ignore count of
// N - 1; a log message interpolates `{expr}` and processes C escapes outside braces, with no way
// to write a literal brace; data breakpoints are hardware watchpoints only.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Breakpoint, StopEvent } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import type { BreakpointChange, BreakpointSpec, CatchEvent, Location, SetBreakpoint } from '../debuggerBackend.js';
import type { LldbContext, WatchpointVerdict } from './lldbContext.js';
import { logMessage } from './lldbLogMessage.js';
import { addressOf } from './lldbMemory.js';
import { parseHitCounts, tidyValue } from './lldbNarrow.js';
import { assertOneLine, checkReadOnly } from './lldbValues.js';
import { dataBreakpoint } from './lldbWatchpoints.js';

type SetKind = 'source' | 'function' | 'instruction' | 'exception' | 'data';

interface Entry {
  kind: SetKind;
  /** The source path of a source breakpoint (its set); '' for the other kinds. */
  group: string;
  request:
    | DebugProtocol.SourceBreakpoint
    | DebugProtocol.FunctionBreakpoint
    | DebugProtocol.InstructionBreakpoint
    | DebugProtocol.DataBreakpoint
    | { filterId: string };
  /** LLDB's number of it (a watchpoint's: LLDB's watchpoint number), in the lldb-dap of now. */
  id: number | undefined;
  /** The session's view; its number is the session's, which outlives a new lldb-dap (see below). */
  breakpoint: Breakpoint;
}
const EXCEPTION_FILTERS: Partial<Record<CatchEvent, string>> = { throw: 'cpp_throw', catch: 'cpp_catch' };

function locationText(location: Location): string {
  if ('file' in location) return `${location.file}:${location.line}`;
  if ('function' in location) return location.function;
  if ('address' in location) return `*${location.address}`;
  return location.spec;
}

/**
 * Numbers: a breakpoint is known to the session by the number LLDB gave it when it was set,
 * unless another entry holds that number already (LLDB numbers watchpoints apart from
 * breakpoints, both from 1) — then by the next free one. The number stays when a new lldb-dap
 * sets the breakpoint again under another LLDB number (relaunch): commands go by `id`.
 */
export class LldbBreakpoints {
  private readonly entries: Entry[] = [];
  private watchVerdict: Promise<WatchpointVerdict> | undefined;

  constructor(private readonly g: LldbContext) {}

  private setOf(kind: SetKind, group = ''): Entry[] {
    return this.entries.filter((e) => e.kind === kind && e.group === group);
  }

  /** Sends a whole set and takes the numbers, lines and states lldb-dap answers with. */
  private async send(kind: SetKind, group: string, signal?: AbortSignal): Promise<void> {
    const set = this.setOf(kind, group);
    const requests = set.map((e) => e.request);
    let answered: DebugProtocol.Breakpoint[];
    switch (kind) {
      case 'source':
        answered = (
          await this.g.request(
            'setBreakpoints',
            { source: { path: group }, breakpoints: requests as DebugProtocol.SourceBreakpoint[] },
            { signal },
          )
        ).breakpoints;
        break;
      case 'function':
        answered = (
          await this.g.request(
            'setFunctionBreakpoints',
            { breakpoints: requests as DebugProtocol.FunctionBreakpoint[] },
            { signal },
          )
        ).breakpoints;
        break;
      case 'instruction':
        answered = (
          await this.g.request(
            'setInstructionBreakpoints',
            { breakpoints: requests as DebugProtocol.InstructionBreakpoint[] },
            { signal },
          )
        ).breakpoints;
        break;
      case 'exception':
        answered =
          (
            await this.g.request(
              'setExceptionBreakpoints',
              { filters: (requests as { filterId: string }[]).map((r) => r.filterId) },
              { signal },
            )
          ).breakpoints ?? [];
        break;
      case 'data':
        answered = (
          await this.g.request(
            'setDataBreakpoints',
            { breakpoints: requests as DebugProtocol.DataBreakpoint[] },
            { signal },
          )
        ).breakpoints;
        break;
    }
    set.forEach((entry, i) => {
      const a = answered[i];
      if (a) this.take(entry, a);
    });
  }

  /** The next number no entry holds. */
  private freeNumber(preferred: number | undefined): string {
    const taken = new Set(this.entries.map((e) => e.breakpoint.number));
    if (preferred !== undefined && !taken.has(String(preferred))) return String(preferred);
    const max = Math.max(0, ...[...taken].map((n) => Number(n)).filter((n) => Number.isInteger(n)));
    return String(max + 1);
  }

  /** What lldb-dap said of one breakpoint, onto its entry. */
  private take(entry: Entry, a: DebugProtocol.Breakpoint): void {
    const bp = entry.breakpoint;
    if (a.id !== undefined) entry.id = a.id;
    if (bp.number === '?') bp.number = this.freeNumber(entry.kind === 'data' ? undefined : a.id);
    bp.pending = a.verified !== true;
    if (a.instructionReference) bp.address = tidyValue(a.instructionReference.toLowerCase());
    if (a.source?.path && !a.source.sourceReference) {
      bp.fullname = a.source.path;
      bp.file = a.source.name ?? a.source.path.slice(a.source.path.lastIndexOf('/') + 1);
    }
    if (a.line !== undefined && a.line > 0 && !a.source?.sourceReference) bp.line = a.line;
  }

  /** A `breakpoint` event (a pending breakpoint resolved when a library loaded): the updated one. */
  changed(a: DebugProtocol.Breakpoint): Breakpoint | undefined {
    const entry = this.entries.find(
      (e) => e.kind !== 'data' && a.id !== undefined && e.breakpoint.number === String(a.id),
    );
    if (!entry) return undefined;
    this.take(entry, a);
    return { ...entry.breakpoint };
  }

  async insert(spec: BreakpointSpec, signal?: AbortSignal): Promise<SetBreakpoint> {
    switch (spec.kind) {
      case 'breakpoint':
        return this.insertBreakpoint(spec, signal);
      case 'dprintf': {
        const args = spec.args ?? [];
        assertOneLine(spec.format, 'format');
        args.forEach((a, i) => {
          assertOneLine(a, `format_args[${i}]`);
          checkReadOnly(a, `format_args[${i}]`, this.g.options.allowInferiorCalls ?? false);
        });
        const message = logMessage(spec.format, args);
        const entry = await this.insertAt(spec.location, {
          type: 'dprintf',
          condition: spec.condition,
          logMessage: message,
          script: [`printf "${spec.format}"${args.map((a) => `,${a}`).join('')}`],
          signal,
        });
        return { breakpoint: { ...entry.breakpoint }, warnings: [] };
      }
      case 'catchpoint':
        return this.insertCatchpoint(spec.event, spec.filter, spec.temporary ?? false, signal);
      case 'watchpoint':
        return this.insertWatchpoint(spec, signal);
    }
  }

  private async insertBreakpoint(
    spec: Extract<BreakpointSpec, { kind: 'breakpoint' }>,
    signal?: AbortSignal,
  ): Promise<SetBreakpoint> {
    if (spec.hardware) {
      throw new DebuggerError(
        'backend_unavailable',
        'the lldb backend sets software breakpoints only (use the gdb backend for hardware=true)',
      );
    }
    // The session's thread number, refused here when no thread has it (before anything is set).
    if (spec.threadId !== undefined) this.g.threadNumbers.dapId(spec.threadId);
    const entry = await this.insertAt(spec.location, {
      type: 'breakpoint',
      condition: spec.condition,
      ignoreCount: spec.ignoreCount,
      signal,
    });
    const bp = entry.breakpoint;
    try {
      bp.temporary = spec.temporary === true;
      if (spec.threadId !== undefined) bp.thread = spec.threadId;
      bp.enabled = spec.disabled !== true;
      await this.applyOptions(entry, signal);
    } catch (e) {
      await this.remove([bp.number], signal).catch(() => {});
      throw e;
    }
    return { breakpoint: { ...bp }, warnings: [] };
  }

  /**
   * What DAP cannot say, by LLDB command on LLDB's number: one-shot (LLDB deletes it at the stop
   * it causes, after its condition and ignore count: GDB's temporary breakpoint), one thread,
   * disabled, and an ignore count changed after it was set.
   */
  private async applyOptions(entry: Entry, signal?: AbortSignal, replaying = false): Promise<void> {
    const bp = entry.breakpoint;
    const id = entry.id;
    if (id === undefined) return;
    const verb = entry.kind === 'data' ? 'watchpoint' : 'breakpoint';
    if (bp.temporary) await this.command(`breakpoint modify --one-shot true ${id}`, signal);
    if (bp.thread !== undefined) {
      // bp.thread is the session's number; LLDB's --thread-id takes the OS id lldb-dap names threads by.
      const tid = this.g.threadNumbers.dapId(bp.thread);
      await this.command(`breakpoint modify --thread-id ${tid} ${id}`, signal);
    }
    if (!bp.enabled) await this.command(`${verb} disable ${id}`, signal);
    if (replaying && bp.ignoreCount !== undefined) {
      await this.command(`${verb} modify --ignore-count ${bp.ignoreCount} ${id}`, signal);
    }
  }

  /** Sets every breakpoint again, in a new lldb-dap, under the same numbers (LldbBackend.relaunch). */
  async replay(signal?: AbortSignal): Promise<void> {
    const sets = new Map<string, { kind: SetKind; group: string }>();
    for (const e of this.entries) {
      e.id = undefined;
      sets.set(`${e.kind}\0${e.group}`, { kind: e.kind, group: e.group });
    }
    for (const { kind, group } of sets.values()) {
      try {
        await this.send(kind, group, signal);
      } catch (err) {
        log('warn', 'lldb: a breakpoint set could not be set again', { kind, group, error: (err as Error).message });
      }
    }
    for (const e of this.entries) await this.applyOptions(e, signal, true).catch(() => {});
  }

  /** An LLDB command that must succeed (its errors come back as text). */
  private async command(text: string, signal?: AbortSignal): Promise<string> {
    const said = await this.g.repl(text, undefined, { signal });
    if (/^error: /m.test(said)) throw new DebuggerError('debugger_error', said.trim().replace(/^error: /, ''));
    return said;
  }

  private async insertAt(
    location: Location,
    o: {
      type: string;
      condition?: string | undefined;
      ignoreCount?: number | undefined;
      logMessage?: string;
      script?: string[];
      signal?: AbortSignal | undefined;
    },
  ): Promise<Entry> {
    const allowCalls = this.g.options.allowInferiorCalls ?? false;
    if (o.condition !== undefined && o.condition !== '') {
      assertOneLine(o.condition, 'condition');
      checkReadOnly(o.condition, 'condition', allowCalls);
    }
    const common: { condition?: string; hitCondition?: string; logMessage?: string } = {};
    if (o.condition) common.condition = o.condition;
    if (o.ignoreCount !== undefined && o.ignoreCount > 0) common.hitCondition = String(o.ignoreCount + 1);
    if (o.logMessage !== undefined) common.logMessage = o.logMessage;
    const bp: Breakpoint = {
      number: '?',
      type: o.type,
      enabled: true,
      temporary: false,
      requested: locationText(location),
      pending: true,
      hits: 0,
      locations: [],
      ...(o.condition ? { condition: o.condition } : {}),
      ...(o.ignoreCount ? { ignoreCount: o.ignoreCount } : {}),
      ...(o.script ? { script: o.script } : {}),
    };
    let entry: Entry;
    const spec = 'spec' in location ? this.specLocation(location.spec) : location;
    if ('file' in spec) {
      const column = (spec as { column?: number }).column;
      assertOneLine(spec.file, 'location');
      if (
        this.setOf('source', spec.file).some((e) => (e.request as DebugProtocol.SourceBreakpoint).line === spec.line)
      ) {
        const other = this.setOf('source', spec.file).find(
          (e) => (e.request as DebugProtocol.SourceBreakpoint).line === spec.line,
        );
        throw new DebuggerError(
          'invalid_argument',
          `breakpoint ${other?.breakpoint.number} is at ${spec.file}:${spec.line} already: change it (action=condition, ignore) or delete it first`,
          { fields: ['location'] },
        );
      }
      entry = {
        kind: 'source',
        group: spec.file,
        request: {
          line: spec.line,
          ...(column !== undefined ? { column } : {}),
          ...common,
        },
        id: undefined,
        breakpoint: bp,
      };
    } else if ('function' in spec) {
      assertOneLine(spec.function, 'location');
      entry = {
        kind: 'function',
        group: '',
        request: { name: spec.function, ...common },
        id: undefined,
        breakpoint: bp,
      };
    } else {
      const at = await addressOf(this.g, spec.address, {}, o.signal);
      entry = {
        kind: 'instruction',
        group: '',
        request: { instructionReference: `0x${at.toString(16)}`, ...common },
        id: undefined,
        breakpoint: bp,
      };
    }
    await this.add(entry, o.signal);
    return entry;
  }

  /** LLDB's own location text: `file:line:column`, `*address`, or a function name as LLDB matches it. */
  private specLocation(
    text: string,
  ): { file: string; line: number; column?: number } | { function: string } | { address: string } {
    const t = text.trim();
    const line = /^([^\s:*][^:]*):(\d{1,9})(?::(\d{1,5}))?$/.exec(t);
    if (line?.[1] && line[2])
      return { file: line[1], line: Number(line[2]), ...(line[3] ? { column: Number(line[3]) } : {}) };
    if (t.startsWith('*')) return { address: t.slice(1).trim() };
    if (t === '') throw new DebuggerError('invalid_argument', 'location: empty', { fields: ['location'] });
    return { function: t };
  }

  private async insertCatchpoint(
    event: CatchEvent,
    filter: string | undefined,
    temporary: boolean,
    signal?: AbortSignal,
  ): Promise<SetBreakpoint> {
    const filterId = EXCEPTION_FILTERS[event];
    if (filterId === undefined) {
      throw new DebuggerError(
        'backend_unavailable',
        `the lldb backend catches C++ throw and catch only, not ${event} (the gdb backend catches it)`,
      );
    }
    if (filter !== undefined) {
      throw new DebuggerError(
        'invalid_argument',
        "filter: the lldb backend stops at every C++ exception; filtering by type is the gdb backend's",
        { fields: ['filter'] },
      );
    }
    const same = this.setOf('exception').find((e) => (e.request as { filterId: string }).filterId === filterId);
    if (same) {
      throw new DebuggerError('invalid_argument', `catchpoint ${same.breakpoint.number} catches ${event} already`, {
        fields: ['event'],
      });
    }
    const bp: Breakpoint = {
      number: '?',
      type: 'catchpoint',
      enabled: true,
      temporary: false,
      pending: false,
      hits: 0,
      what: `exception ${event}`,
      locations: [],
    };
    const entry: Entry = { kind: 'exception', group: '', request: { filterId }, id: undefined, breakpoint: bp };
    this.entries.push(entry);
    try {
      await this.send('exception', '', signal);
      bp.temporary = temporary;
      await this.applyOptions(entry, signal);
    } catch (e) {
      this.entries.splice(this.entries.indexOf(entry), 1);
      await this.send('exception', '', signal).catch(() => {});
      throw e;
    }
    return { breakpoint: { ...bp }, warnings: [] };
  }

  /** Whether hardware watchpoints fire on this machine: asked once per session, before the first. */
  private verdict(): Promise<WatchpointVerdict> {
    const probe = this.g.options.watchpointProbe;
    this.watchVerdict ??= probe
      ? probe().catch((e: unknown) => ({ verdict: 'unknown' as const, detail: (e as Error).message }))
      : Promise.resolve({ verdict: 'unknown' as const, detail: 'not probed' });
    return this.watchVerdict;
  }

  private async insertWatchpoint(
    spec: Extract<BreakpointSpec, { kind: 'watchpoint' }>,
    signal?: AbortSignal,
  ): Promise<SetBreakpoint> {
    const verdict = await this.verdict();
    if (verdict.verdict === 'dead') {
      throw new DebuggerError(
        'backend_unavailable',
        `watchpoints do not work on this machine: LLDB has only hardware watchpoints, and they never fire here (${verdict.detail}); use the gdb backend, whose software watchpoints work, or a breakpoint with a condition`,
      );
    }
    const { request, breakpoint } = await dataBreakpoint(this.g, spec, signal);
    await this.add({ kind: 'data', group: '', request, id: undefined, breakpoint }, signal);
    const warnings =
      verdict.verdict === 'unknown'
        ? [
            `whether hardware watchpoints fire on this machine is unknown (${verdict.detail}): if it never triggers, they may not`,
          ]
        : [];
    return { breakpoint: { ...breakpoint }, warnings };
  }

  /** Adds an entry to its set and sends the set; the entry leaves again when lldb-dap refuses it. */
  private async add(entry: Entry, signal?: AbortSignal): Promise<void> {
    this.entries.push(entry);
    try {
      await this.send(entry.kind, entry.group, signal);
    } catch (e) {
      this.entries.splice(this.entries.indexOf(entry), 1);
      throw e;
    }
  }

  private find(number: string): Entry | undefined {
    const whole = number.replace(/\.\d+$/, '');
    return this.entries.find((e) => e.breakpoint.number === whole);
  }

  /** Removes entries and sends the sets they were in. */
  private async remove(numbers: readonly string[], signal?: AbortSignal): Promise<void> {
    const gone = numbers.map((n) => this.find(n)).filter((e): e is Entry => e !== undefined);
    const sets = new Map<string, { kind: SetKind; group: string }>();
    for (const e of gone) {
      this.entries.splice(this.entries.indexOf(e), 1);
      sets.set(`${e.kind}\0${e.group}`, { kind: e.kind, group: e.group });
    }
    for (const { kind, group } of sets.values()) await this.send(kind, group, signal);
  }

  async change(change: BreakpointChange, signal?: AbortSignal): Promise<void> {
    switch (change.op) {
      case 'delete':
        await this.remove(change.numbers, signal);
        return;
      case 'enable':
      case 'disable': {
        for (const verb of ['breakpoint', 'watchpoint'] as const) {
          const ids = change.numbers.flatMap((n) => {
            const e = this.find(n);
            if (!e || e.id === undefined || (e.kind === 'data') !== (verb === 'watchpoint')) return [];
            const location = /\.(\d+)$/.exec(n)?.[1];
            return [location ? `${e.id}.${location}` : String(e.id)];
          });
          if (ids.length > 0) await this.command(`${verb} ${change.op} ${ids.join(' ')}`, signal);
        }
        for (const n of change.numbers) {
          const e = this.find(n);
          if (e && !/\.\d+$/.test(n)) e.breakpoint.enabled = change.op === 'enable';
        }
        return;
      }
      case 'condition': {
        const e = this.find(change.number);
        if (!e) return;
        if (change.condition !== '') {
          assertOneLine(change.condition, 'condition');
          checkReadOnly(change.condition, 'condition', this.g.options.allowInferiorCalls ?? false);
        }
        const request = e.request as { condition?: string };
        if (change.condition === '') delete request.condition;
        else request.condition = change.condition;
        await this.send(e.kind, e.group, signal);
        if (change.condition === '') delete e.breakpoint.condition;
        else e.breakpoint.condition = change.condition;
        return;
      }
      case 'ignore': {
        const e = this.find(change.number);
        if (!e) return;
        // The set keeps the hit condition it was created with: lldb-dap changes LLDB's ignore
        // count only when that text changes, so the command's count stands.
        const verb = e.kind === 'data' ? 'watchpoint' : 'breakpoint';
        if (e.id !== undefined) await this.command(`${verb} modify --ignore-count ${change.count} ${e.id}`, signal);
        if (change.count > 0) e.breakpoint.ignoreCount = change.count;
        else delete e.breakpoint.ignoreCount;
        return;
      }
    }
  }

  async list(signal?: AbortSignal): Promise<Breakpoint[]> {
    if (this.entries.length === 0) return [];
    if (this.entries.some((e) => e.kind !== 'data')) {
      const counts = parseHitCounts(await this.g.repl('breakpoint list', undefined, { signal }));
      for (const e of this.entries) {
        const n = e.kind === 'data' || e.id === undefined ? undefined : counts.get(String(e.id));
        if (n !== undefined) e.breakpoint.hits = n;
      }
    }
    return this.entries.map((e) => ({ ...e.breakpoint }));
  }

  /**
   * At a stop: the breakpoints it hit count one more, a one-shot (temporary) one is gone from
   * LLDB and leaves its set too, and a catchpoint's stop names it.
   */
  async onStop(stop: StopEvent, hitIds: readonly number[], signal?: AbortSignal): Promise<Breakpoint[]> {
    const changed: Breakpoint[] = [];
    const spent: string[] = [];
    for (const id of hitIds) {
      const e = this.entries.find((x) => x.kind !== 'data' && x.id === id);
      if (!e) continue;
      e.breakpoint.hits++;
      stop.breakpoint ??= e.breakpoint.number;
      if (e.breakpoint.temporary) {
        stop.temporaryBreakpoint = true;
        spent.push(e.breakpoint.number);
      } else {
        changed.push({ ...e.breakpoint });
      }
    }
    if (spent.length > 0) await this.remove(spent, signal).catch(() => {});
    return changed;
  }

  /** The catchpoint (its LLDB number) whose filter a `C++ Throw` / `C++ Catch` stop came from. */
  catchpointFor(description: string | undefined): number | undefined {
    const filterId = /C\+\+ Throw/i.test(description ?? '')
      ? 'cpp_throw'
      : /C\+\+ Catch/i.test(description ?? '')
        ? 'cpp_catch'
        : undefined;
    const e = this.setOf('exception').find((x) => (x.request as { filterId: string }).filterId === filterId);
    return e?.id;
  }
}
