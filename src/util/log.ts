// Logs are JSON lines on stderr: stdout belongs to MCP. Each line is one object, so text from
// a debugger or a program (untrusted, multi-line) can never forge or break a record.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: LogLevel = 'info';

export function setLogLevel(level: LogLevel): void {
  threshold = level;
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
  process.stderr.write(`${line}\n`);
}
