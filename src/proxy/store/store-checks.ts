import type { Logger } from 'pino';
import type { RedisFacts } from './redis-facts.js';
import { formatReason } from './store-format.js';
import type { ProxyStore } from './types.js';

/**
 * What the store must guarantee depends on the provider (DESIGN: the store's checks). Where the provider can
 * be read by reference (payments by `referenceNo`, sessions listed by reference), a record the store lost or
 * rolled back costs a read of the provider, never a second charge. Where it cannot (status by `referenceId`
 * only, or no session listing: the specification shows none), the store is the only memory of a try or a
 * session between its send and its answer, so it must neither lose nor roll back a write.
 */
export function needsDurability(provider: { env: string; statusReference: string; checkoutListing?: boolean | undefined }): boolean {
  const lists = provider.checkoutListing ?? provider.env === 'sandbox';
  return provider.statusReference === 'referenceId' || !lists;
}

/** How the store is reached, besides what the server says of itself. */
export interface StoreSetup {
  /** Whether the mode needs durability ({@link needsDurability}). */
  durable: boolean;
  /** How many replicas acknowledge each commit (`REDIS_WAIT_REPLICAS`; 0: none). */
  acknowledge?: number;
  /** A replica that last acknowledged longer ago than this (s) is behind (`REDIS_MAX_REPLICA_LAG_SECONDS`). */
  maxLagSeconds?: number;
  /** The operator accepts the memory store where the mode needs durability (`ALLOW_MEMORY_STORE`). */
  allowMemory?: boolean;
  /** The store reaches Redis through a Cluster client (REDIS_CLUSTER_NODES), which follows the slot map. */
  clusterClient?: boolean;
  /** How many shards this instance splits orders into (`REDIS_CLUSTER_SHARDS`); false: a shard, which holds no marker. */
  format?: { shards: number } | false;
}

/** The default bound of a replica's lag: Redis's own default `min-replicas-max-lag`. */
export const DEFAULT_MAX_REPLICA_LAG_SECONDS = 10;

/** The store's part of `/ready` and of the start-up line. */
export interface StoreCheck {
  kind: ProxyStore['kind'];
  /** True when nothing below is a reason. */
  ok: boolean;
  /** The readiness write (a commit and a read back on a key of this process's) came back as written. */
  writable: boolean;
  /** Whether this mode needs a store that neither loses nor rolls back a write. */
  needsDurability: boolean;
  persistence: string;
  evictionPolicy: string;
  replication: string;
  /** `yes`, `no`, `unknown`. */
  cluster: string;
  /** What was seen that is no reason to refuse traffic: what is unknown and what to check, what a setting costs. */
  notes: string[];
  /** One sentence each: why the store cannot take money records here. */
  reasons: string[];
}

/** How long the readiness key lives: it needs no cleaning, and every probe renews it. */
export const READINESS_KEY_TTL_MS = 60_000;

/**
 * Writes and reads back a key of this process's through the same commit as an order's change (a
 * compare-and-set on the value it last wrote, with a TTL), so a server that answers a ping but refuses writes
 * (a replica, out of memory, a Cluster node redirecting) is seen. Resolves the failure's message, or null.
 */
export async function probeWrite(store: ProxyStore, key: string, value: string): Promise<string | null> {
  try {
    const before = await store.get(key);
    if (!(await store.commit({ key, expected: before, value, ttlMs: READINESS_KEY_TTL_MS }))) return 'the readiness write lost a compare-and-set nothing else makes';
    const after = await store.get(key);
    return after === value ? null : `the readiness write read back ${after === null ? 'nothing' : 'another value'}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const CLUSTER_REASON = 'Redis is a Cluster node reached as a single server: commands for keys in slots it does not serve are redirected (MOVED), which a single-server client cannot follow; give the Cluster\'s nodes in REDIS_CLUSTER_NODES instead of REDIS_URL';

/** The reason of a store that does not answer a ping. */
export function silentReason(kind: ProxyStore['kind']): string {
  return `the ${kind} store does not answer${kind === 'redis' ? ' (check REDIS_URL and the Redis server)' : ''}`;
}

/** Why a readiness write failed on a store that answers a ping, in the operator's words. */
function writeReason(kind: ProxyStore['kind'], message: string, clusterClient = false): string {
  if (/\b(MOVED|ASK|CROSSSLOT|CLUSTERDOWN|TRYAGAIN)\b/.test(message)) {
    return clusterClient ? `the Redis Cluster refused the readiness write (a slot moving, or a failover under way): ${message}` : CLUSTER_REASON;
  }
  if (/\bREADONLY\b/.test(message)) return 'Redis refuses writes: it is a replica (READONLY); point REDIS_URL at the master, or use REDIS_SENTINELS';
  if (/\bOOM\b/.test(message)) return 'Redis refuses writes: it is out of memory (maxmemory reached); give it more memory (maxmemory) rather than an evicting policy';
  if (/\bNOREPLICAS\b/.test(message)) return 'Redis refuses writes: fewer replicas are in reach than min-replicas-to-write asks';
  if (/\backnowledged by \d+ of the \d+ replicas\b/.test(message)) return `the readiness commit was not acknowledged by the replicas in time (${message.replace(/^store commit failed: /, '')}); order commits fail the same way meanwhile`;
  return `the ${kind} store refused the readiness write: ${message}`;
}

/**
 * Judges the store from the readiness write and what the server says of itself (`facts`; null for a store
 * that cannot say: memory, or one of the merchant's own). Evicting, a replica, a Cluster node: never ready.
 * Losing or rolling back a write: not ready only where the mode needs durability, reported otherwise.
 */
export function judgeStore(kind: ProxyStore['kind'], setup: StoreSetup, writeFailure: string | null, facts: RedisFacts | null): StoreCheck {
  const reasons: string[] = [];
  const notes: string[] = [];
  if (writeFailure !== null) reasons.push(writeReason(kind, writeFailure, setup.clusterClient));
  const check = { kind, writable: writeFailure === null, needsDurability: setup.durable, notes, reasons };
  if (kind === 'memory') {
    const loses =
      'the memory store loses every record when this process stops, and in this mode (PROVIDER_STATUS_REFERENCE=referenceId, or no PROVIDER_CHECKOUT_LISTING) a payment try or checkout session whose answer was lost is known only to the store';
    if (setup.durable && setup.allowMemory) notes.push(`${loses}: accepted (ALLOW_MEMORY_STORE=true); a restart can charge twice`);
    else if (setup.durable) reasons.push(`${loses}: use Redis (REDIS_URL) with appendonly yes and appendfsync always, or accept it with ALLOW_MEMORY_STORE=true`);
    return { ...check, ok: reasons.length === 0, persistence: 'none (this process\'s memory)', evictionPolicy: 'none', replication: 'none', cluster: 'no' };
  }
  if (facts === null) {
    notes.push('this store does not say how it keeps records: make sure it neither evicts nor loses acknowledged writes (docs/operations.md: what the store must guarantee)');
    return { ...check, ok: reasons.length === 0, persistence: 'unknown', evictionPolicy: 'unknown', replication: 'unknown', cluster: 'unknown' };
  }
  if (facts.cluster === true && setup.clusterClient) notes.push("Redis Cluster: every key of the proxy's is under one hash tag, on one master (these facts are that master's)");
  else if (facts.cluster === true && !reasons.includes(CLUSTER_REASON)) reasons.push(CLUSTER_REASON);
  if (facts.role === 'replica') reasons.push('Redis is a replica: the store must be the master (point REDIS_URL at it, or use REDIS_SENTINELS, which follows failovers)');

  const policy = facts.evictionPolicy;
  if (policy === null) notes.push('maxmemory-policy unknown (the server did not say): check that it is noeviction');
  else if (policy !== 'noeviction') reasons.push(`Redis may evict keys (maxmemory-policy ${policy}): an evicted order record is a loss nothing tells; set maxmemory-policy noeviction`);

  const persistence = persistenceOf(facts);
  const loses = persistenceLoss(facts);
  if (loses && setup.durable) reasons.push(`${loses}; in this mode (PROVIDER_STATUS_REFERENCE=referenceId, or no PROVIDER_CHECKOUT_LISTING) a lost record can charge twice: set appendonly yes and appendfsync always`);
  else if (loses) notes.push(`${loses}: here the provider is read for each order the store forgot, so that costs a read, never a charge`);
  if (!facts.configReadable) notes.push('persistence partly unknown (CONFIG refused): check that appendonly is yes and appendfsync always in your provider\'s console');

  const replication = replicationOf(facts);
  if (facts.role === 'master') judgeReplicas(facts, setup, reasons, notes);
  return {
    ...check,
    ok: reasons.length === 0,
    persistence,
    evictionPolicy: policy ?? 'unknown',
    replication,
    cluster: facts.cluster === null ? 'unknown' : facts.cluster ? 'yes' : 'no',
  };
}

/**
 * Replicas (DESIGN: replicas): a failover promotes one, which holds every commit the proxy was told of when
 * each commit waited for a replica's acknowledgement (`REDIS_WAIT_REPLICAS`) and the most advanced replica is
 * promoted (Sentinel's choice, among equal priorities); one that last acknowledged longer ago than the bound is
 * behind, and commits waiting for it fail.
 */
function judgeReplicas(facts: RedisFacts, setup: StoreSetup, reasons: string[], notes: string[]): void {
  const acknowledge = setup.acknowledge ?? 0;
  const bound = setup.maxLagSeconds ?? DEFAULT_MAX_REPLICA_LAG_SECONDS;
  const count = facts.replicas.length;
  // Where commits wait for replicas, or a failover must keep every commit, a lagging replica stops money.
  const matters = setup.durable || acknowledge > 0;
  const behind = facts.replicas.filter((r) => r.state !== 'online' || r.lagSeconds > bound);
  if (behind.length > 0) {
    const each = behind.map((r) =>
      r.state !== 'online'
        ? `${r.address} is ${r.state}, not in step yet (${r.lagBytes} bytes behind)`
        : `${r.address} last acknowledged ${r.lagSeconds} s ago, more than REDIS_MAX_REPLICA_LAG_SECONDS (${bound} s), ${r.lagBytes} bytes behind`,
    );
    const lag = `${behind.length} of ${count} Redis replica${count === 1 ? '' : 's'} behind: ${each.join('; ')}`;
    if (matters) reasons.push(`${lag}; commits ${acknowledge > 0 ? 'waiting for it fail' : 'it has not acknowledged would be lost in a failover'}`);
    else notes.push(`${lag}: a failover now would roll back that much, which costs a read of the provider for each order it touches`);
  }
  if (acknowledge > count) {
    reasons.push(`REDIS_WAIT_REPLICAS asks ${acknowledge} replica${acknowledge === 1 ? '' : 's'} to acknowledge each commit and the master has ${count}: every commit fails`);
    return;
  }
  if (count === 0) return;
  if (acknowledge > 0) {
    notes.push(
      `every commit waits until ${acknowledge} of the ${count} replica${count === 1 ? '' : 's'} acknowledged it (REDIS_WAIT_REPLICAS): a failover keeps it when the most advanced replica is promoted (Sentinel does, among replicas of equal replica-priority)${
        acknowledge >= count ? `; with ${count === 1 ? 'no replica' : `fewer than ${acknowledge} replicas`} left after one, commits fail until another is back` : ''
      }`,
    );
    return;
  }
  const rollback = 'a failover promotes a replica, which may lack the last writes Redis acknowledged (replication is asynchronous)';
  if (setup.durable) reasons.push(`${rollback}, and in this mode a rolled-back record can charge twice: set REDIS_WAIT_REPLICAS (1, with two replicas, keeps the store writable after a failover), or run one Redis with appendfsync always and no failover`);
  else notes.push(`${rollback}: here that costs a read of the provider for each order it touches (REDIS_WAIT_REPLICAS closes it)`);
}

/** What a restart or a crash can take, in words; null when an acknowledged write survives both. */
function persistenceLoss(facts: RedisFacts): string | null {
  if (facts.aof === false) {
    if (facts.snapshots === null) return 'Redis keeps no append-only file (appendonly no): a restart rolls every record back to its last snapshot, if it takes any';
    return facts.snapshots
      ? `Redis keeps snapshots only (save ${facts.snapshots}, appendonly no): a restart rolls every record back to the last snapshot`
      : 'Redis keeps nothing on disk (no appendonly, no save): a restart loses every record';
  }
  if (facts.aof === true && facts.fsync === 'everysec') return 'Redis writes its append-only file to disk once a second (appendfsync everysec): a host crash or power loss loses up to the last second or two of acknowledged writes';
  if (facts.aof === true && facts.fsync === 'no') return 'Redis leaves flushing its append-only file to the operating system (appendfsync no): a host crash loses up to about half a minute of acknowledged writes';
  return null;
}

function persistenceOf(facts: RedisFacts): string {
  if (facts.aof === null) return 'unknown';
  if (!facts.aof) return facts.snapshots === null ? 'no append-only file' : facts.snapshots ? `snapshots only (save ${facts.snapshots})` : 'none';
  return `append-only file, appendfsync ${facts.fsync ?? 'unknown'}`;
}

function replicationOf(facts: RedisFacts): string {
  if (facts.role === null) return 'unknown';
  if (facts.role === 'replica') return 'replica';
  if (facts.replicas.length === 0) return 'master, no replicas';
  const bytes = Math.max(...facts.replicas.map((r) => r.lagBytes));
  const seconds = Math.max(...facts.replicas.map((r) => r.lagSeconds));
  const min = facts.minReplicasToWrite ? `; min-replicas-to-write ${facts.minReplicasToWrite}, max lag ${facts.minReplicasMaxLag ?? '?'} s` : '';
  return `master, ${facts.replicas.length} replica${facts.replicas.length === 1 ? '' : 's'} (behind by ${bytes} bytes, last acknowledged ${seconds} s ago at most${min})`;
}

/**
 * The store's check: a ping, then (when it answers) the readiness write on `key` and what the server says
 * of itself (`store.inspect`, where it has one). Never rejects.
 */
export async function checkStore(store: ProxyStore, setup: StoreSetup, key: string, value: string): Promise<StoreCheck> {
  if (!(await store.ping().catch(() => false))) {
    const silent = judgeStore(store.kind, setup, null, null);
    return { ...silent, ok: false, writable: false, reasons: [silentReason(store.kind)], notes: [] };
  }
  const [writeFailure, facts, format] = await Promise.all([
    probeWrite(store, key, value),
    store.inspect ? store.inspect().catch(() => null) : Promise.resolve(null),
    setup.format === false ? null : formatReason(store, undefined, setup.format?.shards).catch(() => null),
  ]);
  const check = judgeStore(store.kind, { ...setup, clusterClient: (store as { cluster?: boolean }).cluster === true }, writeFailure, facts);
  return format === null ? check : { ...check, ok: false, reasons: [...check.reasons, format] };
}

/** How many replicas the store's commits wait for: a RedisStore says (`replicas`); any other store, none. */
export function acknowledgedBy(store: ProxyStore): number {
  return (store as { replicas?: { acknowledge?: number } }).replicas?.acknowledge ?? 0;
}

/** The store check's one line at start-up: info when the store can take money records here, else an error with the reasons. */
export function logStoreCheck(logger: Pick<Logger, 'info' | 'error'>, check: StoreCheck): void {
  const { ok, reasons, notes, ...detail } = check;
  if (ok) logger.info({ store: detail, notes }, 'store checked: it can keep money records in this mode');
  else logger.error({ store: detail, reasons, notes }, `store checked: not ready for money records (${reasons.join('; ')})`);
}
