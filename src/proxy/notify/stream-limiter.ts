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
   * Takes a slot for `client` (and for its `address`, when given): false when either is at its limit. Each
   * slot taken is given back by one `release` with the same arguments.
   */
  tryAcquire(client: string, address?: string): boolean {
    if ((this.open.get(client) ?? 0) >= this.limit) return false;
    if (address !== undefined && (this.open.get(`@${address}`) ?? 0) >= this.addressLimit) return false;
    this.take(client, 1);
    if (address !== undefined) this.take(`@${address}`, 1);
    return true;
  }

  /** Gives back the slot `tryAcquire(client, address)` took. */
  release(client: string, address?: string): void {
    this.take(client, -1);
    if (address !== undefined) this.take(`@${address}`, -1);
  }

  /** Streams currently open for `client`. */
  count(client: string): number {
    return this.open.get(client) ?? 0;
  }

  private take(key: string, by: 1 | -1): void {
    const now = (this.open.get(key) ?? 0) + by;
    if (now <= 0) this.open.delete(key);
    else this.open.set(key, now);
  }
}
