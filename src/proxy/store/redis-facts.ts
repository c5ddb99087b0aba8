import type { Redis } from 'ioredis';

/** One replica a master reports (`INFO replication`'s `slaveN` lines). */
export interface ReplicaFact {
  address: string;
  /** `online`, `wait_bgsave`, `send_bulk`… */
  state: string;
  /** How many bytes of the master's replication stream it has not acknowledged. */
  lagBytes: number;
  /** Seconds since it last acknowledged (Redis's `lag`). */
  lagSeconds: number;
}

/**
 * What a Redis server says of itself that decides whether it can keep money records (DESIGN: the store's
 * checks). `null` wherever the server would not say: a managed Redis may refuse `CONFIG`, and then only
 * what `INFO` tells is known.
 */
export interface RedisFacts {
  /** Whether `CONFIG GET` answered. */
  configReadable: boolean;
  /** `appendonly` (or `INFO persistence`'s `aof_enabled`). */
  aof: boolean | null;
  /** `appendfsync`: `always`, `everysec` or `no` (not in `INFO`). */
  fsync: string | null;
  /** `save`: the snapshot schedule, `''` when none. */
  snapshots: string | null;
  /** `maxmemory-policy` (or `INFO memory`'s `maxmemory_policy`). */
  evictionPolicy: string | null;
  /** `master` or `replica` (`INFO replication`'s `role`). */
  role: 'master' | 'replica' | null;
  replicas: ReplicaFact[];
  /** `min-replicas-to-write` and `min-replicas-max-lag` (seconds); 0 when off. */
  minReplicasToWrite: number | null;
  minReplicasMaxLag: number | null;
  /** `INFO cluster`'s `cluster_enabled`. */
  cluster: boolean | null;
  /**
   * Who the server is and where its history stands (DESIGN: a store that goes back in time): `run_id` (new at
   * every start), `master_replid` (new at every start and every promotion), `master_replid2` (the history a
   * promoted replica continues; null when none) and `master_repl_offset`.
   */
  identity: { runId: string; replid: string; replid2: string | null; offset: number } | null;
}

/** `INFO`'s text as one map of `field → value` across its sections. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** `ip=10.0.0.2,port=6379,state=online,offset=123,lag=0` → its fields. */
function parseList(value: string): Map<string, string> {
  return new Map(value.split(',').map((pair) => pair.split('=', 2) as [string, string]));
}

/** The facts from `INFO`'s fields and the `CONFIG GET` answers (null: `CONFIG` refused). */
export function factsOf(info: Map<string, string>, config: Map<string, string> | null): RedisFacts {
  const role = info.get('role');
  const masterOffset = Number(info.get('master_repl_offset') ?? 0);
  const replicas: ReplicaFact[] = [];
  for (const [field, value] of info) {
    if (!/^slave\d+$/.test(field)) continue;
    const r = parseList(value);
    replicas.push({
      address: `${r.get('ip') ?? '?'}:${r.get('port') ?? '?'}`,
      state: r.get('state') ?? 'unknown',
      lagBytes: Math.max(0, masterOffset - Number(r.get('offset') ?? 0)),
      lagSeconds: Number(r.get('lag') ?? 0),
    });
  }
  const number = (name: string) => (config?.has(name) ? Number(config.get(name)) : null);
  const aofInfo = info.get('aof_enabled');
  const clusterInfo = info.get('cluster_enabled');
  return {
    configReadable: config !== null,
    aof: config?.has('appendonly') ? config.get('appendonly') === 'yes' : aofInfo === undefined ? null : aofInfo === '1',
    fsync: config?.get('appendfsync') ?? null,
    snapshots: config?.get('save') ?? null,
    evictionPolicy: config?.get('maxmemory-policy') ?? info.get('maxmemory_policy') ?? null,
    role: role === 'master' ? 'master' : role === 'slave' || role === 'replica' ? 'replica' : null,
    replicas,
    minReplicasToWrite: number('min-replicas-to-write'),
    minReplicasMaxLag: number('min-replicas-max-lag'),
    cluster: clusterInfo === undefined ? null : clusterInfo === '1',
    identity: identityOf(info, masterOffset),
  };
}

const NO_REPLID = /^0+$/;

function identityOf(info: Map<string, string>, offset: number): RedisFacts['identity'] {
  const runId = info.get('run_id');
  const replid = info.get('master_replid');
  if (!runId || !replid) return null;
  const replid2 = info.get('master_replid2');
  return { runId, replid, replid2: replid2 && !NO_REPLID.test(replid2) ? replid2 : null, offset };
}

const CONFIG_NAMES = ['appendonly', 'appendfsync', 'save', 'maxmemory-policy', 'min-replicas-to-write', 'min-replicas-max-lag'];

/**
 * Reads the facts from a server: `INFO` (every default section) and one `CONFIG GET` per setting (one name
 * each, which every Redis version takes). A refused or renamed `CONFIG` leaves its facts null; a failing
 * `INFO` rejects (the server is then not usable either).
 */
export async function readRedisFacts(client: Redis): Promise<RedisFacts> {
  // Sent together: one round trip's wait for all of them.
  const [info, replies] = await Promise.all([client.info(), Promise.all(CONFIG_NAMES.map((name) => client.config('GET', name) as Promise<unknown>)).catch(() => null)]);
  let config: Map<string, string> | null = null;
  if (replies) {
    config = new Map();
    for (const reply of replies) if (Array.isArray(reply) && typeof reply[0] === 'string' && typeof reply[1] === 'string') config.set(reply[0], reply[1]);
  }
  return factsOf(parseInfo(info), config);
}
