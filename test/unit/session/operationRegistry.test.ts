// The operation registry on recorded state changes (the reducer's own snapshots, no debugger):
// a run cut short at its deadline ends at the next stop, exit or death; a run answered in full is
// forgotten; a cancelled one is kept until read; two waits on one run share an id; the registry
// stays bounded.
import { describe, expect, it } from 'vitest';
import type { StopEvent } from '../../../src/model/model.js';
import { OperationRegistry } from '../../../src/session/operationRegistry.js';
import type { RunOutcome } from '../../../src/session/runControl.js';
import {
  initialSnapshot,
  type SessionEvent,
  type SessionSnapshot,
  transition,
} from '../../../src/session/sessionState.js';

const STOP: StopEvent = {
  reason: 'breakpoint-hit',
  threadId: 1,
  frame: { level: 0, address: '0x401000', function: 'main' },
};

/** A session's snapshot driven by events, with the outcome a run would report. */
function fakeSession() {
  let snap: SessionSnapshot = initialSnapshot();
  const outcome = (): RunOutcome => {
    const s = snap.state;
    if (s.phase === 'stopped') return { kind: 'stopped', stop: s.stop, stopId: snap.stopId };
    if (s.phase === 'exited') return { kind: 'exited', exit: s.exit };
    if (s.phase === 'dead') return { kind: 'dead', reason: s.reason };
    return { kind: 'running' };
  };
  const registry = new OperationRegistry({ snapshot: () => snap, outcome });
  const apply = (e: SessionEvent): void => {
    snap = transition(snap, e);
    registry.settle();
  };
  apply({ type: 'loaded' });
  return { registry, apply, outcome };
}

describe('OperationRegistry', () => {
  it('keeps a run cut short at its deadline and records where it stopped', () => {
    const { registry, apply, outcome } = fakeSession();
    const op = registry.begin('continue', { plan: 'P' });
    apply({ type: 'running', threadId: 'all' });
    expect(registry.end(op.id, outcome(), false)).toBe(op);
    expect(op.outcome).toBeUndefined();
    expect(registry.list()).toEqual([op]);
    apply({ type: 'thread-created', id: 2, group: 'i1' });
    expect(op.outcome).toBeUndefined();
    apply({ type: 'stopped', stop: STOP });
    expect(op.outcome).toMatchObject({ kind: 'stopped', stopId: 1 });
    expect(op.context).toEqual({ plan: 'P' });
    // A later run does not overwrite the end it recorded.
    apply({ type: 'running', threadId: 'all' });
    apply({ type: 'exited', exit: { code: 0 } });
    expect(op.outcome).toMatchObject({ kind: 'stopped', stopId: 1 });
    registry.drop(op.id);
    expect(registry.get(op.id)).toBeUndefined();
  });

  it('records a stop that came between the deadline and the registration', () => {
    const { registry, apply } = fakeSession();
    const op = registry.begin('continue', undefined);
    apply({ type: 'running', threadId: 'all' });
    apply({ type: 'stopped', stop: STOP });
    registry.end(op.id, { kind: 'running' }, false);
    expect(op.outcome).toMatchObject({ kind: 'stopped', stopId: 1 });
  });

  it('forgets a run answered in full, keeps one whose call was cut (cancelled, dropped)', () => {
    const { registry, apply, outcome } = fakeSession();
    const full = registry.begin('next', undefined);
    apply({ type: 'running', threadId: 'all' });
    apply({ type: 'stopped', stop: STOP });
    expect(registry.end(full.id, outcome(), false)).toBeUndefined();
    expect(registry.get(full.id)).toBeUndefined();
    const cut = registry.begin('continue', undefined);
    apply({ type: 'running', threadId: 'all' });
    apply({ type: 'stopped', stop: STOP });
    expect(registry.end(cut.id, outcome(), true)).toBe(cut);
    expect(registry.list().map((o) => [o.id, o.outcome?.kind])).toEqual([[cut.id, 'stopped']]);
  });

  it('ends a pending run when the debugger dies', () => {
    const { registry, apply } = fakeSession();
    apply({ type: 'running', threadId: 'all' });
    const op = registry.pending('dbg_start', undefined);
    apply({ type: 'died', reason: 'gdb was killed by SIGKILL' });
    expect(op.outcome).toEqual({ kind: 'dead', reason: 'gdb was killed by SIGKILL' });
  });

  it('gives two waits cut short on the same run the same id', () => {
    const { registry, apply } = fakeSession();
    apply({ type: 'running', threadId: 'all' });
    const first = registry.pending('dbg_start', undefined);
    const wait = registry.begin('wait', undefined);
    expect(registry.end(wait.id, { kind: 'running' }, false)).toBe(first);
    expect(registry.get(wait.id)).toBeUndefined();
    expect(registry.pending('wait', undefined)).toBe(first);
    expect(registry.list()).toHaveLength(1);
  });

  it('holds at most 8, dropping the oldest first, and nothing after clear', () => {
    const { registry, apply } = fakeSession();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const op = registry.begin('continue', i);
      apply({ type: 'running', threadId: 'all' });
      apply({ type: 'stopped', stop: STOP });
      registry.end(op.id, { kind: 'stopped', stop: STOP, stopId: i }, true);
      ids.push(op.id);
    }
    expect(registry.list().map((o) => o.id)).toEqual(ids.slice(2));
    registry.clear();
    expect(registry.list()).toEqual([]);
  });
});
