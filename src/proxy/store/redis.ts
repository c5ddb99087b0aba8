import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { clusterPrefix, clusterSubscribers, clusterTime, isCluster, slotMaster, usable, type RedisClusterOptions } from './redis-cluster.js';
import { MAX_WAIT_TIMEOUT_MS, redisClient, type RedisSentinelOptions, type ReplicaAcknowledgement } from './redis-client.js';
import { readRedisFacts, type RedisFacts } from './redis-facts.js';
import { COMMIT, COMPARE_AND_SET, INCR_WITH_TTL } from './redis-scripts.js';
import { ReplicaWait } from './replica-wait.js';
import { StoreUnavailableError } from './store-error.js';

export type { RedisSentinelOptions, ReplicaAcknowledgement } from './redis-client.js';
import type { CommitWrite, ProxyStore } from './types.js';
import { MAX_SHARDS, shardTags, StoreShard } from './store-shards.js';

export interface RedisStoreOptions {
  /** A `redis://` URL, a Sentinel group or a Cluster; or `client` to share a connection the caller owns. */
  url?: string;
  sentinel?: RedisSentinelOptions;
  cluster?: RedisClusterOptions;
  client?: Redis | Cluster;
  /** Prefix of every key and channel (default `me:`; on a Cluster made a hash tag: `{me:}`). */
  prefix?: string;
  logger?: Logger;
  /** Where the master has replicas: how many must acknowledge each commit ({@link ReplicaAcknowledgement}). */
  replicas?: ReplicaAcknowledgement;
  /**
   * On a Cluster: how many shards orders are split into, each under a hash tag of its own (DESIGN: Redis
   * Cluster). 1 (the default): every key under the prefix's one tag.
   */
  shards?: number;
  /** A shard's view of a store's connection: no listener of its own on the shared client. */
  view?: boolean;
}

/**
 * The Redis store, for several proxy instances behind a load balancer. Commands fail fast while Redis is
 * down ({@link REDIS_CLIENT_OPTIONS}) so callers can fail closed rather than hang.
 */
export class RedisStore implements ProxyStore {
  readonly kind = 'redis' as const;
  /** The command connection (a Cluster client on a Cluster); rate limiters share it. */
  readonly client: Redis | Cluster;
  /** True on a Redis Cluster: every key is under one hash tag ({@link clusterPrefix}). */
  readonly cluster: boolean;
  private subscriber: Redis | Cluster | undefined;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  /** Prefix of every key and channel (rate limiters built on this store use it too). */
  readonly prefix: string;
  private readonly ownsClient: boolean;
  /** How many replicas must acknowledge each commit (0: none), and for how long it waits. */
  readonly replicas: ReplicaAcknowledgement;
  /**
   * The connection commits and their `WAIT` go through when replicas must acknowledge: `WAIT` holds its
   * connection until it answers, and on the shared one every read and rate limit would queue behind it.
   */
  private committer: Redis | undefined;
  private waits: ReplicaWait | undefined;
  private readonly parts: readonly StoreShard[] | undefined;

  constructor(options: RedisStoreOptions) {
    if (!options.client && !options.url && !options.sentinel && !options.cluster) throw new Error('RedisStore needs a url, a sentinel group, a cluster or a client');
    // The shards are checked before a connection is made: a refused store leaves nothing connecting behind it.
    const count = options.shards ?? 1;
    if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS) throw new Error(`RedisStore: shards must be a whole number from 1 to ${MAX_SHARDS}`);
    if (count > 1) {
      if (!(options.cluster || (options.client && isCluster(options.client)))) {
        throw new Error('RedisStore: shards are for a Redis Cluster (one server keeps every key in one place); leave REDIS_CLUSTER_SHARDS unset');
      }
      if (/\{[^}]*\}/.test(options.prefix ?? '')) throw new Error(`RedisStore: a prefix with a hash tag (${options.prefix}) puts every key in one slot, so orders cannot be split into shards; drop its braces`);
    }
    this.ownsClient = !options.client;
    this.client = options.client ?? redisClient(options.url ? { url: options.url } : options.sentinel ? { sentinel: options.sentinel } : { cluster: options.cluster! });
    this.cluster = isCluster(this.client);
    this.prefix = this.cluster ? clusterPrefix(options.prefix ?? 'me:') : (options.prefix ?? 'me:');
    this.replicas = options.replicas ?? { acknowledge: 0, timeoutMs: 0 };
    if (this.cluster && this.replicas.acknowledge > 0) {
      throw new Error('RedisStore: replicas.acknowledge is not supported on a Redis Cluster (a WAIT there is not sent on the connection that wrote the commit); leave REDIS_WAIT_REPLICAS unset');
    }
    if (this.replicas.acknowledge > 0 && !(this.replicas.timeoutMs > 0 && this.replicas.timeoutMs <= MAX_WAIT_TIMEOUT_MS)) {
      throw new Error(`RedisStore: replicas.timeoutMs must be between 1 and ${MAX_WAIT_TIMEOUT_MS} (a commit written behind a WAIT waits for it, under the 2 s command timeout)`);
    }
    if (count > 1) {
      this.parts = shardTags(options.prefix ?? 'me:', count).map(
        (tag, i) => new StoreShard(new RedisStore({ client: this.client, prefix: tag, view: true }), this, `shard ${i} of ${count} (${tag})`),
      );
    }
    if (options.view) return;
    const logger = options.logger;
    // Without a listener ioredis prints connection errors itself; we log them (the URL may hold a password: not logged).
    this.client.on('error', (err: Error) => logger?.warn({ store: 'redis', reason: err.message }, 'redis error'));
  }

  shards(): readonly ProxyStore[] {
    return this.parts ?? [this];
  }

  private k(key: string): string {
    return this.prefix + key;
  }

  /** Runs one Redis call; any failure of it becomes a StoreUnavailableError naming the operation. */
  private async run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      if (isCluster(this.client)) await usable(this.client);
      return await call();
    } catch (err) {
      throw new StoreUnavailableError(operation, err);
    }
  }

  async get(key: string): Promise<string | null> {
    return this.run('get', () => this.client.get(this.k(key)));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    await this.run('set', () =>
      ttlMs !== undefined && ttlMs > 0 ? this.client.set(this.k(key), value, 'PX', Math.ceil(ttlMs)) : this.client.set(this.k(key), value),
    );
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const reply = await this.run('setIfAbsent', () =>
      ttlMs !== undefined && ttlMs > 0 ? this.client.set(this.k(key), value, 'PX', Math.ceil(ttlMs), 'NX') : this.client.set(this.k(key), value, 'NX'),
    );
    return reply === 'OK';
  }

  async compareAndSet(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean> {
    const ttl = ttlMs !== undefined && ttlMs > 0 ? String(Math.ceil(ttlMs)) : '';
    const reply = await this.run('compareAndSet', () => this.client.eval(COMPARE_AND_SET, 1, this.k(key), expected, value, ttl));
    return reply === 1;
  }

  async commit(write: CommitWrite): Promise<boolean> {
    const ttl = (ms: number | undefined) => (ms !== undefined && ms > 0 ? String(Math.ceil(ms)) : '');
    const sides = write.also ?? [];
    const when = write.when ?? [];
    const keys = [this.k(write.key), ...when.map((c) => this.k(c.key)), ...sides.map((side) => this.k(side.key))];
    const args = [write.expected === null ? '0' : '1', write.expected ?? '', write.value, ttl(write.ttlMs), String(when.length)];
    for (const c of when) args.push(c.equals === null ? '0' : '1', c.equals ?? '');
    for (const side of sides) {
      if (side.op === 'set' || side.op === 'setIfAbsent') args.push(side.op, side.value, ttl(side.ttlMs));
      else args.push(side.op, side.member, side.op === 'addToSet' ? ttl(side.ttlMs) : '');
    }
    const { acknowledge, timeoutMs } = this.replicas;
    if (acknowledge === 0) return (await this.run('commit', () => this.client.eval(COMMIT, keys.length, ...keys, ...args))) === 1;
    const connection = this.commitConnection();
    const [reply, acknowledged] = await this.run('commit', () =>
      // The commit is written first; the WAIT that answers for it is written after it on the same connection.
      Promise.all([connection.eval(COMMIT, keys.length, ...keys, ...args), this.waits!.next()]),
    );
    if (reply !== 1) return false;
    if (Number(acknowledged) < acknowledge) {
      throw new StoreUnavailableError(
        'commit',
        new Error(`acknowledged by ${Number(acknowledged)} of the ${acknowledge} replicas REDIS_WAIT_REPLICAS asks within ${timeoutMs} ms: written on the master only, so a failover may lose it`),
      );
    }
    return true;
  }

  private commitConnection(): Redis {
    // A connection that gave up reconnecting (a failover longer than its retries) is made anew, or every
    // commit after it would fail with "Connection is closed" until the process restarts.
    if (this.committer && this.committer.status !== 'end') return this.committer;
    // Never a Cluster: the constructor refuses replicas' acknowledgements there.
    const committer = (this.client as Redis).duplicate();
    committer.on('error', () => undefined);
    this.committer = committer;
    this.waits = new ReplicaWait(committer, this.replicas);
    return committer;
  }

  async del(key: string): Promise<void> {
    await this.run('del', () => this.client.del(this.k(key)));
  }

  async incr(key: string, ttlMs?: number): Promise<number> {
    const ttl = ttlMs !== undefined && ttlMs > 0 ? String(Math.ceil(ttlMs)) : '';
    return Number(await this.run('incr', () => this.client.eval(INCR_WITH_TTL, 1, this.k(key), ttl)));
  }

  async addToSet(key: string, member: string, ttlMs?: number): Promise<void> {
    if (ttlMs === undefined || ttlMs <= 0) {
      await this.run('addToSet', () => this.client.sadd(this.k(key), member));
      return;
    }
    await this.run('addToSet', () => this.client.multi().sadd(this.k(key), member).pexpire(this.k(key), Math.ceil(ttlMs)).exec());
  }

  async removeFromSet(key: string, member: string): Promise<void> {
    await this.run('removeFromSet', () => this.client.srem(this.k(key), member));
  }

  async members(key: string): Promise<string[]> {
    return this.run('members', () => this.client.smembers(this.k(key)));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run('publish', () => this.client.publish(this.k(channel), message));
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    const name = this.k(channel);
    const subscriber = this.subscriberConnection();
    let set = this.handlers.get(name);
    if (!set) {
      this.handlers.set(name, (set = new Set()));
      await this.run('subscribe', async () => (isCluster(subscriber) ? usable(subscriber).then(() => subscriber.subscribe(name)) : subscriber.subscribe(name)));
    }
    const own = (message: string) => handler(message);
    set.add(own);
    return async () => {
      const current = this.handlers.get(name);
      if (!current?.delete(own) || current.size > 0) return;
      this.handlers.delete(name);
      await subscriber.unsubscribe(name).catch(() => undefined);
    };
  }

  /** `PUBSUB NUMSUB`: the connections subscribed to the channel, across every process on this Redis. */
  async subscribers(channel: string): Promise<number> {
    const client = this.client;
    if (isCluster(client)) return this.run('pubsub', () => clusterSubscribers(client, this.k(channel)));
    const reply = (await this.run('pubsub', () => this.client.call('PUBSUB', 'NUMSUB', this.k(channel)))) as unknown[];
    return Number(reply[1] ?? 0);
  }

  /** Pub/sub needs a connection of its own: a subscribed connection runs no other command. */
  private subscriberConnection(): Redis | Cluster {
    if (this.subscriber) return this.subscriber;
    const client = this.client;
    const subscriber: Redis | Cluster = isCluster(client) ? client.duplicate() : client.duplicate();
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
    this.subscriber = subscriber;
    return subscriber;
  }

  /**
   * What the server says of its persistence, eviction, replication and Cluster mode (DESIGN: the store's
   * checks); what it will not say (a managed Redis may refuse CONFIG) is null.
   */
  async inspect(): Promise<RedisFacts> {
    const client = this.client;
    // On a Cluster, the master of the proxy's one slot: the server that keeps every record of the proxy's.
    return this.run('inspect', async () => readRedisFacts(isCluster(client) ? await slotMaster(client, this.prefix) : client));
  }

  /** Redis's `TIME`: the server's clock, seconds and microseconds. */
  async time(): Promise<number> {
    const client = this.client;
    if (isCluster(client)) return this.run('time', () => clusterTime(client, this.prefix));
    const [seconds, micros] = await this.run('time', () => client.time());
    return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
  }

  async ping(): Promise<boolean> {
    try {
      const client = this.client;
      // On a Cluster, the master that keeps this store's slot (a keyless PING goes to any node).
      if (isCluster(client)) {
        await usable(client);
        return (await client.eval("return redis.call('PING')", 1, this.k('ping'))) === 'PONG';
      }
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.handlers.clear();
    if (this.subscriber) await this.subscriber.quit().catch(() => this.subscriber?.disconnect());
    if (this.committer) await this.committer.quit().catch(() => this.committer?.disconnect());
    if (this.ownsClient) await this.client.quit().catch(() => this.client.disconnect());
  }
}
