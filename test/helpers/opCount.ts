// Counting the work the MI parser and line splitter do, instead of timing it: the input is handed
// over behind a Proxy that counts every character a string method reads or copies (indexOf
// counts what it scanned, slice what it copied, charCodeAt one) and every byte a Buffer method
// scans, decodes or copies. A quadratic step (an indexOf per string that runs to the end of the
// line, a splitter that rescans or recopies its leftover) shows as a count that grows with the
// square of the input, however busy the machine is. Nothing in src/ changes for it.
//
// Any other use of the input throws, naming the property: a parser that starts reading its line
// some other way (a regex, an index) must have that way counted here, or the count would miss it.
import { vi } from 'vitest';

export interface Tally {
  /** Characters or bytes read, scanned, decoded, copied or allocated. */
  units: number;
}

const range = (length: number, from = 0, to = length): number => {
  const clamp = (n: number) => (n < 0 ? Math.max(0, length + n) : Math.min(n, length));
  return Math.max(0, clamp(to) - clamp(from));
};

/** `s` as the parser reads it, every read counted in `tally`. Pass it where a string is expected. */
export function countedString(s: string, tally: Tally): string {
  const methods: Record<string | symbol, unknown> = {
    charCodeAt: (i: number) => {
      tally.units++;
      return s.charCodeAt(i);
    },
    indexOf: (needle: string, from = 0) => {
      const at = s.indexOf(needle, from);
      tally.units += (at === -1 ? s.length : at + needle.length) - Math.min(Math.max(0, from), s.length);
      return at;
    },
    slice: (from?: number, to?: number) => {
      tally.units += range(s.length, from, to);
      return s.slice(from, to);
    },
    startsWith: (prefix: string, at = 0) => {
      tally.units += prefix.length;
      return s.startsWith(prefix, at);
    },
    trim: () => {
      tally.units += s.length;
      return s.trim();
    },
  };
  // Turned into a primitive (a template, a regex, String()): a full copy.
  const whole = () => {
    tally.units += s.length;
    return s;
  };
  methods['toString'] = whole;
  methods['valueOf'] = whole;
  methods[Symbol.toPrimitive] = whole;
  return new Proxy(new String(s), {
    get(target, prop) {
      if (prop === 'length') return s.length;
      if (Object.hasOwn(methods, prop)) return methods[prop];
      if (typeof prop === 'string' && /^\d+$/.test(prop)) {
        tally.units++;
        return s[Number(prop)];
      }
      // vitest's own look at a value it prints (a failed expect): let it see the String object.
      if (prop === 'constructor' || prop === Symbol.toStringTag || prop === 'then') return Reflect.get(target, prop);
      throw new Error(`the input was read through ${String(prop)}, which opCount.ts does not count`);
    },
  }) as unknown as string;
}

/** `b` as the splitter reads it: indexOf, decoding, copies and index reads counted in `tally`. */
export function countedBuffer(b: Buffer, tally: Tally): Buffer {
  const methods: Record<string | symbol, unknown> = {
    indexOf: (value: number, from = 0) => {
      const at = b.indexOf(value, from);
      tally.units += (at === -1 ? b.length : at + 1) - Math.min(Math.max(0, from), b.length);
      return at;
    },
    toString: (encoding?: BufferEncoding, start?: number, end?: number) => {
      tally.units += range(b.length, start, end);
      return b.toString(encoding, start, end);
    },
    copy: (target: Uint8Array, targetStart?: number, sourceStart?: number, sourceEnd?: number) => {
      const n = b.copy(target, targetStart, sourceStart, sourceEnd);
      tally.units += n;
      return n;
    },
    // A view: constant work, whatever its length.
    subarray: (start?: number, end?: number) => {
      tally.units++;
      return b.subarray(start, end);
    },
  };
  return new Proxy(b, {
    get(target, prop) {
      if (prop === 'length') return b.length;
      if (Object.hasOwn(methods, prop)) return methods[prop];
      if (typeof prop === 'string' && /^\d+$/.test(prop)) {
        tally.units++;
        return b[Number(prop)];
      }
      if (prop === 'constructor' || prop === Symbol.toStringTag || prop === 'then') return Reflect.get(target, prop);
      throw new Error(`the chunk was read through ${String(prop)}, which opCount.ts does not count`);
    },
  });
}

/**
 * Counts, in `tally`, the bytes the splitter joins (Buffer.concat) and allocates
 * (Buffer.allocUnsafe) while `run` runs: its own copies of the unfinished line.
 */
export function countingBufferAllocations<T>(tally: Tally, run: () => T): T {
  const concat = Buffer.concat.bind(Buffer);
  const allocUnsafe = Buffer.allocUnsafe.bind(Buffer);
  const concatSpy = vi.spyOn(Buffer, 'concat').mockImplementation((list, total) => {
    const joined = concat(list, total);
    tally.units += joined.length;
    return joined;
  });
  const allocSpy = vi.spyOn(Buffer, 'allocUnsafe').mockImplementation((size) => {
    tally.units += size;
    return allocUnsafe(size);
  });
  try {
    return run();
  } finally {
    concatSpy.mockRestore();
    allocSpy.mockRestore();
  }
}
