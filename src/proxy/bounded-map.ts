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
