/**
 * Counts open event streams per client in this process and refuses one past the limit. A client is
 * whatever key the caller builds (the relay uses token jti plus IP). In-process on purpose: a stream
 * lives on one instance, and a crashed instance must not leave counts behind in a shared store.
 */
export class StreamLimiter {
  private readonly open = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Takes a slot for `client`; resolves to a release function, or null when the client is at the limit. */
  tryAcquire(client: string): (() => void) | null {
    const count = this.open.get(client) ?? 0;
    if (count >= this.limit) return null;
    this.open.set(client, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.open.get(client) ?? 1) - 1;
      if (now <= 0) this.open.delete(client);
      else this.open.set(client, now);
    };
  }

  /** Streams currently open for `client`. */
  count(client: string): number {
    return this.open.get(client) ?? 0;
  }
}
