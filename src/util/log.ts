// Logs are JSON lines on stderr: stdout belongs to MCP. Each line is one object, so text from
// a debugger or a program (untrusted, multi-line) can never forge or break a record.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: LogLevel = 'info';
let sink: (line: string) => void = (line) => {
  process.stderr.write(`${line}\n`);
};

export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

export function getLogLevel(): LogLevel {
  return threshold;
}

/** Tests redirect the log; everything else leaves it on stderr. */
export function setLogSink(next: (line: string) => void): void {
  sink = next;
}

export function log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
  if (order[level] < order[threshold]) return;
  const record = { time: new Date().toISOString(), level, message, ...fields };
  let line: string;
  try {
    line = JSON.stringify(record);
  } catch {
    line = JSON.stringify({ time: record.time, level, message, note: 'fields not serialisable' });
  }
  sink(line);
}
