// The fingerprint a request_id is checked against, and the registry of starts under way: the same
// arguments in another order are the same request, another value is another; an entry goes with
// its session.
import { describe, expect, it } from 'vitest';
import { startFingerprint } from '../../../src/server/tools/idempotentStart.js';
import { StartRequests } from '../../../src/session/startRequests.js';

describe('start fingerprints', () => {
  it('ignore key order and request_id, and see every other difference', () => {
    const a = startFingerprint({ program: '/p', args: ['x'], env: { A: '1', B: '2' }, request_id: 'r1' });
    expect(startFingerprint({ env: { B: '2', A: '1' }, request_id: 'r2', args: ['x'], program: '/p' })).toBe(a);
    expect(startFingerprint({ program: '/p', args: ['y'], env: { A: '1', B: '2' } })).not.toBe(a);
    expect(startFingerprint({ program: '/p', args: ['x'], env: { A: '1', B: '3' } })).not.toBe(a);
    expect(startFingerprint({ program: '/p', args: ['x'], env: { A: '1', B: '2' }, stop: 'main' })).not.toBe(a);
    // A digest: the program's environment values are not kept.
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('StartRequests', () => {
  it('keys requests by client, and forgets them with their session', async () => {
    const r = new StartRequests();
    const { entry, finish } = r.begin('alice', 'r1', 'f');
    expect(r.find('alice', 'r1')).toBe(entry);
    expect(r.find('bob', 'r1')).toBeUndefined();
    entry.sessionId = 'abcd0123';
    finish();
    await entry.done;
    r.forgetSession('abcd0123');
    expect(r.find('alice', 'r1')).toBeUndefined();
    const second = r.begin('alice', 'r2', 'f');
    r.drop(second.entry);
    expect(r.size).toBe(0);
  });
});
