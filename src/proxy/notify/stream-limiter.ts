/**
 * Counts open event streams per client in this process and refuses one past the limit. A client is
 * whatever key the caller builds (the relay uses token jti plus IP). In-process on purpose: a stream
 * lives on one instance, and a crashed instance must not leave counts behind in a shared store.
 */
export class StreamLimiter {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly limit: number,
    /** Streams per address whatever the token: a page reloaded 200 times mints 200 tokens. */
    private readonly addressLimit = Infinity,
  ) {}

  /**
   * Takes a slot for `client` (and for its `address`, when given); a release function, or null when either
   * is at its limit.
   */
  tryAcquire(client: string, address?: string): (() => void) | null {
    const perAddress = address === undefined ? undefined : `@${address}`;
    if ((this.open.get(client) ?? 0) >= this.limit) return null;
    if (perAddress !== undefined && (this.open.get(perAddress) ?? 0) >= this.addressLimit) return null;
    const keys = perAddress === undefined ? [client] : [client, perAddress];
    for (const key of keys) this.open.set(key, (this.open.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) {
        const now = (this.open.get(key) ?? 1) - 1;
        if (now <= 0) this.open.delete(key);
        else this.open.set(key, now);
      }
    };
  }

  /** Streams currently open for `client`. */
  count(client: string): number {
    return this.open.get(client) ?? 0;
  }
}
