// Who holds which session, counted for the per-client quota with the opens under way, and the
// offers of a handoff (only the named client may take one).
import { describe, expect, it } from 'vitest';
import { SessionOwners } from '../../../src/session/sessionOwners.js';

describe('SessionOwners', () => {
  it('counts what a client holds and is opening, each release once', () => {
    const owners = new SessionOwners();
    owners.assign('a1', 'alice');
    owners.assign('b1', 'bob');
    const release = owners.reserve('alice');
    owners.reserve('alice');
    expect(owners.count('alice')).toBe(3);
    release();
    release();
    expect(owners.count('alice')).toBe(2);
    expect(owners.count('bob')).toBe(1);
    expect(owners.count('carol')).toBe(0);
    owners.remove('a1');
    expect(owners.count('alice')).toBe(1);
    expect(owners.holds('b1', 'bob')).toBe(true);
    expect(owners.holds('b1', 'alice')).toBe(false);
  });

  it('offers a session to one client, who alone finds the offer; taking it voids the offer', () => {
    const owners = new SessionOwners();
    owners.assign('a1', 'alice');
    expect(owners.offer('a1', 'bob', 1000)).toEqual({ from: 'alice', to: 'bob', at: 1000 });
    expect(owners.offerTo('a1', 'carol')).toBeUndefined();
    expect(owners.offerTo('a1', 'bob')).toMatchObject({ from: 'alice' });
    expect(owners.offeredTo('bob').map(([id]) => id)).toEqual(['a1']);
    // Still alice's until bob takes it.
    expect(owners.holds('a1', 'alice')).toBe(true);
    owners.offer('a1', 'carol');
    expect(owners.offerTo('a1', 'bob')).toBeUndefined();
    owners.assign('a1', 'carol');
    expect(owners.offeredTo('carol')).toEqual([]);
    expect(owners.holder('a1')).toBe('carol');
  });
});
