import { describe, expect, it } from 'vitest';
import { OutputRing } from '../../../src/process/outputRing.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const text = (data: Buffer): string => data.toString('latin1');

describe('OutputRing', () => {
  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new OutputRing(0)).toThrow(RangeError);
    expect(() => new OutputRing(-1)).toThrow(RangeError);
    expect(() => new OutputRing(1.5)).toThrow(RangeError);
  });

  it('starts empty: a read at 0 gives nothing, nothing dropped, nothing more', () => {
    const r = new OutputRing(8);
    expect(r.begin).toBe(0);
    expect(r.end).toBe(0);
    const c = r.read(0, 100);
    expect(text(c.data)).toBe('');
    expect(c).toMatchObject({ start: 0, next: 0, dropped: 0, more: false });
  });

  it('a cursor counts bytes ever written; next is where the following read starts', () => {
    const r = new OutputRing(16);
    r.write(b('hello '));
    const first = r.read(0, 100);
    expect(text(first.data)).toBe('hello ');
    expect(first.next).toBe(6);
    r.write(b('world'));
    const second = r.read(first.next, 100);
    expect(text(second.data)).toBe('world');
    expect(second).toMatchObject({ start: 6, next: 11, dropped: 0, more: false });
    // Reading at the end is an empty read that keeps the cursor.
    expect(r.read(11, 100)).toMatchObject({ start: 11, next: 11, dropped: 0, more: false });
  });

  it('an empty write changes nothing', () => {
    const r = new OutputRing(4);
    r.write(b('ab'));
    r.write(Buffer.alloc(0));
    expect(r.end).toBe(2);
  });

  it('wraps around: the newest capacity bytes are kept, in order', () => {
    const r = new OutputRing(8);
    r.write(b('abcdef'));
    r.write(b('ghij')); // wraps: physical layout is "ijcdefgh"
    expect(r.end).toBe(10);
    expect(r.begin).toBe(2);
    const c = r.read(2, 100);
    expect(text(c.data)).toBe('cdefghij');
    expect(c).toMatchObject({ start: 2, next: 10, dropped: 0, more: false });
    // A read that itself crosses the physical end of the buffer.
    expect(text(r.read(5, 4).data)).toBe('fghi');
  });

  it('wraps many times and stays exact', () => {
    const r = new OutputRing(7);
    let all = '';
    for (let i = 0; i < 50; i++) {
      const chunk = `${i},`;
      r.write(b(chunk));
      all += chunk;
      const c = r.read(r.begin, 100);
      expect(text(c.data)).toBe(all.slice(-7));
    }
  });

  it('counts what was dropped when the ring moved past the cursor', () => {
    const r = new OutputRing(4);
    r.write(b('0123456789'));
    expect(r.begin).toBe(6);
    const c = r.read(0, 100);
    expect(text(c.data)).toBe('6789');
    expect(c).toMatchObject({ start: 6, next: 10, dropped: 6, more: false });
    const partly = r.read(4, 100);
    expect(partly).toMatchObject({ start: 6, dropped: 2 });
    expect(text(partly.data)).toBe('6789');
    // A cursor still inside the ring lost nothing.
    expect(r.read(6, 100).dropped).toBe(0);
  });

  it('caps a read at maxBytes and says there is more', () => {
    const r = new OutputRing(32);
    r.write(b('abcdefghij'));
    const c = r.read(0, 4);
    expect(text(c.data)).toBe('abcd');
    expect(c).toMatchObject({ start: 0, next: 4, more: true });
    const d = r.read(c.next, 4);
    expect(text(d.data)).toBe('efgh');
    expect(d.more).toBe(true);
    const e = r.read(d.next, 4);
    expect(text(e.data)).toBe('ij');
    expect(e.more).toBe(false);
  });

  it('a capped read after dropped bytes reports both', () => {
    const r = new OutputRing(4);
    r.write(b('abcdefgh'));
    const c = r.read(1, 2);
    expect(text(c.data)).toBe('ef');
    expect(c).toMatchObject({ start: 4, next: 6, dropped: 3, more: true });
  });

  it('a write bigger than the capacity keeps only its tail and counts all of it', () => {
    const r = new OutputRing(5);
    r.write(b('xy'));
    r.write(b('abcdefghijkl'));
    expect(r.end).toBe(14);
    expect(r.begin).toBe(9);
    const c = r.read(0, 100);
    expect(text(c.data)).toBe('hijkl');
    expect(c).toMatchObject({ start: 9, next: 14, dropped: 9, more: false });
    r.write(b('m'));
    expect(text(r.read(r.begin, 100).data)).toBe('ijklm');
  });

  it('a write of exactly the capacity fills the ring', () => {
    const r = new OutputRing(4);
    r.write(b('z'));
    r.write(b('abcd'));
    expect(text(r.read(0, 100).data)).toBe('abcd');
    expect(r.read(0, 100).dropped).toBe(1);
  });

  it('a cursor past the end reads nothing and drops nothing', () => {
    const r = new OutputRing(4);
    r.write(b('ab'));
    const c = r.read(10, 100);
    expect(c.data.length).toBe(0);
    expect(c.dropped).toBe(0);
    expect(c.more).toBe(false);
  });

  it('a negative cursor is treated as the beginning', () => {
    const r = new OutputRing(4);
    r.write(b('ab'));
    const c = r.read(-5, 100);
    expect(text(c.data)).toBe('ab');
    expect(c).toMatchObject({ start: 0, dropped: 0 });
  });

  it('returns a copy: later writes do not change data already read', () => {
    const r = new OutputRing(4);
    r.write(b('abcd'));
    const c = r.read(0, 4);
    r.write(b('wxyz'));
    expect(text(c.data)).toBe('abcd');
  });

  it('keeps bytes exact, including NULs, high bytes and split UTF-8', () => {
    const r = new OutputRing(6);
    const bytes = Buffer.from([0x00, 0xff, 0xe2, 0x82, 0xac, 0x0a, 0x01, 0x80]);
    r.write(bytes.subarray(0, 3));
    r.write(bytes.subarray(3));
    expect([...r.read(0, 100).data]).toEqual([...bytes.subarray(2)]);
  });
});
