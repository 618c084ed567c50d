// A few lines of a text file, read straight from disk with bounded work: the reading stops at the
// last line wanted, and a file whose lines lie further in than MAX_BYTES is left to the caller's
// slower way.

import { open } from 'node:fs/promises';
import { isAbsolute } from 'node:path';

const CHUNK = 64 * 1024;
const MAX_BYTES = 32 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface FileLine {
  line: number;
  text: string;
}

function lineText(parts: Buffer[]): string {
  const text = (parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)).toString('utf8');
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

/**
 * Lines `from`..`to` (1-based, inclusive; fewer when the file is shorter) of the file at the
 * absolute `path`, or undefined when it is not a regular file that can be read here, or when
 * the lines lie beyond the first MAX_BYTES.
 */
export async function readFileLines(path: string, from: number, to: number): Promise<FileLine[] | undefined> {
  if (!isAbsolute(path) || from < 1 || to < from) return undefined;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const lines: FileLine[] = [];
    const buffer = Buffer.allocUnsafe(CHUNK);
    let line = 1;
    let position = 0;
    /** Bytes of the current line seen so far, kept only once it is a wanted line. */
    let partial: Buffer[] = [];
    while (line <= to) {
      if (position >= MAX_BYTES) return undefined;
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl >= 0 && line <= to; nl = chunk.indexOf(NEWLINE, start)) {
        if (line >= from) lines.push({ line, text: lineText([...partial, chunk.subarray(start, nl)]) });
        partial = [];
        line++;
        start = nl + 1;
      }
      // The buffer is reused by the next read: keep a copy of a wanted line's beginning.
      if (line >= from && line <= to && start < bytesRead) partial.push(Buffer.from(chunk.subarray(start)));
    }
    if (partial.length > 0 && line >= from && line <= to) lines.push({ line, text: lineText(partial) });
    return lines;
  } finally {
    await handle.close();
  }
}
