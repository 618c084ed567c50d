// The gate of a GDB share: every line an agent sends passes here. A refused line is answered at
// once (an MI ^error saying why, and what the person can type to allow more); an interrupt
// becomes SIGINT to the program (the shared MI channel does not read while the program runs,
// mi-async being off); everything else goes to gdb one command at a time, reads guarded by
// may-call-functions and may-write-memory off. What the agent creates (breakpoints, variable
// objects) is remembered, so that it can be taken back when the agent leaves.

import { parseMiInput } from '../../protocols/mi/miInputParser.js';
import type { MiRecord } from '../../protocols/mi/miRecords.js';
import type { ShareAccess } from '../debuggerBackend.js';
import { gdbShareRefusal } from './gdbSharePolicy.js';

/** What the gate needs of its share. */
export interface GatePort {
  readonly id: string;
  access(): ShareAccess;
  /** The pid of the person's program, when one runs. */
  programPid(): number | undefined;
  /** Raw text to gdb's MI channel. */
  toGdb(text: string): void;
  /** A command of the share's own, its answer to `done` (never to the agent). */
  ownCommand(command: string, done?: (record: MiRecord) => void): void;
  /** A line to the agent. */
  toClient(line: string): void;
}

interface Queued {
  token: string;
  line: string;
  /** Run with may-call-functions and may-write-memory off (every read). */
  guarded: boolean;
  operation: string;
}

/** A c-string for an MI error message. */
export function cstring(text: string): string {
  return JSON.stringify(text.replace(/[\x00-\x1f\x7f]/g, ' '));
}

export class ShareGate {
  private readonly queue: Queued[] = [];
  private inFlight: Queued | undefined;
  private guardedNow = false;
  private originals: { calls?: string; memory?: string } = {};
  private readonly ownBreakpoints = new Set<string>();
  private readonly ownVarobjs = new Set<string>();

  constructor(private readonly port: GatePort) {}

  /** The token of the agent's command gdb is working on, if any. */
  get inFlightToken(): number | undefined {
    return this.inFlight ? Number(this.inFlight.token) : undefined;
  }

  /** One line from the agent: refused with the reason, answered here, or queued for gdb. */
  command(line: string): void {
    if (line.trim() === '') return;
    const input = parseMiInput(line);
    if (typeof input === 'string') {
      const token = /^(\d+)/.exec(line)?.[1] ?? '';
      this.port.toClient(`${token}^error,msg=${cstring(`refused by the share: ${input}`)}`);
      return;
    }
    if (input.token === undefined) {
      this.port.toClient(`^error,msg=${cstring('refused by the share: every command needs a token')}`);
      return;
    }
    const why = gdbShareRefusal(input, { access: this.port.access(), own: this.ownBreakpoints, id: this.port.id });
    if (why) {
      this.port.toClient(`${input.token}^error,msg=${cstring(`refused by the share: ${why}`)},code="dbg-mcp-refused"`);
      return;
    }
    if (input.operation === 'exec-interrupt') {
      // The new UI does not read while the program runs (mi-async is off): SIGINT, as ^C would.
      const pid = this.port.programPid();
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGINT');
        } catch {
          // already gone: its exit arrives from gdb
        }
      }
      this.port.toClient(`${input.token}^done`);
      return;
    }
    // Everything but moving the program is guarded: a breakpoint's location (*f()) is an
    // expression too. A run's ^running comes at once, and the guard would stay up while it runs.
    const runs =
      input.operation.startsWith('exec-') || (input.operation === 'interpreter-exec' && /\badvance\b/.test(input.raw));
    this.queue.push({ token: input.token, line, guarded: !runs, operation: input.operation });
    this.pump();
  }

  /** Sends the next queued command once the previous one is answered (one at a time: see guard). */
  private pump(): void {
    if (this.inFlight || this.queue.length === 0) return;
    const next = this.queue.shift() as Queued;
    this.inFlight = next;
    if (next.guarded && !this.guardedNow) this.guard();
    if (!next.guarded && this.guardedNow) this.unguard();
    this.port.toGdb(`${next.line}\n`);
  }

  /**
   * Turns calls and memory writes off around the agent's reads, remembering the person's values.
   * Commands go to gdb one at a time, so the values read here are the person's, never our own.
   */
  private guard(): void {
    this.guardedNow = true;
    this.originals = {};
    this.port.ownCommand('gdb-show may-call-functions', (r) => {
      if (r.kind === 'result' && typeof r.results['value'] === 'string') this.originals.calls = r.results['value'];
    });
    this.port.ownCommand('gdb-show may-write-memory', (r) => {
      if (r.kind === 'result' && typeof r.results['value'] === 'string') this.originals.memory = r.results['value'];
    });
    this.port.ownCommand('gdb-set may-call-functions off');
    this.port.ownCommand('gdb-set may-write-memory off');
  }

  private unguard(): void {
    if (!this.guardedNow) return;
    this.guardedNow = false;
    const { calls, memory } = this.originals;
    this.port.ownCommand(`gdb-set may-call-functions ${calls === 'off' ? 'off' : 'on'}`);
    this.port.ownCommand(`gdb-set may-write-memory ${memory === 'off' ? 'off' : 'on'}`);
  }

  /** The answer to the command in flight came: note what it created, send the next. */
  settled(record: MiRecord): void {
    const item = this.inFlight;
    if (!item) return;
    this.inFlight = undefined;
    if (record.kind === 'result' && record.class !== 'error') {
      if (item.operation === 'break-insert' || item.operation === 'break-watch') {
        const bkpt = (record.results['bkpt'] ??
          record.results['wpt'] ??
          record.results['hw-awpt'] ??
          record.results['hw-rwpt']) as Record<string, unknown> | undefined;
        if (typeof bkpt?.['number'] === 'string') this.ownBreakpoints.add(bkpt['number']);
      } else if (item.operation === 'var-create' && typeof record.results['name'] === 'string') {
        this.ownVarobjs.add(record.results['name']);
      } else if (item.operation === 'var-delete') {
        const name = /\S+$/.exec(item.line)?.[0]?.replace(/"/g, '');
        if (name) this.ownVarobjs.delete(name);
      } else if (item.operation === 'break-delete') {
        for (const n of item.line.split(/\s+/).slice(1)) this.ownBreakpoints.delete(n);
      }
    }
    if (this.queue.length === 0 || !this.queue[0]?.guarded) this.unguard();
    this.pump();
  }

  /** Deletes the agent's breakpoints and variable objects, and puts the person's settings back. */
  tidy(): void {
    // An answer still due for the agent (a slow read) comes later; the settings go back now.
    this.unguard();
    if (this.ownBreakpoints.size > 0) this.port.ownCommand(`break-delete ${[...this.ownBreakpoints].join(' ')}`);
    for (const v of this.ownVarobjs) this.port.ownCommand(`var-delete ${v}`);
    this.ownBreakpoints.clear();
    this.ownVarobjs.clear();
    this.queue.length = 0;
    this.inFlight = undefined;
  }
}
