// What changed between two observations, or two stops: the facts each view holds (variables,
// frames, threads, registers, memory, the stop's place), taken from every view that has them,
// and compared. Only what differs is kept; two alike give an empty difference.

import type { Frame, Variable } from '../../model/model.js';
import type { MemoryRead } from '../operations/memoryRead.js';
import type { StackEntry, ThreadEntry, ViewData, ViewOutcome } from './viewTypes.js';

/** What a set of observations says about the program at one stop. */
export interface Facts {
  /** "0\0i" (frame level, name) → value, one per variable seen; "= expr" for an evaluation. */
  variables: Map<string, string>;
  /** The function of each frame level seen. */
  functions: Map<number, string>;
  /** Innermost first, as the stack lists them (the longest stack seen). */
  frames?: Frame[];
  threads?: Map<number, ThreadEntry>;
  registers: Map<string, string>;
  /** Address → hex of each memory read. */
  memory: Map<string, string>;
  /** Where the selected thread stopped: "square at loop.c:7". */
  place?: string;
}

export interface FactsDiff {
  variables: { name: string; from?: string; to?: string }[];
  frames?: { base: number; returned: string[]; called: string[] };
  threads?: { added: string[]; gone: string[]; moved: string[] };
  registers: { name: string; from?: string; to?: string }[];
  memory: { address: string; from?: string; to?: string }[];
  place?: { from?: string; to?: string };
}

export function emptyFacts(): Facts {
  return { variables: new Map(), functions: new Map(), registers: new Map(), memory: new Map() };
}

export function frameName(f: Frame): string {
  const where = f.file !== undefined && f.line !== undefined ? ` at ${f.file}:${f.line}` : '';
  return `${f.function ?? f.address ?? '??'}${where}`;
}

function addVariables(
  facts: Facts,
  level: number,
  fn: string | undefined,
  vars: readonly Variable[] | undefined,
): void {
  if (fn !== undefined) facts.functions.set(level, fn);
  for (const v of vars ?? []) facts.variables.set(`${level}\0${v.name}`, v.value ?? '');
}

function framesOf(entries: readonly StackEntry[]): Frame[] {
  return entries.flatMap((e) => ('folded' in e ? [] : 'repeated' in e ? [e.frame] : [e]));
}

function keepFrames(facts: Facts, frames: Frame[], from = 0): void {
  for (const f of frames) if (f.function !== undefined) facts.functions.set(f.level, f.function);
  if (from !== 0) return;
  if (!facts.frames || frames.length > facts.frames.length) facts.frames = frames;
}

/** Adds what one gathered view says to `facts` (later views override earlier ones). */
export function addView(facts: Facts, view: ViewData): void {
  switch (view.view) {
    case 'stop':
      if (view.stop.frame) {
        facts.place = frameName(view.stop.frame);
        if (view.stop.frame.function !== undefined) facts.functions.set(0, view.stop.frame.function);
      }
      break;
    case 'crash': {
      const frames = framesOf(view.stack);
      keepFrames(facts, frames);
      if (frames[0]) facts.place = frameName(frames[0]);
      for (const fv of view.locals) addVariables(facts, fv.level, fv.function, fv.variables);
      for (const f of frames) addVariables(facts, f.level, f.function, f.args);
      break;
    }
    case 'stack':
      keepFrames(facts, view.frames, view.from);
      for (const f of view.frames) addVariables(facts, f.level, f.function, f.args);
      break;
    case 'frame':
      addVariables(facts, view.frame.level, view.frame.function, view.locals);
      addVariables(facts, view.frame.level, view.frame.function, view.frame.args);
      break;
    case 'locals':
    case 'args':
      addVariables(facts, view.frame, undefined, view.variables);
      break;
    case 'registers':
      for (const r of view.registers) facts.registers.set(r.name, r.value);
      break;
    case 'threads': {
      const threads = facts.threads ?? new Map<number, ThreadEntry>();
      for (const t of view.threads) threads.set(t.id, t);
      facts.threads = threads;
      break;
    }
    case 'source':
    case 'libraries':
      break;
  }
}

/** Facts from observations of any kind: views, evaluations (as variables), memory reads. */
export function addObservation(facts: Facts, kind: string, value: unknown): void {
  if (kind === 'evaluate') {
    const results = Array.isArray(value) ? value : ((value as { results?: unknown[] }).results ?? []);
    for (const r of results as { expression: string; value?: string; error?: string }[]) {
      facts.variables.set(`= ${r.expression}`, r.value ?? `error: ${r.error ?? '?'}`);
    }
    return;
  }
  if (kind === 'memory') {
    const m = value as MemoryRead;
    facts.memory.set(`0x${m.address.toString(16)}`, m.hex);
    return;
  }
  const outcome = value as ViewOutcome;
  if (outcome?.data) addView(facts, outcome.data);
}

function mapDiff(a: Map<string, string>, b: Map<string, string>): { name: string; from?: string; to?: string }[] {
  const out: { name: string; from?: string; to?: string }[] = [];
  for (const [name, from] of a) {
    const to = b.get(name);
    if (to === undefined) out.push({ name, from });
    else if (to !== from) out.push({ name, from, to });
  }
  for (const [name, to] of b) if (!a.has(name)) out.push({ name, to });
  return out;
}

function threadPlace(t: ThreadEntry): string {
  const f = t.stack?.find((e): e is Frame => !('folded' in e) && !('repeated' in e)) ?? t.frame;
  return f ? frameName(f) : t.state;
}

/**
 * The difference of two sets of facts. Only what both sides saw is compared for frames and
 * threads (a side that never listed threads says nothing about them); variables, registers and
 * memory are compared by name, what only one side has counted as added or gone.
 */
export function diffFacts(a: Facts, b: Facts): FactsDiff {
  // A variable by its frame's function on the side it is seen on (the later side for a change).
  const named = (key: string, side: Facts): string => {
    const cut = key.indexOf('\0');
    if (cut < 0) return key;
    const level = Number(key.slice(0, cut));
    return `#${level} ${side.functions.get(level) ?? '??'}: ${key.slice(cut + 1)}`;
  };
  const diff: FactsDiff = {
    variables: mapDiff(a.variables, b.variables).map((v) => ({
      ...v,
      name: named(v.name, v.to === undefined ? a : b),
    })),
    registers: mapDiff(a.registers, b.registers),
    memory: mapDiff(a.memory, b.memory).map(({ name, ...r }) => ({ address: name, ...r })),
  };
  if (a.frames && b.frames) {
    // The common base: the outermost frames alike (main, and what called into the difference).
    const fa = [...a.frames].reverse();
    const fb = [...b.frames].reverse();
    let base = 0;
    while (base < fa.length && base < fb.length && fa[base]?.function === fb[base]?.function) base++;
    // The innermost common frame may sit at another line: it is alike in function, not in place.
    const returned = fa.slice(base).reverse().map(frameName);
    const called = fb.slice(base).reverse().map(frameName);
    const topA = fa[base - 1];
    const topB = fb[base - 1];
    const moved = topA && topB && frameName(topA) !== frameName(topB);
    if (returned.length > 0 || called.length > 0 || moved) {
      diff.frames = { base, returned, called };
    }
  }
  if (a.threads && b.threads) {
    const added: string[] = [];
    const gone: string[] = [];
    const moved: string[] = [];
    for (const [id, t] of b.threads) {
      const before = a.threads.get(id);
      if (!before) added.push(`${id} ${threadPlace(t)}`);
      else if (threadPlace(before) !== threadPlace(t)) moved.push(`${id} ${threadPlace(before)} → ${threadPlace(t)}`);
    }
    for (const [id, t] of a.threads) if (!b.threads.has(id)) gone.push(`${id} ${threadPlace(t)}`);
    if (added.length + gone.length + moved.length > 0) diff.threads = { added, gone, moved };
  }
  if (a.place !== b.place && (a.place !== undefined || b.place !== undefined)) {
    diff.place = { ...(a.place ? { from: a.place } : {}), ...(b.place ? { to: b.place } : {}) };
  }
  return diff;
}

export function isEmptyDiff(d: FactsDiff): boolean {
  return (
    d.variables.length === 0 &&
    d.registers.length === 0 &&
    d.memory.length === 0 &&
    d.frames === undefined &&
    d.threads === undefined &&
    d.place === undefined
  );
}
