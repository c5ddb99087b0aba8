import { Cluster, type Redis } from 'ioredis';

/** A Redis Cluster to keep the proxy's records in (DESIGN: Redis Cluster): a few of its nodes, the client learns the rest. */
export interface RedisClusterOptions {
  /** Some of the Cluster's nodes (masters or replicas): the client asks them for the slot map. */
  nodes: { host: string; port: number }[];
  /** The nodes' password (`requirepass` / the default user's), when they ask for one. */
  password?: string | undefined;
  /** How many shards orders are split into (`RedisStoreOptions.shards`); 1 by default. */
  shards?: number | undefined;
}

/** True for an ioredis Cluster client (a store given `client: new Cluster(...)` included). */
export function isCluster(client: Redis | Cluster): client is Cluster {
  return (client as { isCluster?: boolean }).isCluster === true;
}

/**
 * The prefix every key and channel is written under on a Cluster: the configured prefix made a hash tag
 * (`me:` → `{me:}`), so that every key of the proxy's hashes to one slot, and every commit (an order's record
 * with its outbox messages and indexes, conditioned on the store's epoch) is one slot's atomic script. A prefix
 * that already holds a non-empty tag is kept as it is.
 */
export function clusterPrefix(prefix: string): string {
  return /\{[^}]+\}/.test(prefix) ? prefix : `{${prefix}}`;
}

/**
 * A Cluster client with the proxy's timeouts on every node's connection (`nodeOptions`, the same as a single
 * server's): reads and writes go to masters only (a replica's copy may be behind a compare-and-set), and a
 * slot that moves or a failover under way is followed for a few redirections, each under the command timeout.
 */
export function clusterClient(options: RedisClusterOptions, nodeOptions: Record<string, unknown>): Cluster {
  return new Cluster(options.nodes, {
    // No queue while the Cluster is unreachable: a queued command waits with no timeout (a single server's
    // client gives up after one retry). Commands wait for the slot map instead (`usable`), or fail.
    enableOfflineQueue: false,
    scaleReads: 'master',
    redisOptions: { ...nodeOptions, ...(options.password ? { password: options.password } : {}) },
    // A slot map that does not come is asked of another node as fast as a command would fail.
    slotsRefreshTimeout: Number(nodeOptions.connectTimeout ?? 3_000),
    maxRedirections: 16,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
  });
}

/**
 * Resolves once the Cluster client has its slot map (at once when it has); rejects at its next error while it
 * connects or reconnects (no node answers), and when it was closed: so a command fails as fast as on a single
 * server, rather than waiting in a queue for a Cluster that is down.
 */
export function usable(cluster: Cluster): Promise<void> {
  if (cluster.status === 'ready') return Promise.resolve();
  if (cluster.status === 'end' || cluster.status === 'close') return Promise.reject(new Error('the Cluster client is closed'));
  // One wait shared by every command meanwhile (not a pair of listeners each).
  let waiting = waits.get(cluster);
  if (!waiting) {
    waiting = new Promise<void>((resolve, reject) => {
      const ready = () => {
        cluster.off('error', failed);
        resolve();
      };
      const failed = (err: Error) => {
        cluster.off('ready', ready);
        reject(err);
      };
      cluster.once('ready', ready);
      cluster.once('error', failed);
    }).finally(() => waits.delete(cluster));
    waits.set(cluster, waiting);
  }
  return waiting;
}

const waits = new WeakMap<Cluster, Promise<void>>();

/**
 * The master that holds `key`'s slot (the one every key of the proxy's is on, under {@link clusterPrefix}):
 * the server whose persistence, replicas, clock and history are the store's. Rejects before the slot map is
 * known.
 */
export async function slotMaster(cluster: Cluster, key: string): Promise<Redis> {
  const slot = Number(await cluster.call('CLUSTER', 'KEYSLOT', key));
  const owner = cluster.slots[slot]?.[0];
  const node = cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
  if (!node) throw new Error(`no master known for slot ${slot} (the Cluster's slot map is not loaded, or the slot is not served)`);
  return node;
}

/**
 * `PUBSUB NUMSUB` summed over every node: a Cluster counts each subscriber on the node it is connected to
 * only, while a message published on any node reaches them all.
 */
export async function clusterSubscribers(cluster: Cluster, channel: string): Promise<number> {
  // The nodes are known once the client has the slot map (a first command waits for it).
  if (cluster.status !== 'ready') await cluster.ping();
  const all = cluster.nodes('all');
  if (all.length === 0) throw new Error("the Cluster's nodes are not known yet");
  const counts = await Promise.all(all.map(async (node) => Number(((await node.call('PUBSUB', 'NUMSUB', channel)) as unknown[])[1] ?? 0)));
  return counts.reduce((a, b) => a + b, 0);
}

/** The server's clock of the master holding `key`'s slot (`TIME` in a script routed by the key), in epoch ms. */
export async function clusterTime(cluster: Cluster, key: string): Promise<number> {
  const [seconds, micros] = (await cluster.eval("return redis.call('TIME')", 1, key)) as [string, string];
  return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
}
