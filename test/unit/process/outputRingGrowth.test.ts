import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputRing } from '../../../src/process/outputRing.js';

// The ring starts small and grows with the output (a quiet program's session holds little). Each
// read must still give exactly what a ring of the full capacity would: the last `capacity` bytes.

/** Bytes numbered by their cursor, so any misplaced byte shows. */
function bytesAt(start: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = (start + i) % 251;
  return out;
}

describe('OutputRing growth', () => {
  it('reads back what a full-size ring would hold, whatever the sizes of the writes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40_000 }),
        fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 1, maxLength: 30 }),
        (capacity, sizes) => {
          const ring = new OutputRing(capacity);
          let written = 0;
          for (const size of sizes) {
            ring.write(bytesAt(written, size));
            written += size;
            const begin = Math.max(0, written - capacity);
            expect(ring.begin).toBe(begin);
            expect(ring.end).toBe(written);
            const all = ring.read(0, capacity);
            expect(all.start).toBe(begin);
            expect(all.dropped).toBe(begin);
            expect(all.data.equals(bytesAt(begin, written - begin))).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a read from the middle of a grown ring starts at its cursor', () => {
    const ring = new OutputRing(1 << 20);
    ring.write(bytesAt(0, 5000));
    ring.write(bytesAt(5000, 70_000));
    const chunk = ring.read(4990, 20);
    expect(chunk).toMatchObject({ start: 4990, next: 5010, dropped: 0, more: true });
    expect(chunk.data.equals(bytesAt(4990, 20))).toBe(true);
  });
});
