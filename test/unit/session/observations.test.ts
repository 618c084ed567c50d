// The observation log's bounds and its serving rule, without a debugger: the oldest dropped past
// the count or the bytes (the newest always kept), a dropped id told apart from one never given,
// a view served only at the stop it was gathered at and until the target may have changed.
import { describe, expect, it } from 'vitest';
import { ObservationLog } from '../../../src/session/observations.js';
import { initialSnapshot, type SessionSnapshot } from '../../../src/session/sessionState.js';

const at = (stopId: number, epoch = stopId): SessionSnapshot => ({ ...initialSnapshot(), stopId, epoch });

describe('ObservationLog', () => {
  it('keeps the newest up to the count, dropping the oldest; a dropped id was given, an unknown one was not', () => {
    const log = new ObservationLog('s', { count: 3, bytes: 1_000_000 });
    const ids = [1, 2, 3, 4, 5].map((n) => log.record('evaluate', at(1), { n }, [n]).id);
    expect(ids).toEqual(['o1', 'o2', 'o3', 'o4', 'o5']);
    expect(log.list().map((o) => o.id)).toEqual(['o3', 'o4', 'o5']);
    expect(log.dropped).toBe(2);
    expect(log.get('o1')).toBeUndefined();
    expect(log.wasGiven('o1')).toBe(true);
    expect(log.wasGiven('o6')).toBe(false);
  });

  it('keeps within the bytes, counting the answers attached; one bigger than the limit is still kept alone', () => {
    const log = new ObservationLog('s', { count: 100, bytes: 2_000 });
    for (let i = 0; i < 10; i++) log.record('memory', at(1), { i }, { hex: 'ab'.repeat(200) });
    expect(log.bytes).toBeLessThanOrEqual(2_000);
    expect(log.size).toBeGreaterThan(1);
    expect(log.size).toBeLessThan(10);
    const big = log.record('memory', at(1), {}, { hex: 'cd'.repeat(5_000) });
    expect(log.list().map((o) => o.id)).toEqual([big.id]);
  });

  it('serves a view only at its stop and epoch, and not after invalidate', () => {
    const log = new ObservationLog('s');
    const req = { view: 'locals' };
    const kept = log.record('locals', at(2), req, { failures: [] }, 'view');
    expect(log.served('view', at(2), req)?.id).toBe(kept.id);
    expect(log.served('view', at(2), { view: 'locals', frame: 1 })).toBeUndefined();
    expect(log.served('view', at(3), req)).toBeUndefined();
    // Back at "stop 2" is not the same stop: the cache was for the stop that passed.
    expect(log.served('view', at(2), req)).toBeUndefined();
    const again = log.record('locals', at(4), req, { failures: [] }, 'view');
    log.invalidate();
    expect(log.served('view', at(4), req)).toBeUndefined();
    expect(log.get(again.id)).toBeDefined();
  });

  it('history: each call, a stop when it is new, its observations once; paged by seq', () => {
    const log = new ObservationLog('s');
    const o = log.record('stop', at(1), {}, { failures: [] });
    log.noteCall({
      at: 1,
      tool: 'dbg_start',
      arguments: {},
      outcome: 'ok',
      durationMs: 5,
      stopId: 1,
      observations: [o.id],
    });
    log.noteCall({
      at: 9,
      tool: 'dbg_inspect',
      arguments: {},
      outcome: 'ok',
      durationMs: 1,
      stopId: 1,
      observations: [o.id],
    });
    const page = log.history(1, 10);
    expect(page.entries.map((e) => e.kind)).toEqual(['call', 'stop', 'observation', 'call']);
    expect(page.total).toBe(4);
    expect(log.history(1, 2)).toMatchObject({ next: 3 });
    expect(log.history(4, 2).entries.map((e) => e.seq)).toEqual([4]);
    expect(log.history(4, 2).next).toBeUndefined();
  });
});
