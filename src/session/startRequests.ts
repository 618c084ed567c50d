// Starts that carried a request_id, so a retry finds the session the first try opened instead of
// opening a second one. Keyed by client and id: another client's id is another request. The
// arguments are kept as a fingerprint (a digest), so a reused id with other arguments is told
// apart without keeping the arguments. An entry lives while its first call runs and then as long
// as its session is open: bounded by the session cap and the calls in flight.

export interface StartRequest {
  readonly client: string;
  readonly requestId: string;
  readonly fingerprint: string;
  /** The session the first call opened, once it did. */
  sessionId: string | undefined;
  /** The first call's answer, when it was given in full (not cut by a cancel): opaque here. */
  answer: unknown;
  /** Where the session was when that answer was made: a retry at the same point gets it again. */
  answeredAt: { stopId: number; epoch: number; phase: string } | undefined;
  /** Settles when the first call ends, however it ends. */
  readonly done: Promise<void>;
}

export class StartRequests {
  private readonly entries = new Map<string, StartRequest & { finish(): void }>();

  private static key(client: string, requestId: string): string {
    return `${client}\0${requestId}`;
  }

  get size(): number {
    return this.entries.size;
  }

  find(client: string, requestId: string): StartRequest | undefined {
    return this.entries.get(StartRequests.key(client, requestId));
  }

  /** Registers the first call of a request; `finish` settles `done` for the retries waiting on it. */
  begin(client: string, requestId: string, fingerprint: string): { entry: StartRequest; finish(): void } {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const entry = {
      client,
      requestId,
      fingerprint,
      sessionId: undefined,
      answer: undefined,
      answeredAt: undefined,
      done,
      finish,
    };
    this.entries.set(StartRequests.key(client, requestId), entry);
    return { entry, finish };
  }

  /** Forgets a request (its first call failed and left no session). */
  drop(entry: StartRequest): void {
    const key = StartRequests.key(entry.client, entry.requestId);
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }

  /** Forgets the requests of a session that closed or changed hands. */
  forgetSession(sessionId: string): void {
    for (const [key, e] of this.entries) {
      if (e.sessionId === sessionId) {
        this.entries.delete(key);
        e.finish();
      }
    }
  }
}
