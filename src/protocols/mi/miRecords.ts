// The records of GDB/MI output, as the pure parser produces them.
//
// A value is a c-string (decoded), a list (array) or a tuple (object). A list of results
// (`[frame={..},frame={..}]`) becomes an array of the values, keys dropped; a key repeated in a
// tuple (`{addr="1",addr="2"}`, seen in multi-location breakpoints) becomes an array of its values.

export type MiValue = string | MiList | MiTuple;
export type MiList = MiValue[];
export interface MiTuple {
  [key: string]: MiValue;
}

export type MiResultClass = 'done' | 'running' | 'connected' | 'error' | 'exit';

/** `token^class,results`: the answer to the command that carried the same token. */
export interface MiResultRecord {
  kind: 'result';
  token: number | undefined;
  class: MiResultClass;
  results: MiTuple;
}

/** `*class,…` (exec), `+class,…` (status), `=class,…` (notify). */
export interface MiAsyncRecord {
  kind: 'exec' | 'status' | 'notify';
  token: number | undefined;
  class: string;
  results: MiTuple;
}

/** `~"…"` console, `@"…"` target, `&"…"` log: text already unescaped. */
export interface MiStreamRecord {
  kind: 'console' | 'target' | 'log';
  text: string;
}

/** `(gdb)`: the end of one burst of output. */
export interface MiPromptRecord {
  kind: 'prompt';
}

/** A line that is not MI (or is malformed): kept whole, with why it did not parse. */
export interface MiRawRecord {
  kind: 'raw';
  text: string;
  error: string;
  /** Set only for a line the splitter cut at its cap: how many bytes past the cap were dropped. */
  droppedBytes?: number;
}

export type MiRecord = MiResultRecord | MiAsyncRecord | MiStreamRecord | MiPromptRecord | MiRawRecord;

/**
 * How the line splitter hands over a line it cut at `maxLineBytes`: this mark, the number of bytes
 * it dropped, another NUL, then the kept head of the line. GDB escapes every control character in
 * its output, so a NUL never starts a real MI line; the parser turns the whole thing into a `raw`
 * record carrying `droppedBytes`.
 */
export const MI_TRUNCATED_LINE_MARK = '\u0000dbg-mcp:truncated:';
