// Observations: every view, evaluation, memory read and disassembly a session gathered, kept as it
// was, under an id ("o12") an agent can ask for again without a debugger command: after the
// program moved on, and (the manager keeps closed sessions' logs) after dbg_close. The same view
// asked again at the same stop is served from here. Bounded per session by count and bytes, the
// oldest dropped first (LIMITS.observations*).

import { LIMITS } from './limits.js';
import type { SessionSnapshot } from './sessionState.js';

export type ObservationKind = string;

export interface Observation {
  /** "o12": unique within its session. */
  id: string;
  /** The stop it was gathered at (0 before the first stop). */
  stopId: number;
  kind: ObservationKind;
  /** When it was gathered (ms since the epoch). */
  at: number;
  /** What was asked (the view request, the expressions, the address), as the session got it. */
  request: unknown;
  /** What was gathered, as it was. */
  value: unknown;
  /** The answer as the server rendered it (data and text), when it attached one. */
  answer?: { data: unknown; text: string };
  /** The function the program was stopped in (frame 0), when it was stopped. */
  stoppedIn?: string;
  /** Its size as counted against the limit (JSON characters). */
  bytes: number;
}

/** One entry of a session's history: a call, a stop it reached, or an observation it gathered. */
export type HistoryEntry =
  | {
      kind: 'call';
      seq: number;
      at: number;
      tool: string;
      /** As the call log writes them: the program's environment values redacted, long strings cut. */
      arguments: unknown;
      /** ok, or error:CODE. */
      outcome: string;
      durationMs: number;
      stopId?: number;
      observations: string[];
    }
  | { kind: 'stop'; seq: number; at: number; stopId: number; summary?: string }
  | { kind: 'observation'; seq: number; at: number; id: string; of: string; stopId: number };

type Unsequenced = HistoryEntry extends infer E ? (E extends unknown ? Omit<E, 'seq'> : never) : never;

/** What one call left in the history (the manager adds the stop and the observations). */
export interface CallNote {
  at: number;
  tool: string;
  arguments: unknown;
  outcome: string;
  durationMs: number;
  stopId?: number;
  stopSummary?: string;
  observations: string[];
}

export interface ObservationLimits {
  count: number;
  bytes: number;
}

function sizeOf(v: unknown): number {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))?.length ?? 0;
  } catch {
    return 0;
  }
}

export class ObservationLog {
  private next = 1;
  private readonly items = new Map<string, Observation>();
  private total = 0;
  /** Dropped past the limit, oldest first. */
  dropped = 0;
  /** Cache keys of this stop's servable observations → id. Cleared when the stop or the target changes. */
  private readonly servable = new Map<string, string>();
  private servableStop = '';
  private readonly events: HistoryEntry[] = [];
  private nextSeq = 1;
  private lastStop = 0;
  /** Observations in the history already (one given back again is not a new one). */
  private readonly listed = new Set<string>();
  /** History entries dropped past LIMITS.historyPerSession, oldest first. */
  historyDropped = 0;
  /** Which value objects were recorded as which observation (a tool asks after the call returned). */
  private readonly byValue = new WeakMap<object, Observation>();

  constructor(
    readonly sessionId: string,
    private readonly limits: ObservationLimits = {
      count: LIMITS.observationsPerSession,
      bytes: LIMITS.observationBytesPerSession,
    },
  ) {}

  get size(): number {
    return this.items.size;
  }

  get bytes(): number {
    return this.total;
  }

  /**
   * Keeps `value` as gathered at the snapshot's stop. With `servable` (the name it is asked for
   * under): the same request at the same stop may be answered from it.
   */
  record(
    kind: ObservationKind,
    snapshot: SessionSnapshot,
    request: unknown,
    value: unknown,
    servable?: string,
  ): Observation {
    const obs: Observation = {
      id: `o${this.next++}`,
      stopId: snapshot.stopId,
      kind,
      at: Date.now(),
      request,
      value,
      bytes: sizeOf(request) + sizeOf(value) + 64,
    };
    const stoppedIn = snapshot.state.phase === 'stopped' ? snapshot.state.stop.frame?.function : undefined;
    if (stoppedIn !== undefined) obs.stoppedIn = stoppedIn;
    this.items.set(obs.id, obs);
    this.total += obs.bytes;
    if (typeof value === 'object' && value !== null) this.byValue.set(value, obs);
    if (servable) {
      this.syncStop(snapshot);
      this.servable.set(cacheKey(servable, request), obs.id);
    }
    this.trim();
    return obs;
  }

  /** An observation of this stop gathered for the very same request, still kept. */
  served(kind: ObservationKind, snapshot: SessionSnapshot, request: unknown): Observation | undefined {
    this.syncStop(snapshot);
    const id = this.servable.get(cacheKey(kind, request));
    return id === undefined ? undefined : this.items.get(id);
  }

  /** The latest servable observation of `kind` at this stop, whatever its request. */
  servedOf(kind: ObservationKind, snapshot: SessionSnapshot): Observation | undefined {
    this.syncStop(snapshot);
    let found: Observation | undefined;
    for (const id of this.servable.values()) {
      const obs = this.items.get(id);
      if (obs?.kind === kind) found = obs;
    }
    return found;
  }

  /** The target may have changed (an assignment, a write, a raw command): nothing is served until the next gather. */
  invalidate(): void {
    this.servable.clear();
  }

  /** The observation a value returned by the session was recorded as. */
  of(value: object): Observation | undefined {
    return this.byValue.get(value);
  }

  get(id: string): Observation | undefined {
    return this.items.get(id);
  }

  /** Attaches the answer the server gave for it (what dbg_inspect observation_id gives back). */
  attach(id: string, answer: { data: unknown; text: string }): void {
    const obs = this.items.get(id);
    if (!obs || obs.answer) return;
    const extra = sizeOf(answer.data) + answer.text.length;
    obs.answer = answer;
    obs.bytes += extra;
    this.total += extra;
    this.trim();
  }

  /** Notes a call on this session: the call, the stop it reached (when new), what it gathered. */
  noteCall(note: CallNote): void {
    const push = (e: Unsequenced) => this.events.push({ ...e, seq: this.nextSeq++ } as HistoryEntry);
    push({
      kind: 'call',
      at: note.at,
      tool: note.tool,
      arguments: note.arguments,
      outcome: note.outcome,
      durationMs: note.durationMs,
      ...(note.stopId !== undefined ? { stopId: note.stopId } : {}),
      observations: note.observations,
    });
    if (note.stopId !== undefined && note.stopId > this.lastStop) {
      this.lastStop = note.stopId;
      push({
        kind: 'stop',
        at: note.at + note.durationMs,
        stopId: note.stopId,
        ...(note.stopSummary ? { summary: note.stopSummary } : {}),
      });
    }
    for (const id of note.observations) {
      const obs = this.items.get(id);
      if (obs && !this.listed.has(id)) this.listed.add(id);
      else continue;
      push({ kind: 'observation', at: obs.at, id, of: obs.kind, stopId: obs.stopId });
    }
    const over = this.events.length - LIMITS.historyPerSession;
    if (over > 0) {
      this.events.splice(0, over);
      this.historyDropped += over;
    }
  }

  /** History entries from `seq` on (the first kept when older), at most `limit`. */
  history(from: number, limit: number): { entries: HistoryEntry[]; next?: number; total: number } {
    const start = this.events.findIndex((e) => e.seq >= from);
    const entries = start < 0 ? [] : this.events.slice(start, start + limit);
    const last = entries.at(-1);
    const more = last !== undefined && this.events.at(-1) !== last;
    return { entries, ...(more ? { next: last.seq + 1 } : {}), total: this.nextSeq - 1 };
  }

  /** Every kept observation, oldest first. */
  list(): Observation[] {
    return [...this.items.values()];
  }

  /** The id the next observation will get: "was this id ever given?" */
  wasGiven(id: string): boolean {
    const n = Number(id.slice(1));
    return Number.isInteger(n) && n >= 1 && n < this.next;
  }

  private syncStop(snapshot: SessionSnapshot): void {
    const at = `${snapshot.stopId}:${snapshot.epoch}`;
    if (at !== this.servableStop) {
      this.servable.clear();
      this.servableStop = at;
    }
  }

  private trim(): void {
    for (const [id, obs] of this.items) {
      if (this.items.size <= this.limits.count && this.total <= this.limits.bytes) break;
      // The newest is always kept, however big.
      if (this.items.size === 1) break;
      this.items.delete(id);
      this.total -= obs.bytes;
      this.dropped++;
    }
  }
}

function cacheKey(kind: string, request: unknown): string {
  return `${kind}:${JSON.stringify(request)}`;
}
