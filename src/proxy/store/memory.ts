import { EventEmitter } from 'node:events';
import type { CommitWrite, ProxyStore } from './types.js';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';
import { StoreShard } from './store-shards.js';

interface Entry {
  value: string;
  /** Epoch milliseconds; Infinity when the key has no TTL. */
  expiresAt: number;
}

/**
 * The in-memory store: one process, the default. Keys expire lazily on read and by a periodic sweep;
 * publish/subscribe reaches subscribers of this process only.
 */
export class MemoryStore implements ProxyStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly sets = new Map<string, Set<string>>();
  /** Expiry of sets added to with a TTL (epoch ms). */
  private readonly setExpiry = new Map<string, number>();
  private readonly channels = new EventEmitter();
  private readonly sweeper: NodeJS.Timeout;
  private readonly parts: readonly StoreShard[] | undefined;

  constructor(
    private readonly now: () => number = HOST_RUNTIME.now,
    runtime: Pick<Runtime, 'interval'> = HOST_RUNTIME,
    /**
     * `shards`: orders split over this many memory stores of their own (DESIGN: Redis Cluster), so that one
     * shard can be lost alone; the tests' and the model checker's stand-in for a Cluster's shards.
     */
    options: { shards?: number } = {},
  ) {
    this.channels.setMaxListeners(0);
    this.sweeper = runtime.interval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    const count = options.shards ?? 1;
    if (count > 1) this.parts = Array.from({ length: count }, (_, i) => new StoreShard(new MemoryStore(now, runtime), this, `shard ${i} of ${count}`));
  }

  shards(): readonly ProxyStore[] {
    return this.parts ?? [this];
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private expiry(ttlMs?: number): number {
    return ttlMs !== undefined && ttlMs > 0 ? this.now() + ttlMs : Infinity;
  }

  private sweep(): void {
    for (const key of this.entries.keys()) this.live(key);
    for (const key of this.setExpiry.keys()) this.liveSet(key);
  }

  private liveSet(key: string): Set<string> | undefined {
    const expiresAt = this.setExpiry.get(key);
    if (expiresAt !== undefined && expiresAt <= this.now()) {
      this.sets.delete(key);
      this.setExpiry.delete(key);
    }
    return this.sets.get(key);
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: this.expiry(ttlMs) });
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    if (this.live(key)) return false;
    this.entries.set(key, { value, expiresAt: this.expiry(ttlMs) });
    return true;
  }

  async compareAndSet(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean> {
    const entry = this.live(key);
    if (!entry || entry.value !== expected) return false;
    this.entries.set(key, { value, expiresAt: ttlMs !== undefined ? this.expiry(ttlMs) : entry.expiresAt });
    return true;
  }

  async commit(write: CommitWrite): Promise<boolean> {
    const entry = this.live(write.key);
    if ((entry?.value ?? null) !== write.expected) return false;
    if ((write.when ?? []).some((c) => (this.live(c.key)?.value ?? null) !== c.equals)) return false;
    this.entries.set(write.key, { value: write.value, expiresAt: write.ttlMs !== undefined ? this.expiry(write.ttlMs) : (entry?.expiresAt ?? Infinity) });
    for (const side of write.also ?? []) {
      if (side.op === 'set') this.entries.set(side.key, { value: side.value, expiresAt: this.expiry(side.ttlMs) });
      else if (side.op === 'setIfAbsent') {
        if (!this.live(side.key)) this.entries.set(side.key, { value: side.value, expiresAt: this.expiry(side.ttlMs) });
      } else if (side.op === 'addToSet') this.addNow(side.key, side.member, side.ttlMs);
      else this.removeNow(side.key, side.member);
    }
    return true;
  }

  async del(key: string): Promise<void> {
    this.entries.delete(key);
    this.sets.delete(key);
    this.setExpiry.delete(key);
  }

  async incr(key: string, ttlMs?: number): Promise<number> {
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { value: '1', expiresAt: this.expiry(ttlMs) });
      return 1;
    }
    const next = Number(entry.value) + 1;
    if (!Number.isFinite(next)) throw new Error('incr on a value that is not a number');
    entry.value = String(next);
    return next;
  }

  async addToSet(key: string, member: string, ttlMs?: number): Promise<void> {
    this.addNow(key, member, ttlMs);
  }

  async removeFromSet(key: string, member: string): Promise<void> {
    this.removeNow(key, member);
  }

  private addNow(key: string, member: string, ttlMs?: number): void {
    let set = this.liveSet(key);
    if (!set) this.sets.set(key, (set = new Set()));
    set.add(member);
    if (ttlMs !== undefined && ttlMs > 0) this.setExpiry.set(key, this.now() + ttlMs);
  }

  private removeNow(key: string, member: string): void {
    const set = this.liveSet(key);
    if (!set) return;
    set.delete(member);
    if (set.size === 0) {
      this.sets.delete(key);
      this.setExpiry.delete(key);
    }
  }

  async members(key: string): Promise<string[]> {
    return [...(this.liveSet(key) ?? [])];
  }

  async publish(channel: string, message: string): Promise<void> {
    // Delivered asynchronously, as Redis would.
    queueMicrotask(() => this.channels.emit(channel, message));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    const listener = (message: string) => handler(message);
    this.channels.on(channel, listener);
    return async () => {
      this.channels.off(channel, listener);
    };
  }

  async subscribers(channel: string): Promise<number> {
    return this.channels.listenerCount(channel);
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async time(): Promise<number> {
    return this.now();
  }

  async close(): Promise<void> {
    for (const part of this.parts ?? []) await part.close();
    clearInterval(this.sweeper);
    this.channels.removeAllListeners();
  }
}
