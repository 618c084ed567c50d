// The share process (`dbg-mcp share` starts it, detached): it opens a pseudo-terminal, holds its
// master end, and waits for the person to type `new-ui mi3 <slave>` in their gdb, which makes a
// second, MI user interface of that gdb on our terminal. It then relays that MI channel to one
// agent at a time over an owner-only unix socket, and is the gatekeeper: every line from the agent
// passes its gate (gdbShareGate.ts) before gdb sees it.
//
// Why a process of its own: the person's gdb holds the slave end, and a pty whose master closes
// just loses that UI (measured with GDB 13: the person's own commands, `run` and `continue` go on
// working). Held here, a server that is SIGKILLed only drops a socket; the person's gdb never
// notices. Measured hazards it handles:
// - GDB echoes what is typed on a terminal in canonical mode: the master is put in raw mode.
// - `mi-async` cannot be turned on while a process exists, and after an MI `-exec-continue` the
//   new UI reads nothing until the program stops: an interrupt is SIGINT to the program's pid.
// - `may-write-registers` cannot be changed while a process exists; `may-call-functions` and
//   `may-write-memory` can: each read runs with both off and the person's values put back after.
// - Results of the share's own commands carry tokens from 9e11 up and are not relayed, so they
//   can never settle an agent's command.

import { closeSync, readdirSync, readlinkSync, rmSync, statSync, writeSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import tty from 'node:tty';
import { openPtyPair } from '../../process/ptyPair.js';
import { MiLineSplitter } from '../../protocols/mi/miLineSplitter.js';
import { parseMiLine } from '../../protocols/mi/miParser.js';
import type { MiRecord } from '../../protocols/mi/miRecords.js';
import type { ShareAccess } from '../debuggerBackend.js';
import { tellPerson } from '../shares/personTerminal.js';
import { ensureShareDirectory, ownUid, processAlive, writeOwnerOnlyJson } from '../shares/shareFiles.js';
import { cstring, ShareGate } from './gdbShareGate.js';
import { type GdbShareRecord, type GdbShareState, recordPath, SHARE_FORMAT, socketPath } from './gdbShareRecord.js';

const OWN_TOKEN_BASE = 900_000_000_000;
/** How often the share checks that the person's gdb still runs (it may exit without closing the UI). */
const WATCH_MS = 2000;
/**
 * How long a share started outside gdb (no gdb among its ancestors to watch) waits for the new-ui
 * line: past it nobody is coming, and the share process would otherwise stay for good.
 */
const UNCLAIMED_MS = 15 * 60_000;

/** The first line an agent sends, and the share's answer. */
export interface JoinHello {
  join: { client: string; server?: number };
}
export interface JoinReply {
  ok: boolean;
  error?: string;
  access?: ShareAccess;
  gdbPid?: number;
  program?: string;
  pid?: number;
  /** The last *stopped record gdb sent while shared, to tell why the program stands where it does. */
  lastStop?: string;
}

export interface HolderOptions {
  access: ShareAccess;
  dir: string;
  /** The gdb that ran `!dbg-mcp share`, watched until the new-ui line names the real one. */
  personPid?: number;
  /** Tells the starting command the share is ready (or why not), once. */
  ready: (
    info: { ok: true; id: string; tty: string; socket: string; pid: number } | { ok: false; error: string },
  ) => void;
}

export class ShareHolder {
  private readonly id: string;
  private readonly socket: string;
  private readonly file: string;
  private server: Server | undefined;
  private master: tty.ReadStream | undefined;
  private masterFd = -1;
  private slaveFd: number | undefined;
  private tty = '';
  private readonly splitter = new MiLineSplitter();
  private client: Socket | undefined;
  private clientJoined = false;
  private clientBuffer = '';
  private nextToken = OWN_TOKEN_BASE;
  private readonly own = new Map<number, (record: MiRecord) => void>();
  private readonly gate = new ShareGate({
    id: `gdb-${process.pid}`,
    access: () => this.access,
    programPid: () => this.pid,
    toGdb: (text) => this.toGdb(text),
    ownCommand: (command, done) => this.ownCommand(command, done),
    toClient: (line) => this.toClient(line),
  });
  private gdbPid: number | undefined;
  private program: string | undefined;
  private pid: number | undefined;
  private state: GdbShareState = 'waiting';
  /** Set once the person typed the new-ui line (gdb wrote on our terminal). */
  private uiUp = false;
  private lastStop: string | undefined;
  private writeBacklog = '';
  private ending = false;
  private watch: NodeJS.Timeout | undefined;
  private finished!: (code: number) => void;
  readonly done = new Promise<number>((resolve) => {
    this.finished = resolve;
  });

  constructor(private readonly options: HolderOptions & { access: ShareAccess }) {
    this.id = `gdb-${process.pid}`;
    this.socket = socketPath(options.dir, process.pid);
    this.file = recordPath(options.dir, process.pid);
  }

  get access(): ShareAccess {
    return this.options.access;
  }

  async start(): Promise<void> {
    try {
      process.umask(0o077);
      ensureShareDirectory(this.options.dir);
      const pair = openPtyPair();
      this.masterFd = pair.master;
      this.slaveFd = pair.slave;
      this.tty = pair.pty;
      this.master = new tty.ReadStream(pair.master);
      // No echo, no line editing: what the agent writes reaches gdb as written, and gdb's
      // answers come back without our own lines mixed in.
      this.master.setRawMode(true);
      this.master.on('data', (chunk: Buffer) => this.fromGdb(chunk));
      this.master.on('error', () => void this.end("the person's gdb closed the shared terminal (it exited)"));
      this.master.on('end', () => void this.end("the person's gdb closed the shared terminal (it exited)"));
      rmSync(this.socket, { force: true });
      this.server = createServer((s) => this.accept(s));
      await new Promise<void>((resolve, reject) => {
        this.server?.once('error', reject);
        this.server?.listen(this.socket, resolve);
      });
      this.writeRecord();
      for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
        process.on(sig, () => void this.end('the person ended the share'));
      }
      process.on('SIGUSR1', () => this.setAccess('control'));
      process.on('SIGUSR2', () => this.setAccess('read'));
      this.watchPerson();
      this.options.ready({ ok: true, id: this.id, tty: this.tty, socket: this.socket, pid: process.pid });
    } catch (e) {
      this.options.ready({ ok: false, error: (e as Error).message });
      this.cleanupFiles();
      this.finished(1);
    }
  }

  // ---- gdb's side -------------------------------------------------------------------------

  private fromGdb(chunk: Buffer): void {
    if (!this.uiUp) this.gdbArrived();
    for (const line of this.splitter.push(chunk)) this.gdbLine(line);
  }

  /** The person typed new-ui: gdb opened the slave. Our copy of it goes, so gdb's exit shows as EIO. */
  private gdbArrived(): void {
    this.uiUp = true;
    this.gdbPid = openerOf(this.tty);
    if (this.slaveFd !== undefined) {
      closeSync(this.slaveFd);
      this.slaveFd = undefined;
    }
    this.ownCommand('list-thread-groups', (r) => {
      if (r.kind !== 'result' || r.class !== 'done') return;
      const groups = r.results['groups'];
      const first = Array.isArray(groups) ? (groups[0] as Record<string, unknown> | undefined) : undefined;
      if (typeof first?.['executable'] === 'string') this.program = first['executable'];
      if (typeof first?.['pid'] === 'string') {
        this.pid = Number(first['pid']);
        // Running or stopped: -thread-info says.
        this.ownCommand('thread-info', (t) => {
          const threads = t.kind === 'result' ? t.results['threads'] : undefined;
          const running =
            Array.isArray(threads) && threads.some((x) => (x as Record<string, unknown>)['state'] === 'running');
          this.setState(running ? 'running' : 'stopped');
        });
      } else {
        this.setState('none');
      }
    });
    tellPerson(
      this.gdbPid,
      `this gdb is shared as ${this.id} (${this.access === 'control' ? 'reading and running the program' : 'reading only'}). End it: !dbg-mcp share --stop ${this.id}`,
    );
  }

  /**
   * Ends the share when the person's gdb is gone. Before the new-ui line the terminal tells
   * nothing (our own copy of its slave end keeps it open), so the gdb that ran the command is
   * watched, or, started elsewhere, the share gives up after UNCLAIMED_MS without the line.
   */
  private watchPerson(): void {
    const began = Date.now();
    this.watch = setInterval(() => {
      const pid = this.gdbPid ?? (this.uiUp ? undefined : this.options.personPid);
      if (pid !== undefined && !processAlive(pid)) {
        void this.end(
          this.uiUp ? "the person's gdb exited" : "the person's gdb exited before the new-ui line was typed",
        );
      } else if (!this.uiUp && pid === undefined && Date.now() - began > UNCLAIMED_MS) {
        void this.end(`nobody typed the new-ui line within ${UNCLAIMED_MS / 60_000} minutes`);
      }
    }, WATCH_MS);
    this.watch.unref();
  }

  private gdbLine(line: string): void {
    const record = parseMiLine(line);
    if (record.kind === 'result' && record.token !== undefined && record.token >= OWN_TOKEN_BASE) {
      const done = this.own.get(record.token);
      this.own.delete(record.token);
      done?.(record);
      return;
    }
    this.track(record, line);
    this.toClient(line);
    if (record.kind === 'result' && record.token !== undefined && record.token === this.gate.inFlightToken) {
      this.gate.settled(record);
    }
  }

  /** What the program does, from gdb's own records: for the registry entry and the next agent. */
  private track(record: MiRecord, line: string): void {
    if (record.kind === 'exec' && record.class === 'running') this.setState('running');
    else if (record.kind === 'exec' && record.class === 'stopped') {
      const reason = record.results['reason'];
      const exited = typeof reason === 'string' && reason.startsWith('exited');
      this.lastStop = exited ? undefined : line;
      this.setState(exited ? 'exited' : 'stopped');
    } else if (record.kind === 'notify' && record.class === 'thread-group-started') {
      const pid = record.results['pid'];
      if (typeof pid === 'string') this.pid = Number(pid);
    } else if (record.kind === 'notify' && record.class === 'thread-group-exited') {
      this.pid = undefined;
      this.setState('exited');
    }
  }

  private setState(state: GdbShareState): void {
    if (this.state === state && state !== 'stopped') return;
    this.state = state;
    this.writeRecord();
  }

  private toGdb(text: string): void {
    this.writeBacklog += text;
    this.flushToGdb();
  }

  /** Writes what gdb can take now; the rest waits (the pty is non-blocking and gdb may not be reading). */
  private flushToGdb(): void {
    while (this.writeBacklog.length > 0 && this.masterFd >= 0) {
      try {
        const buf = Buffer.from(this.writeBacklog);
        const n = writeSync(this.masterFd, buf);
        this.writeBacklog = buf.subarray(n).toString();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          setTimeout(() => this.flushToGdb(), 20).unref();
          return;
        }
        this.writeBacklog = '';
        return;
      }
    }
  }

  /** A command of the share's own; its answer goes to `done`, never to the agent. */
  private ownCommand(command: string, done?: (record: MiRecord) => void): void {
    const token = this.nextToken++;
    this.own.set(token, done ?? (() => {}));
    this.toGdb(`${token}-${command}\n`);
  }

  // ---- the agent's side -------------------------------------------------------------------

  private accept(s: Socket): void {
    if (this.client || this.ending) {
      s.end(
        `${JSON.stringify({ ok: false, error: this.ending ? 'the share is ending' : 'another agent has joined this share; only one at a time' })}\n`,
      );
      return;
    }
    this.client = s;
    this.clientJoined = false;
    this.clientBuffer = '';
    s.setEncoding('utf8');
    s.on('data', (text: string) => this.fromClient(text));
    s.on('error', () => {});
    s.on('close', () => {
      if (this.client === s) this.clientLeft();
    });
  }

  private fromClient(text: string): void {
    this.clientBuffer += text;
    for (let nl = this.clientBuffer.indexOf('\n'); nl >= 0; nl = this.clientBuffer.indexOf('\n')) {
      const line = this.clientBuffer.slice(0, nl).replace(/\r$/, '');
      this.clientBuffer = this.clientBuffer.slice(nl + 1);
      if (this.clientJoined) this.gate.command(line);
      else this.hello(line);
    }
    if (this.clientBuffer.length > 1024 * 1024) this.client?.destroy();
  }

  private reply(reply: JoinReply): void {
    this.client?.write(`${JSON.stringify(reply)}\n`);
  }

  private hello(line: string): void {
    let hello: Partial<JoinHello> = {};
    try {
      hello = JSON.parse(line) as Partial<JoinHello>;
    } catch {
      // answered below
    }
    if (!hello.join) {
      this.reply({ ok: false, error: 'expected a join request' });
      this.client?.end();
      return;
    }
    if (!this.uiUp) {
      this.reply({ ok: false, error: `the person has not typed the new-ui line in gdb yet (new-ui mi3 ${this.tty})` });
      this.client?.end();
      return;
    }
    this.clientJoined = true;
    this.reply({
      ok: true,
      access: this.access,
      gdbPid: this.gdbPid,
      ...(this.program ? { program: this.program } : {}),
      ...(this.pid !== undefined ? { pid: this.pid } : {}),
      ...(this.lastStop ? { lastStop: this.lastStop } : {}),
    });
    this.writeRecord();
    tellPerson(
      this.gdbPid,
      `an agent joined this gdb (${this.access === 'control' ? 'it may read and run the program' : 'reading only'}). End it: !dbg-mcp share --stop ${this.id}`,
    );
  }

  private toClient(line: string): void {
    if (this.client && this.clientJoined) this.client.write(`${line}\n`);
  }

  /** The agent went (closed, or its server died): take back what it added, put back what it changed. */
  private clientLeft(): void {
    const was = this.clientJoined;
    this.client = undefined;
    this.clientJoined = false;
    if (!was) return;
    this.gate.tidy();
    this.writeRecord();
    tellPerson(this.gdbPid, 'the agent left this gdb; your program and settings are as they were');
  }

  private setAccess(access: ShareAccess): void {
    if (this.options.access === access) return;
    this.options.access = access;
    this.writeRecord();
    this.toClient(`=dbg-mcp-access,access="${access}"`);
    tellPerson(
      this.gdbPid,
      access === 'control' ? `${this.id}: the agent may now run your program` : `${this.id}: reading only again`,
    );
  }

  // ---- the registry and the end ------------------------------------------------------------

  private writeRecord(): void {
    if (this.ending) return;
    const record: GdbShareRecord = {
      format: SHARE_FORMAT,
      debugger: 'gdb',
      sharePid: process.pid,
      tty: this.tty,
      socket: this.socket,
      access: this.access,
      state: this.state,
      joined: this.clientJoined,
      startedAt: new Date().toISOString(),
      ...(this.gdbPid !== undefined ? { gdbPid: this.gdbPid } : {}),
      ...(this.program !== undefined ? { program: this.program } : {}),
      ...(this.pid !== undefined ? { pid: this.pid } : {}),
    };
    try {
      writeOwnerOnlyJson(this.file, record);
    } catch {
      // the directory went away: the share can still serve the agent already joined
    }
  }

  private cleanupFiles(): void {
    rmSync(this.file, { force: true });
    rmSync(this.socket, { force: true });
  }

  /** Ends the share: the agent is told why, what it added is taken back, the files go. */
  async end(reason: string): Promise<void> {
    if (this.ending) return;
    if (this.client && this.clientJoined) {
      this.toClient(`=dbg-mcp-ended,reason=${cstring(reason)}`);
      this.gate.tidy();
      // Give gdb a moment to take the last commands (it may be busy), never long.
      await new Promise((r) => setTimeout(r, 300).unref());
    }
    this.ending = true;
    if (this.watch) clearInterval(this.watch);
    this.client?.end();
    this.client?.destroy();
    this.server?.close();
    this.cleanupFiles();
    if (!/gdb exited|closed the shared terminal/.test(reason))
      tellPerson(this.gdbPid, `${this.id} ended: ${reason}; this gdb is as it was`);
    this.master?.destroy();
    if (this.slaveFd !== undefined) closeSync(this.slaveFd);
    this.finished(0);
  }
}

/** The process (not this one) that opened the terminal `path`: the person's gdb after new-ui. */
export function openerOf(path: string): number | undefined {
  const uid = ownUid();
  let names: string[] = [];
  try {
    names = readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return undefined;
  }
  for (const name of names) {
    try {
      if (statSync(`/proc/${name}`).uid !== uid) continue;
      for (const fd of readdirSync(`/proc/${name}/fd`)) {
        if (readlinkSync(`/proc/${name}/fd/${fd}`) === path) return Number(name);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}
