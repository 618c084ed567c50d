// The DAP framer on exact byte streams: every cut of the bytes, many frames per chunk, and each
// kind of broken input, which must become an error record and leave the stream readable after it.
import { describe, expect, it, vi } from 'vitest';
import { type DapFrame, DapFramer, encodeDapMessage } from '../../../src/protocols/dap/dapFraming.js';

const frame = (body: string, header = `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`) =>
  Buffer.from(header + body, 'utf8');

function pushAll(framer: DapFramer, chunks: readonly Buffer[]): DapFrame[] {
  const out: DapFrame[] = [];
  for (const chunk of chunks) out.push(...framer.push(chunk));
  out.push(...framer.end());
  return out;
}

const messages = (frames: DapFrame[]) => frames.filter((f) => f.kind === 'message').map((f) => f.message);
const errors = (frames: DapFrame[]) => frames.filter((f) => f.kind === 'error').map((f) => f.error);

const sample = [
  { seq: 1, type: 'event', event: 'output', body: { output: 'café 好 🎉\r\n' } },
  { seq: 2, type: 'response', request_seq: 7, command: 'threads', success: true, body: { threads: [] } },
  { seq: 3, type: 'request', command: 'runInTerminal', arguments: { args: ['a b', 'é'] } },
];
const sampleBytes = Buffer.concat(sample.map((m) => encodeDapMessage(m)));

describe('DapFramer', () => {
  it('reads one whole frame', () => {
    const framer = new DapFramer();
    const out = pushAll(framer, [encodeDapMessage(sample[0] as object)]);
    expect(out).toEqual([{ kind: 'message', message: sample[0], bytes: expect.any(Number) }]);
  });

  it('gives back the same messages however the stream is cut in two, at every byte', () => {
    for (let cut = 0; cut <= sampleBytes.length; cut++) {
      const out = pushAll(new DapFramer(), [sampleBytes.subarray(0, cut), sampleBytes.subarray(cut)]);
      expect(
        out.map((f) => f.kind),
        `cut at ${cut}`,
      ).toEqual(['message', 'message', 'message']);
      expect(messages(out), `cut at ${cut}`).toEqual(sample);
    }
  });

  it('gives back the same messages fed one byte at a time, multi-byte characters included', () => {
    const chunks = [...sampleBytes].map((b) => Buffer.from([b]));
    expect(messages(pushAll(new DapFramer(), chunks))).toEqual(sample);
  });

  it('reads a thousand frames from one chunk, in order', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ seq: i + 1, type: 'event', event: 'e', body: { i } }));
    const out = new DapFramer().push(Buffer.concat(many.map((m) => encodeDapMessage(m))));
    expect(messages(out)).toEqual(many);
  });

  it('counts Content-Length in bytes: a body of multi-byte characters is read whole', () => {
    const text = 'é'.repeat(100) + '好'.repeat(100) + '🎉'.repeat(100);
    const body = JSON.stringify({ seq: 1, type: 'event', event: 'output', body: { output: text } });
    const bytes = encodeDapMessage(JSON.parse(body) as object);
    expect(bytes.toString('latin1')).toContain(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
    const [first] = pushAll(new DapFramer(), [bytes]);
    expect(first).toMatchObject({ kind: 'message', message: { body: { output: text } } });
  });

  it('ignores other headers, reads the name in any case, tolerates bare LF and spaces', () => {
    const body = '{"seq":1,"type":"event","event":"x"}';
    const n = Buffer.byteLength(body);
    const variants = [
      `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: ${n}\r\n\r\n`,
      `content-length: ${n}\r\n\r\n`,
      `CONTENT-LENGTH:${n}\n\n`,
      `Content-Length:   ${n}  \r\nX-Other: 1\r\n\r\n`,
    ];
    for (const header of variants) {
      expect(messages(pushAll(new DapFramer(), [frame(body, header)])), JSON.stringify(header)).toEqual([
        { seq: 1, type: 'event', event: 'x' },
      ]);
    }
  });

  it('takes the last Content-Length of a header section', () => {
    const body = '{"seq":1,"type":"event","event":"x"}';
    const out = pushAll(new DapFramer(), [frame(body, `Content-Length: 3\r\nContent-Length: ${body.length}\r\n\r\n`)]);
    expect(messages(out)).toHaveLength(1);
  });

  it('a header section without a usable Content-Length is an error, and the next frame is read', () => {
    const good = encodeDapMessage(sample[1] as object);
    for (const bad of [
      'Content-Type: x\r\n\r\n',
      'Content-Length: abc\r\n\r\n',
      'Content-Length: 5 5\r\n\r\n',
      'Content-Length: -5\r\n\r\n',
      'Content-Length: \r\n\r\n',
      'Content-Length: 99999999999999999999\r\n\r\n',
    ]) {
      const out = pushAll(new DapFramer(), [Buffer.from(bad), good]);
      expect(errors(out), JSON.stringify(bad)).toEqual(['bad_header']);
      expect(messages(out), JSON.stringify(bad)).toEqual([sample[1]]);
      expect(out[0]).toMatchObject({ skippedBytes: bad.length, head: bad });
    }
  });

  it('finds its feet after junk written before a header, with or without a line break', () => {
    const good = encodeDapMessage(sample[0] as object);
    for (const junk of ['warning: something odd\n', 'junk glued to the header ', '\r\n\r\n\r\n']) {
      const out = pushAll(new DapFramer(), [Buffer.from(junk), good]);
      expect(messages(out), JSON.stringify(junk)).toEqual([sample[0]]);
      expect(errors(out), JSON.stringify(junk)).toEqual([]);
    }
  });

  it('reports a header section over the cap without keeping it, then reads the frame that follows', () => {
    const framer = new DapFramer({ maxHeaderBytes: 64 });
    const junk = Buffer.alloc(1000, 'x');
    const out = pushAll(framer, [junk, encodeDapMessage(sample[0] as object)]);
    expect(messages(out)).toEqual([sample[0]]);
    const overflows = out.filter((f) => f.kind === 'error');
    expect(overflows.length).toBeGreaterThan(0);
    expect(overflows.every((f) => f.kind === 'error' && f.error === 'header_too_large')).toBe(true);
    // The junk is reported a cap at a time; what is left under the cap when the real header comes
    // shares its section and is ignored like any other header. The frame's header is not skipped.
    const reported = overflows.reduce((n, f) => n + (f.kind === 'error' ? f.skippedBytes : 0), 0);
    expect(reported).toBeLessThanOrEqual(1000);
    expect(reported).toBeGreaterThan(1000 - 64);
  });

  it('keeps a Content-Length line that straddles the header cap', () => {
    const framer = new DapFramer({ maxHeaderBytes: 64 });
    const body = '{"seq":1,"type":"event","event":"x"}';
    // 50 bytes of junk, then the header: the cap falls just after "Content-Length:".
    const out = pushAll(framer, [Buffer.alloc(50, 'x'), frame(body)]);
    expect(messages(out)).toHaveLength(1);
    expect(out[0]).toMatchObject({ kind: 'error', error: 'header_too_large', skippedBytes: 50 });
  });

  it('a body that is not JSON, or not an object, is an error and the stream goes on', () => {
    for (const body of ['hello', '{"seq":1', '[1,2]', '42', 'null', '"text"']) {
      const out = pushAll(new DapFramer(), [frame(body), encodeDapMessage(sample[1] as object)]);
      expect(errors(out), body).toEqual(['bad_json']);
      expect(out[0]).toMatchObject({ skippedBytes: Buffer.byteLength(body), head: body });
      expect(messages(out), body).toEqual([sample[1]]);
    }
  });

  it('an empty body is reported at once, not when more bytes happen to come', () => {
    const framer = new DapFramer();
    expect(framer.push(Buffer.from('Content-Length: 0\r\n\r\n')).map((f) => f.kind === 'error' && f.error)).toEqual([
      'bad_json',
    ]);
    expect(framer.end()).toEqual([]);
  });

  it('skips a body over the cap without buffering it, keeping its ends for the request_seq', () => {
    const framer = new DapFramer({ maxBodyBytes: 1000 });
    const big = {
      body: { data: 'A'.repeat(100_000) },
      command: 'readMemory',
      request_seq: 41,
      seq: 9,
      success: true,
      type: 'response',
    };
    const bigBytes = encodeDapMessage(big);
    const chunks = [];
    for (let at = 0; at < bigBytes.length; at += 997) chunks.push(bigBytes.subarray(at, at + 997));
    const out = pushAll(framer, [...chunks, encodeDapMessage(sample[0] as object)]);
    const headerLength = bigBytes.indexOf('\r\n\r\n') + 4;
    expect(out[0]).toMatchObject({
      kind: 'error',
      error: 'body_too_large',
      skippedBytes: bigBytes.length - headerLength,
    });
    const skipped = out[0] as Extract<DapFrame, { kind: 'error' }>;
    expect(skipped.head).toMatch(/^\{"body":\{"data":"AAAA/);
    expect(skipped.tail).toMatch(/"request_seq":41,"seq":9,"success":true,"type":"response"\}$/);
    expect(messages(out)).toEqual([sample[0]]);
    // Skipping looks at its first and last 256 bytes per chunk, not at the 100 KB.
    expect(framer.work).toBeLessThan(chunks.length * 300 + 2000);
  });

  it('reports a stream that ends inside a frame', () => {
    const whole = encodeDapMessage(sample[0] as object);
    expect(errors(pushAll(new DapFramer(), [whole.subarray(0, 10)]))).toEqual(['truncated']);
    expect(errors(pushAll(new DapFramer(), [whole.subarray(0, whole.length - 3)]))).toEqual(['truncated']);
    const skipping = new DapFramer({ maxBodyBytes: 10 });
    expect(errors(pushAll(skipping, [whole.subarray(0, whole.length - 3)]))).toEqual(['truncated']);
    expect(pushAll(new DapFramer(), [whole, Buffer.from('\r\n')])).toHaveLength(1);
  });

  it('recovers after a Content-Length that claims too much: the frame after the swallowed one is read', () => {
    const a = '{"seq":1,"type":"event","event":"a"}';
    const lying = frame(a, `Content-Length: ${a.length + 30}\r\n\r\n`);
    const b = encodeDapMessage({ seq: 2, type: 'event', event: 'b' });
    const c = encodeDapMessage({ seq: 3, type: 'event', event: 'c' });
    const out = pushAll(new DapFramer(), [Buffer.concat([lying, b, c])]);
    expect(errors(out)[0]).toBe('bad_json');
    expect(messages(out)).toContainEqual({ seq: 3, type: 'event', event: 'c' });
  });

  it('does linear work on a 1 MB body fed a byte at a time (counted, not timed)', () => {
    const body = JSON.stringify({ seq: 1, type: 'event', event: 'output', body: { output: 'y'.repeat(1_000_000) } });
    const bytes = frame(body);
    const framer = new DapFramer();
    let got = 0;
    for (let i = 0; i < bytes.length; i++) {
      got += framer.push(bytes.subarray(i, i + 1)).length;
      if (framer.work > 3 * bytes.length) throw new Error(`work ${framer.work} at byte ${i} of ${bytes.length}`);
    }
    expect(got).toBe(1);
    // Each byte is scanned or copied once, and the doubling buffer copies at most as much again.
    expect(framer.work).toBeLessThanOrEqual(3 * bytes.length);
  });

  it('moves linearly many bytes through Buffer copies, joins and decodes (spied, not self-reported)', () => {
    const body = JSON.stringify({ seq: 1, type: 'event', event: 'output', body: { output: 'z'.repeat(50_000) } });
    const bytes = frame(body);
    // Two passes over the frame: linear work moves a few times its size, a rescan of the kept
    // bytes per chunk ~10^10 bytes. Past the budget the spies throw, so a quadratic framer fails
    // here at once instead of running for minutes.
    const budget = 2 * 4 * bytes.length;
    let moved = 0;
    const count = (n: number) => {
      moved += n;
      if (moved > budget) throw new Error(`over budget: ${moved} bytes moved for a ${bytes.length}-byte frame`);
    };
    const copy = Buffer.prototype.copy;
    const concat = Buffer.concat;
    const decode = Buffer.prototype.toString;
    const spies = [
      vi.spyOn(Buffer.prototype, 'copy').mockImplementation(function (this: Buffer, target, at, start, end) {
        const n = copy.call(this, target, at, start, end);
        count(n);
        return n;
      }),
      vi.spyOn(Buffer, 'concat').mockImplementation((list, total) => {
        const joined = concat(list, total);
        count(joined.length);
        return joined;
      }),
      vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, ...args: unknown[]) {
        const [encoding, start, end] = args as [BufferEncoding | undefined, number | undefined, number | undefined];
        count((end ?? this.length) - (start ?? 0));
        return decode.call(this, encoding, start, end);
      }),
    ];
    try {
      const framer = new DapFramer();
      for (const size of [1, 7]) {
        for (let i = 0; i < bytes.length; i += size) framer.push(bytes.subarray(i, i + size));
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThanOrEqual(budget);
  });

  it('does linear work on 1 MB of header junk fed a byte at a time, and keeps none of it', () => {
    const framer = new DapFramer();
    const junk = Buffer.alloc(1_000_000, 'Content-Lengt');
    for (let i = 0; i < junk.length; i++) framer.push(junk.subarray(i, i + 1));
    const out = pushAll(framer, [encodeDapMessage(sample[0] as object)]);
    expect(messages(out)).toEqual([sample[0]]);
    expect(framer.work).toBeLessThanOrEqual(junk.length + 200);
  });

  it('encodes with the byte length and decodes to the same message', () => {
    const message = { seq: 5, type: 'request', command: 'evaluate', arguments: { expression: 'ñ + "好"' } };
    const bytes = encodeDapMessage(message);
    const header = bytes.toString('latin1', 0, bytes.indexOf('\r\n\r\n') + 4);
    expect(header).toBe(`Content-Length: ${bytes.length - header.length}\r\n\r\n`);
    expect(messages(new DapFramer().push(bytes))).toEqual([message]);
  });

  it('refuses caps that are not positive integers', () => {
    expect(() => new DapFramer({ maxBodyBytes: 0 })).toThrow(RangeError);
    expect(() => new DapFramer({ maxHeaderBytes: 1.5 })).toThrow(RangeError);
  });
});
