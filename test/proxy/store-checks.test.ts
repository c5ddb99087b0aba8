/**
 * The store's checks (DESIGN: the store's checks), against real redis-server processes: what `/ready` says of
 * the Redis it is given, and the one line at start-up. Evicting, a replica, a Cluster node: never ready. A
 * store that can lose or roll back a write: not ready where the mode needs durability, reported otherwise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readinessResponse } from '../../src/protocol/index.js';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { READY_PATH } from '../../src/proxy/routes/ready.js';
import { factsOf, parseInfo } from '../../src/proxy/store/redis-facts.js';
import { RedisStore } from '../../src/proxy/store/redis.js';
import { judgeStore, needsDurability } from '../../src/proxy/store/store-checks.js';
import { sandboxProvider, startHarness, startRedis, type Harness, type HarnessOptions, type TestRedis } from './helpers.js';

let redis: TestRedis;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  // Back to the test server's settings: nothing on disk, no eviction.
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  await admin.config('SET', 'appendonly', 'no');
  await admin.config('SET', 'appendfsync', 'everysec');
});

let seq = 0;
/** A proxy on `url` (a prefix of its own); `durable`: status by referenceId, the mode that needs durability. */
async function proxyOn(url: string | undefined, durable = false, extra: HarnessOptions = {}): Promise<Harness> {
  h = await startHarness({
    ...extra,
    ...(durable ? { provider: (sandbox) => ({ ...sandboxProvider(sandbox), statusReference: 'referenceId' as const }) } : {}),
    config: { ...(url ? { redisUrl: url, redisPrefix: `sc${process.pid}-${++seq}:` } : {}), ...extra.config },
  });
  return h;
}

async function ready(harness: Harness) {
  const res = await harness.get(READY_PATH);
  return { status: res.status, body: readinessResponse.parse(res.body) };
}

describe('which modes need durability', () => {
  it('is the mode where the provider cannot be read by reference: status by referenceId, or no session listing', () => {
    expect(needsDurability({ env: 'sandbox', statusReference: 'either' })).toBe(false);
    expect(needsDurability({ env: 'sandbox', statusReference: 'referenceNo', checkoutListing: true })).toBe(false);
    expect(needsDurability({ env: 'sandbox', statusReference: 'referenceId' })).toBe(true);
    expect(needsDurability({ env: 'sandbox', statusReference: 'either', checkoutListing: false })).toBe(true);
    // Outside the sandbox the listing is off unless said: the specification shows no listing call.
    expect(needsDurability({ env: 'production', statusReference: 'either' })).toBe(true);
    expect(needsDurability({ env: 'production', statusReference: 'referenceNo', checkoutListing: true })).toBe(false);
  });
});

describe('judging what Redis says', () => {
  it('takes a redirect on the readiness write for a Cluster node, even where INFO could not be read', () => {
    const check = judgeStore('redis', { durable: false }, 'store commit failed: MOVED 12539 127.0.0.1:7002', null);
    expect(check.reasons).toEqual([expect.stringMatching(/^Redis is a Cluster node reached as a single server: .*REDIS_CLUSTER_NODES/)]);
    expect(check).toMatchObject({ ok: false, writable: false, cluster: 'unknown' });
    // Through a Cluster client a redirect it could not follow is the Cluster's moment, not the wrong client.
    const through = judgeStore('redis', { durable: false, clusterClient: true }, 'store commit failed: TRYAGAIN Multiple keys request during rehashing of slot', null);
    expect(through.reasons).toEqual([expect.stringMatching(/^the Redis Cluster refused the readiness write \(a slot moving, or a failover under way\): .*TRYAGAIN/)]);
  });

  it("reads a master's replicas and how far behind each is from INFO replication", () => {
    const info = parseInfo(
      '# Replication\r\nrole:master\r\nconnected_slaves:2\r\nslave0:ip=10.0.0.2,port=6379,state=online,offset=900,lag=0\r\n' +
        'slave1:ip=10.0.0.3,port=6379,state=wait_bgsave,offset=0,lag=3\r\nmaster_repl_offset:1000\r\n# Cluster\r\ncluster_enabled:0\r\n',
    );
    const facts = factsOf(info, new Map([['appendonly', 'yes'], ['appendfsync', 'always'], ['maxmemory-policy', 'noeviction'], ['min-replicas-to-write', '1'], ['min-replicas-max-lag', '10']]));
    expect(facts.replicas).toEqual([
      { address: '10.0.0.2:6379', state: 'online', lagBytes: 100, lagSeconds: 0 },
      { address: '10.0.0.3:6379', state: 'wait_bgsave', lagBytes: 1000, lagSeconds: 3 },
    ]);
    const check = judgeStore('redis', { durable: false }, null, facts);
    expect(check).toMatchObject({ ok: true, cluster: 'no', replication: 'master, 2 replicas (behind by 1000 bytes, last acknowledged 3 s ago at most; min-replicas-to-write 1, max lag 10 s)' });
    expect(check.notes).toEqual([
      '1 of 2 Redis replicas behind: 10.0.0.3:6379 is wait_bgsave, not in step yet (1000 bytes behind): a failover now would roll back that much, which costs a read of the provider for each order it touches',
      expect.stringMatching(/^a failover promotes a replica, which may lack the last writes Redis acknowledged \(replication is asynchronous\): here that costs a read .* \(REDIS_WAIT_REPLICAS closes it\)$/),
    ]);
  });
});

describe('GET /ready on the Redis it is given', () => {
  it('writes and reads back through the commit, reports what Redis keeps, and logs one line at start-up', async () => {
    const harness = await proxyOn(redis.url);
    await harness.proxy.ready();
    const { status, body } = await ready(harness);
    expect(status).toBe(200);
    expect(body.checks.store).toMatchObject({
      kind: 'redis', ok: true, writable: true, needsDurability: false,
      persistence: 'none', evictionPolicy: 'noeviction', replication: 'master, no replicas', cluster: 'no',
    });
    // Nothing on disk costs a read of the provider per forgotten order here, never a charge: said, not refused.
    expect(body.checks.store.notes.join('\n')).toContain('keeps nothing on disk');
    // The readiness write is a key of this process's, with a TTL: it needs no cleaning.
    const keys = await admin.keys(`sc${process.pid}-${seq}:ready:*`);
    expect(keys).toHaveLength(1);
    expect(await admin.pttl(keys[0]!)).toBeGreaterThan(0);
    const lines = harness.logs.entries().filter((e) => String(e.msg).startsWith('store checked'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, store: { persistence: 'none', evictionPolicy: 'noeviction' } });
  });

  it('is not ready on an evicting policy, in every mode, and says so at start-up', async () => {
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const harness = await proxyOn(redis.url);
    await harness.proxy.ready();
    const { status, body } = await ready(harness);
    expect(status).toBe(503);
    expect(body.checks.store).toMatchObject({ ok: false, writable: true, evictionPolicy: 'allkeys-lru' });
    expect(body.reasons).toEqual(['Redis may evict keys (maxmemory-policy allkeys-lru): an evicted order record is a loss nothing tells; set maxmemory-policy noeviction']);
    expect(harness.logs.entries().find((e) => String(e.msg).startsWith('store checked'))).toMatchObject({ level: 50, reasons: body.reasons });
    // Set right while running: ready again at the next probe.
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    expect((await ready(harness)).status).toBe(200);
  });

  it('where the mode needs durability, is ready only on an append-only file written to disk on every write', async () => {
    const harness = await proxyOn(redis.url, true);
    let answer = await ready(harness);
    expect(answer.status).toBe(503);
    expect(answer.body.checks.store).toMatchObject({ needsDurability: true, persistence: 'none', writable: true });
    expect(answer.body.reasons).toEqual([expect.stringMatching(/^Redis keeps nothing on disk .*a lost record can charge twice: set appendonly yes and appendfsync always$/)]);

    await admin.config('SET', 'appendonly', 'yes');
    await admin.config('SET', 'appendfsync', 'everysec');
    answer = await ready(harness);
    expect(answer.status).toBe(503);
    expect(answer.body.checks.store.persistence).toBe('append-only file, appendfsync everysec');
    expect(answer.body.reasons[0]).toMatch(/^Redis writes its append-only file to disk once a second \(appendfsync everysec\): a host crash or power loss loses/);

    await admin.config('SET', 'appendfsync', 'always');
    answer = await ready(harness);
    expect(answer.status, JSON.stringify(answer.body.reasons)).toBe(200);
    expect(answer.body.checks.store).toMatchObject({ ok: true, persistence: 'append-only file, appendfsync always', notes: [] });
  });

  it('where the mode needs durability, is not ready on the memory store, which loses everything with the process', async () => {
    const harness = await proxyOn(undefined, true);
    const { status, body } = await ready(harness);
    expect(status).toBe(503);
    expect(body.checks.store).toMatchObject({ kind: 'memory', writable: true, needsDurability: true });
    expect(body.reasons).toEqual([expect.stringMatching(/^the memory store loses every record when this process stops.*: use Redis .* or accept it with ALLOW_MEMORY_STORE=true$/)]);

    // Unless the operator says so: ready, and the note says what a restart costs.
    await h!.close();
    expect(configFromEnv({ PROVIDER_ENV: 'sandbox', PROXY_TOKEN_SECRET: 'a-secret-of-forty-characters-0123456789AB', ALLOW_MEMORY_STORE: 'true' }).allowMemoryStore).toBe(true);
    const accepted = await ready(await proxyOn(undefined, true, { config: { allowMemoryStore: true } }));
    expect(accepted.status).toBe(200);
    expect(accepted.body.checks.store).toMatchObject({ kind: 'memory', ok: true, needsDurability: true });
    expect(accepted.body.checks.store.notes).toEqual([expect.stringMatching(/: accepted \(ALLOW_MEMORY_STORE=true\); a restart can charge twice$/)]);
  });

  it('on a Redis whose CONFIG is refused (managed Redis), says what is unknown and what to check, from INFO', async () => {
    const locked = await startRedis(['--rename-command', 'CONFIG', '']);
    try {
      const harness = await proxyOn(locked.url);
      const { status, body } = await ready(harness);
      expect(status).toBe(200);
      // INFO still tells the policy and whether there is an append-only file; not how often it is flushed.
      expect(body.checks.store).toMatchObject({ ok: true, evictionPolicy: 'noeviction', persistence: 'no append-only file' });
      expect(body.checks.store.notes).toContain("persistence partly unknown (CONFIG refused): check that appendonly is yes and appendfsync always in your provider's console");
    } finally {
      await locked.stop();
    }
  });
});

describe('GET /ready on replicas and Cluster nodes', () => {
  it('is not ready on a replica: the readiness write is refused, and Redis says it is one', async () => {
    const replica = await startRedis(['--replicaof', '127.0.0.1', String(redis.port)]);
    try {
      const harness = await proxyOn(replica.url);
      const { status, body } = await ready(harness);
      expect(status).toBe(503);
      expect(body.checks.store).toMatchObject({ writable: false, replication: 'replica' });
      expect(body.reasons).toEqual([
        'Redis refuses writes: it is a replica (READONLY); point REDIS_URL at the master, or use REDIS_SENTINELS',
        'Redis is a replica: the store must be the master (point REDIS_URL at it, or use REDIS_SENTINELS, which follows failovers)',
      ]);

      // Its master: a failover may roll back what the replica had not received. Said here; refused where
      // the mode needs durability.
      await h!.close();
      const onMaster = await proxyOn(redis.url);
      await waitFor(async () => /connected_slaves:1/.test(await admin.info('replication')));
      const master = await ready(onMaster);
      expect(master.status).toBe(200);
      expect(master.body.checks.store.replication).toMatch(/^master, 1 replica \(behind by \d+ bytes/);
      expect(master.body.checks.store.notes.join('\n')).toContain('a failover promotes a replica, which may lack the last writes Redis acknowledged');
      await h!.close();
      await admin.config('SET', 'appendonly', 'yes');
      await admin.config('SET', 'appendfsync', 'always');
      // Turning the append-only file on may send the replica through a new sync: judged once it is in step.
      await waitFor(async () => /slave0:[^\r\n]*state=online/.test(await admin.info('replication')));
      const durable = await proxyOn(redis.url, true);
      const refused = await ready(durable);
      expect(refused.status).toBe(503);
      expect(refused.body.reasons).toEqual([expect.stringMatching(/^a failover promotes a replica, .* in this mode a rolled-back record can charge twice: set REDIS_WAIT_REPLICAS/)]);
    } finally {
      await replica.stop();
    }
  });

  it('where the mode needs durability, with every replica acknowledging each commit: ready; a replica lagging fails it, with the reason, until it is back', async () => {
    const master = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    const replica = await startRedis(['--replicaof', '127.0.0.1', String(master.port), '--enable-debug-command', 'yes']);
    const onMaster = new Redis(master.url);
    const onReplica = new Redis(replica.url, { commandTimeout: 60_000 });
    try {
      await waitFor(async () => /slave0:[^\r\n]*state=online/.test(await onMaster.info('replication')));
      const harness = await proxyOn(master.url, true, { config: { redisReplicas: { acknowledge: 1, maxLagSeconds: 3 } } });
      const steady = await ready(harness);
      expect(steady.status, JSON.stringify(steady.body.reasons)).toBe(200);
      expect(steady.body.checks.store.notes).toEqual([expect.stringMatching(/^every commit waits until 1 of the 1 replica acknowledged it \(REDIS_WAIT_REPLICAS\): a failover keeps it .*; with no replica left after one, commits fail until another is back$/)]);
      // A commit returns once the replica has it.
      const store = new RedisStore({ url: master.url, prefix: `sc${process.pid}-wait:`, replicas: { acknowledge: 1, timeoutMs: 1_000 } });
      expect(await store.commit({ key: 'k', expected: null, value: 'one' })).toBe(true);
      expect(await onReplica.get(`sc${process.pid}-wait:k`)).toBe('one');

      // The replica stops answering (blocked for 8 s): it acknowledges nothing meanwhile.
      const sleeping = onReplica.call('DEBUG', 'SLEEP', '8');
      await expect(store.commit({ key: 'k', expected: 'one', value: 'two' })).rejects.toThrow(/acknowledged by 0 of the 1 replicas REDIS_WAIT_REPLICAS asks within 1000 ms/);
      let lagging: Awaited<ReturnType<typeof ready>> | undefined;
      await waitFor(async () => {
        lagging = await ready(harness);
        return lagging.body.reasons.some((r) => r.startsWith('1 of 1 Redis replica behind'));
      });
      expect(lagging!.status).toBe(503);
      expect(lagging!.body.reasons).toContainEqual(expect.stringMatching(/^1 of 1 Redis replica behind: 127\.0\.0\.1:\d+ last acknowledged \d+ s ago, more than REDIS_MAX_REPLICA_LAG_SECONDS \(3 s\).*; commits waiting for it fail$/));
      expect(lagging!.body.reasons).toContainEqual(expect.stringMatching(/^the readiness commit was not acknowledged by the replicas in time \(acknowledged by 0 of the 1/));
      await sleeping;
      await waitFor(async () => (await ready(harness)).status === 200, 30_000);
      await store.close();
    } finally {
      onMaster.disconnect();
      onReplica.disconnect();
      await replica.stop();
      await master.stop();
    }
  }, 60_000);

  it('is not ready on a Cluster node given to this (non-cluster) client, with the one reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'me-cluster-'));
    const node = await startRedis(['--cluster-enabled', 'yes', '--dir', dir, '--cluster-config-file', 'nodes.conf']);
    try {
      // The node serves every slot, as a one-node cluster does: nothing redirects, yet Cluster it is.
      const nodeAdmin = new Redis(node.url);
      await nodeAdmin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
      await waitFor(async () => /cluster_state:ok/.test(String(await nodeAdmin.call('CLUSTER', 'INFO'))));
      nodeAdmin.disconnect();
      const harness = await proxyOn(node.url);
      const { status, body } = await ready(harness);
      expect(status).toBe(503);
      expect(body.checks.store.cluster).toBe('yes');
      expect(body.reasons).toEqual([
        "Redis is a Cluster node reached as a single server: commands for keys in slots it does not serve are redirected (MOVED), which a single-server client cannot follow; give the Cluster's nodes in REDIS_CLUSTER_NODES instead of REDIS_URL",
      ]);
    } finally {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Waits until `check` holds (generous deadline; no timing assertion). */
async function waitFor(check: () => Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
