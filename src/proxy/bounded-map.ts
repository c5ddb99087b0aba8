/**
 * A Map that holds at most `limit` entries: adding a new key to a full map first drops the oldest one
 * (insertion order). For the proxy's small caches of immutable, re-derivable values.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/**
 * "At most once per `gapMs` per key" (the last 10,000 keys): a page reading in a loop, or a callback replayed
 * a hundred times, is one upstream read per interval, not one each.
 */
export class Throttle {
  private readonly last = new BoundedMap<string, number>(10_000);

  constructor(
    private readonly gapMs: number,
    private readonly now: () => number,
  ) {}

  /** True, and the time noted, when `key` was not let through within the gap. */
  pass(key: string): boolean {
    const now = this.now();
    const last = this.last.get(key);
    if (last !== undefined && now - last < this.gapMs) return false;
    this.last.set(key, now);
    return true;
  }
}
