// Debuggers started ahead of the sessions that will take them. Measured on a 2-core VM, a gdb
// takes 150-300 ms from spawn to its first answer with our settings, and every dbg_start paid it;
// an agent's next dbg_start is predictable, so the pool keeps `warm` debuggers of each kind that
// served a session lately, started with the server's settings and nothing loaded.
//
// A pooled debugger is not a session: it holds no program, is not counted against the session
// cap, is handed to exactly one session (never back: a used debugger is closed with its session),
// and is killed with the pool. Its process is guarded like a session's (orphanGuard.ts), so a
// SIGKILLed server takes it along. What a session brings of its own (its transcript, its sweep
// counter) is bound when it takes one; lines the debugger exchanged before are kept for it.

import { readFileSync } from 'node:fs';
import type { TranscriptWriter } from '../../protocols/mi/miConnection.js';
import { log } from '../../util/log.js';
import type { BackendKind, DebuggerBackend } from '../debuggerBackend.js';

/** What a session binds to the debugger it takes. */
export interface PoolBinding {
  transcript?: TranscriptWriter | undefined;
  onSweep?: ((killed: number) => void) | undefined;
}

/** Starts one debugger of a kind, nothing loaded, reporting through `binding` (bound later). */
export type Preparer = (binding: Required<PoolBinding>) => Promise<DebuggerBackend>;

export interface PoolStats {
  /** Debuggers started for the pool. */
  prepared: number;
  /** Handed to a session. */
  taken: number;
  /** Found dead (or failed to start) and dropped instead of handed out. */
  discarded: number;
  /** Closed unused (the kind went unused, or the pool closed). */
  retired: number;
  /** Ready now, by kind. */
  ready: Partial<Record<BackendKind, number>>;
  /** Starting now, by kind. */
  starting: Partial<Record<BackendKind, number>>;
}

export interface DebuggerPoolOptions {
  /** Debuggers kept ready per kind that served a session lately; 0 turns the pool off. */
  warm: number;
  /** How long after its last session a kind stays warm (ms). */
  recentMs?: number;
  /** The kinds that can be prepared, and how. */
  preparers: Partial<Record<BackendKind, Preparer>>;
}

interface Entry {
  backend: DebuggerBackend;
  binding: PoolBinding;
  /** Transcript lines before a session bound one: its start, replayed into the session's file. */
  early: [direction: 'send' | 'recv', line: string][];
  dead: boolean;
}

/** Lines kept for a session's transcript from before it took the debugger (its start: ~40). */
const EARLY_LINES = 200;
const RECENT_MS = 10 * 60_000;
/**
 * A refill waits for the call that took a debugger to answer (`topUp`, between the agent's calls),
 * or this long after the take when that call runs longer (a hang's timeout): a gdb starting beside
 * the session's own launch and first run competes for a 2-core machine's CPUs (measured: the five
 * tasks' crash starts went from about 330 to 285 ms with the refill moved out of their way).
 */
const REFILL_DELAY_MS = 1500;

/** Whether a process exists and is not a zombie: a SIGKILLed gdb is one until Node reaps it. */
function processLives(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export class DebuggerPool {
  private readonly ready = new Map<BackendKind, Entry[]>();
  private readonly starting = new Map<BackendKind, number>();
  private readonly lastUsed = new Map<BackendKind, number>();
  /** Kinds taken from and not refilled yet, with the timer that refills them if `topUp` does not. */
  private readonly owed = new Map<BackendKind, NodeJS.Timeout>();
  private readonly counts = { prepared: 0, taken: 0, discarded: 0, retired: 0 };
  /** The debuggers handed to sessions, so a session can tell a pooled one from its own. */
  private readonly handedOut = new WeakSet<DebuggerBackend>();
  private readonly recentMs: number;
  private readonly reaper: NodeJS.Timeout | undefined;
  private closed = false;
  /** Starts under way, awaited by close so that none outlives the pool. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: DebuggerPoolOptions) {
    this.recentMs = options.recentMs ?? RECENT_MS;
    if (options.warm > 0) {
      this.reaper = setInterval(() => this.retireUnused(), Math.min(60_000, this.recentMs));
      this.reaper.unref();
    }
  }

  /** Whether `kind` can come from this pool. */
  serves(kind: BackendKind): boolean {
    return this.options.warm > 0 && !this.closed && this.options.preparers[kind] !== undefined;
  }

  /**
   * A ready debugger of `kind` bound to `binding`, or undefined (none ready, or the pool is off).
   * Either way the kind counts as used now, and the pool refills in the background.
   */
  take(kind: BackendKind, binding: PoolBinding): DebuggerBackend | undefined {
    if (!this.serves(kind)) return undefined;
    this.lastUsed.set(kind, Date.now());
    const list = this.ready.get(kind) ?? [];
    let taken: Entry | undefined;
    while (!taken && list.length > 0) {
      const entry = list.shift() as Entry;
      if (entry.dead || !processLives(entry.backend.info.pid)) {
        entry.dead = true;
        this.counts.discarded++;
        void entry.backend.close().catch(() => {});
        continue;
      }
      taken = entry;
    }
    // Refilled once the call that took it has answered, or after a delay: its own start goes first.
    if (!this.owed.has(kind)) {
      const timer = setTimeout(() => this.refill(kind), REFILL_DELAY_MS);
      timer.unref();
      this.owed.set(kind, timer);
    }
    if (!taken) return undefined;
    this.counts.taken++;
    this.handedOut.add(taken.backend);
    taken.binding.onSweep = binding.onSweep;
    if (binding.transcript) {
      for (const [direction, line] of taken.early.splice(0)) binding.transcript(direction, line);
      taken.binding.transcript = binding.transcript;
    }
    return taken.backend;
  }

  /**
   * A debugger this pool handed out died before its session's target opened (it was killed while
   * ready, and the kill landed after the liveness check): counted as discarded. Answers whether
   * `backend` came from this pool, so the session may start again on a fresh one.
   */
  diedAfterTake(backend: DebuggerBackend): boolean {
    if (!this.handedOut.has(backend)) return false;
    this.handedOut.delete(backend);
    this.counts.discarded++;
    return true;
  }

  stats(): PoolStats {
    const ready: PoolStats['ready'] = {};
    for (const [kind, list] of this.ready) ready[kind] = list.length;
    const starting: PoolStats['starting'] = {};
    for (const [kind, n] of this.starting) if (n > 0) starting[kind] = n;
    return { ...this.counts, ready, starting };
  }

  /** Pids of the debuggers ready now (for diagnostics and leak checks). */
  pids(): number[] {
    return [...this.ready.values()].flatMap((list) => list.flatMap((e) => e.backend.info.pid ?? []));
  }

  /** Refills every kind taken from since the last refill: called when a call has answered. */
  topUp(): void {
    for (const kind of [...this.owed.keys()]) this.refill(kind);
  }

  private refill(kind: BackendKind): void {
    clearTimeout(this.owed.get(kind));
    if (!this.owed.delete(kind)) return;
    this.fill(kind);
  }

  /** Starts debuggers of `kind` until `warm` are ready or starting. */
  private fill(kind: BackendKind): void {
    const prepare = this.options.preparers[kind];
    if (!prepare || this.closed) return;
    const list = this.ready.get(kind) ?? [];
    this.ready.set(kind, list);
    while (list.length + (this.starting.get(kind) ?? 0) < this.options.warm) {
      this.starting.set(kind, (this.starting.get(kind) ?? 0) + 1);
      void this.prepareOne(kind, prepare).finally(() => this.starting.set(kind, (this.starting.get(kind) ?? 1) - 1));
    }
  }

  private prepareOne(kind: BackendKind, prepare: Preparer): Promise<void> {
    const started = this.startOne(kind, prepare);
    this.inFlight.add(started);
    return started.finally(() => this.inFlight.delete(started));
  }

  private async startOne(kind: BackendKind, prepare: Preparer): Promise<void> {
    const early: Entry['early'] = [];
    const bound: PoolBinding = {};
    const binding: Required<PoolBinding> = {
      transcript: (direction, line) => {
        if (bound.transcript) bound.transcript(direction, line);
        else if (early.length < EARLY_LINES) early.push([direction, line]);
      },
      onSweep: (killed) => bound.onSweep?.(killed),
    };
    let backend: DebuggerBackend;
    try {
      backend = await prepare(binding);
      this.counts.prepared++;
    } catch (e) {
      this.counts.discarded++;
      log('warn', 'a debugger for the pool did not start', { kind, error: (e as Error).message });
      return;
    }
    if (this.closed) {
      this.counts.retired++;
      await backend.close().catch(() => {});
      return;
    }
    const entry: Entry = { backend, binding: bound, early, dead: false };
    backend.subscribe((e) => {
      if (e.type !== 'died' || entry.dead) return;
      entry.dead = true;
      // Died while waiting (killed, out of memory): dropped and replaced, never handed out.
      const list = this.ready.get(kind) ?? [];
      const at = list.indexOf(entry);
      if (at < 0) return;
      list.splice(at, 1);
      this.counts.discarded++;
      log('info', 'a pooled debugger died; replacing it', { kind, reason: e.reason });
      void backend.close().catch(() => {});
      this.fill(kind);
    });
    this.ready.get(kind)?.push(entry);
  }

  /** Closes the ready debuggers of kinds no session used for `recentMs`. */
  private retireUnused(now = Date.now()): void {
    for (const [kind, list] of this.ready) {
      if (now - (this.lastUsed.get(kind) ?? 0) < this.recentMs) continue;
      for (const entry of list.splice(0)) {
        entry.dead = true;
        this.counts.retired++;
        void entry.backend.close().catch(() => {});
      }
    }
  }

  /** Kills every ready debugger; the pool starts no more. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.reaper) clearInterval(this.reaper);
    for (const timer of this.owed.values()) clearTimeout(timer);
    this.owed.clear();
    const all = [...this.ready.values()].flatMap((list) => list.splice(0));
    for (const entry of all) entry.dead = true;
    this.counts.retired += all.length;
    await Promise.allSettled([...all.map((entry) => entry.backend.close()), ...this.inFlight]);
  }
}
