// Fuzzing the DAP framer with fast-check: random bytes, streams of real-looking messages cut into
// random chunks, the same streams with junk between frames, and with random bytes changed. The
// framer never throws, every record it returns is well formed, its work stays linear in the bytes
// pushed, and a clean stream comes back exactly however it is cut.
// FUZZ_RUNS sets the number of cases (default 20,000 in all).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DapFrame, DapFramer, encodeDapMessage } from '../../../src/protocols/dap/dapFraming.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 20_000);
/** A deadline that only catches a hang: the cases take seconds, on a loaded machine tens of them. */
const HANG_MS = 300_000;
const KINDS = new Set(['bad_header', 'header_too_large', 'body_too_large', 'bad_json', 'truncated']);

/** Pushes `bytes` in chunks of the given sizes (cycled), then ends the stream; checks each record. */
function run(framer: DapFramer, bytes: Buffer, sizes: readonly number[]): DapFrame[] {
  const out: DapFrame[] = [];
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const size = sizes[k % sizes.length] as number;
    out.push(...framer.push(bytes.subarray(at, at + size)));
    at += size;
  }
  out.push(...framer.end());
  for (const record of out) {
    if (record.kind === 'message') {
      expect(typeof record.message).toBe('object');
      expect(Array.isArray(record.message)).toBe(false);
      expect(record.bytes).toBeGreaterThan(0);
    } else {
      expect(KINDS.has(record.error), record.error).toBe(true);
      expect(record.skippedBytes).toBeGreaterThanOrEqual(0);
      expect(record.head.length).toBeLessThanOrEqual(256);
    }
    JSON.stringify(record);
  }
  // Each byte is scanned or copied a bounded number of times, whatever the chunking.
  expect(framer.work).toBeLessThanOrEqual(3 * bytes.length + 600 * out.length);
  return out;
}

/** Messages shaped like an adapter's: events, responses and requests with arbitrary JSON bodies. */
const message = fc.oneof(
  fc.record({
    seq: fc.nat(),
    type: fc.constant('event'),
    event: fc.constantFrom('output', 'stopped', 'module'),
    body: fc.jsonValue({ maxDepth: 3 }),
  }),
  fc.record({
    seq: fc.nat(),
    type: fc.constant('response'),
    request_seq: fc.nat(),
    command: fc.string(),
    success: fc.boolean(),
    body: fc.jsonValue({ maxDepth: 3 }),
  }),
  fc.record({
    seq: fc.nat(),
    type: fc.constant('request'),
    command: fc.string({ unit: 'grapheme' }),
    arguments: fc.dictionary(fc.string(), fc.string({ unit: 'grapheme' })),
  }),
);
const chunkSizes = fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 12 });

/** JSON.stringify turns -0 into 0: compare what went through the wire. */
const wire = (m: unknown) => JSON.parse(JSON.stringify(m)) as unknown;

describe(`DAP framer fuzzing (${RUNS} cases)`, () => {
  it(
    'random bytes: never throws, only well-formed records, linear work',
    () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 2000 }), chunkSizes, (bytes, sizes) => {
          run(new DapFramer({ maxHeaderBytes: 128, maxBodyBytes: 512 }), Buffer.from(bytes), sizes);
        }),
        { numRuns: Math.round(RUNS * 0.3) },
      );
    },
    HANG_MS,
  );

  it(
    'header-shaped noise: the same',
    () => {
      const piece = fc.constantFrom(
        'Content-Length: ',
        'content-length:',
        'Content-Length: 12',
        '\r\n',
        '\n',
        '\r\n\r\n',
        '{"seq":1}',
        '99999999999999999999',
        ' ',
        ':',
        'x',
        'é',
        '0',
        '5',
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 200 }), chunkSizes, (pieces, sizes) => {
          run(new DapFramer({ maxHeaderBytes: 64, maxBodyBytes: 256 }), Buffer.from(pieces.join('')), sizes);
        }),
        { numRuns: Math.round(RUNS * 0.3) },
      );
    },
    HANG_MS,
  );

  it(
    'a clean stream cut into random chunks comes back exactly, with no error',
    () => {
      fc.assert(
        fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), chunkSizes, (messages, sizes) => {
          const bytes = Buffer.concat(messages.map((m) => encodeDapMessage(m)));
          const out = run(new DapFramer(), bytes, sizes);
          expect(out.map((f) => (f.kind === 'message' ? f.message : f))).toEqual(messages.map(wire));
        }),
        { numRuns: Math.round(RUNS * 0.2) },
      );
    },
    HANG_MS,
  );

  it(
    'junk between frames costs no frame, whatever its length (reported only past the cap)',
    () => {
      // Junk without a line break or "content-length:" merges into the next header section.
      const junk = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '{', '}', 'é', '\u0000'), maxLength: 300 });
      fc.assert(
        fc.property(fc.array(fc.tuple(junk, message), { minLength: 1, maxLength: 6 }), chunkSizes, (pairs, sizes) => {
          const bytes = Buffer.concat(pairs.flatMap(([j, m]) => [Buffer.from(j), encodeDapMessage(m)]));
          const out = run(new DapFramer({ maxHeaderBytes: 128 }), bytes, sizes);
          expect(out.filter((f) => f.kind === 'message').map((f) => f.message)).toEqual(pairs.map(([, m]) => wire(m)));
          expect(out.every((f) => f.kind === 'message' || f.error === 'header_too_large')).toBe(true);
        }),
        { numRuns: Math.round(RUNS * 0.1) },
      );
    },
    HANG_MS,
  );

  it(
    'a clean stream with random bytes changed: never throws, linear work',
    () => {
      fc.assert(
        fc.property(
          fc.array(message, { minLength: 1, maxLength: 6 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
          chunkSizes,
          (messages, edits, sizes) => {
            const bytes = Buffer.concat(messages.map((m) => encodeDapMessage(m)));
            for (const [at, value] of edits) bytes[at % bytes.length] = value;
            run(new DapFramer({ maxBodyBytes: 4096 }), bytes, sizes);
          },
        ),
        { numRuns: Math.round(RUNS * 0.1) },
      );
    },
    HANG_MS,
  );
});
