// Who holds each session: the client that opened it (a token's name, `local`, `loopback`, or
// `stdio`), what one client offered another by a handoff, and each client's count for the
// per-client quota, opens under way included. The manager asks here before it lets a client see
// a session; a session held by another client is, to the caller, a session that does not exist.

/** The one client of a stdio server (and of callers that name none: tests, the demo). */
export const STDIO_CLIENT = 'stdio';

export interface Offer {
  /** Who offered it (the holder then). */
  from: string;
  /** The only client that may take it. */
  to: string;
  at: number;
}

export class SessionOwners {
  private readonly holders = new Map<string, string>();
  private readonly offers = new Map<string, Offer>();
  /** Opens under way per client: counted before the first await, as the manager's cap is. */
  private readonly opening = new Map<string, number>();

  holder(id: string): string | undefined {
    return this.holders.get(id);
  }

  holds(id: string, client: string): boolean {
    return this.holders.get(id) === client;
  }

  /** Sessions `client` holds plus those it is opening now. */
  count(client: string): number {
    let n = this.opening.get(client) ?? 0;
    for (const holder of this.holders.values()) if (holder === client) n++;
    return n;
  }

  /** Counts one open under way for `client`; the returned function ends it (idempotent). */
  reserve(client: string): () => void {
    this.opening.set(client, (this.opening.get(client) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.opening.get(client) ?? 1) - 1;
      if (left > 0) this.opening.set(client, left);
      else this.opening.delete(client);
    };
  }

  /** `client` holds `id` from now on; an offer of it is void. */
  assign(id: string, client: string): void {
    this.holders.set(id, client);
    this.offers.delete(id);
  }

  remove(id: string): void {
    this.holders.delete(id);
    this.offers.delete(id);
  }

  /** Offers `id` to `to` (replacing an earlier offer); its holder keeps it until `to` takes it. */
  offer(id: string, to: string, now = Date.now()): Offer {
    const from = this.holders.get(id) ?? '';
    const offer = { from, to, at: now };
    this.offers.set(id, offer);
    return offer;
  }

  /** The offer of `id` to `client`, if there is one. */
  offerTo(id: string, client: string): Offer | undefined {
    const offer = this.offers.get(id);
    return offer?.to === client ? offer : undefined;
  }

  /** Ids of the sessions offered to `client`, with their offers. */
  offeredTo(client: string): [string, Offer][] {
    return [...this.offers].filter(([, o]) => o.to === client);
  }
}
