// A serial mailbox: tasks run one at a time, in the order they were posted. Once closed, queued
// tasks and new posts fail with the close reason.

export class Mailbox {
  private tail: Promise<void> = Promise.resolve();
  private closedWith: Error | undefined;
  private queued = 0;

  get depth(): number {
    return this.queued;
  }

  post<T>(task: () => Promise<T>): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    this.queued++;
    const run = async (): Promise<T> => {
      try {
        if (this.closedWith) throw this.closedWith;
        return await task();
      } finally {
        this.queued--;
      }
    };
    const result = this.tail.then(run);
    this.tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  close(reason: Error): void {
    this.closedWith ??= reason;
  }

  /** Resolves when everything posted so far has finished. */
  drained(): Promise<void> {
    return this.tail;
  }
}
