// What the session layer reports as it happens, for /metrics: src/transport/metrics.ts
// implements it (through createServer's observer). Optional everywhere: stdio passes none.

export interface SessionObserver {
  /** A debugger died under a session nobody was closing (the backend kind: gdb, rr, …). */
  debuggerDied(kind: string): void;
  /** A session was closed for idleness; `client` held it. */
  reaped(client: string): void;
  /** One sweep for processes a closed session left behind, and how many it killed. */
  sweep(count: number): void;
}
