/**
 * Redis Cluster, configured as an operator does (`redisCluster`, from REDIS_CLUSTER_NODES): every key of the
 * proxy's under one hash tag, so each commit is one slot's script. The mapping is checked on the commits real
 * payments make; then a real three-node Cluster (redis-server --cluster-enabled yes, `redis-cli --cluster
 * create`) carries payments and a checkout to completion with their webhooks, and a plain client on one of
 * its nodes is not ready, with its reason.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { Cluster, Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { resolveConfig } from '../../src/proxy/config.js';
import { ORDER_KEYS } from '../../src/proxy/order/keys.js';
import { READY_PATH } from '../../src/proxy/routes/ready.js';
import { MemoryStore, RedisStore } from '../../src/proxy/store/index.js';
import { clusterPrefix } from '../../src/proxy/store/redis-cluster.js';
import { shardIndex, shardTags } from '../../src/proxy/store/store-shards.js';
import type { CommitWrite } from '../../src/proxy/store/types.js';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { freePort, startHarness, startRedis, type Harness, type TestRedis } from './helpers.js';
import { eventually, openStream } from './sse-client.js';
import { startReceiver, TEST_WEBHOOK_SECRET, type TestReceiver } from './webhook-receiver.js';

/** The hash slot of a key, as ioredis computes it (its `cluster-key-slot`, which ships without types). */
const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;
const run = Date.now().toString(36).toUpperCase();
const relay = { minIntervalMs: 20, maxIntervalMs: 100, sweepIntervalMs: 200, deadlineMs: 60_000 };

/** Every key one commit names: the record, its conditions, its side writes. */
const keysOf = (write: CommitWrite): string[] => [write.key, ...(write.when ?? []).map((c) => c.key), ...(write.also ?? []).map((s) => s.key)];

/** A memory store that keeps every commit it is asked for. */
class RecordingStore extends MemoryStore {
  readonly commits: CommitWrite[] = [];
  override commit(write: CommitWrite): Promise<boolean> {
    this.commits.push(write);
    return super.commit(write);
  }
}

/**
 * Pays and checks out through `h`: an approved payment, one refused (insufficient funds) and paid on a second
 * try, one the customer cancels and pays again, and a checkout paid on the hosted page. Resolves the webhook
 * ids each journey ends with.
 */
async function journeys(h: Harness, tag: string): Promise<{ orders: string[]; finalIds: string[] }> {
  const pay = async (order: string, msisdn: string, maxAttempts = 3) => {
    const token = await h.mintPayment({ referenceNo: order, maxAttempts });
    return { token, res: await h.post('/payments', { msisdn }, { token }) };
  };
  const completed = (order: string) => eventually(async () => ((await h.proxy.payments.get(order))?.status === 'COMPLETED' ? true : undefined), 60_000);

  const approved = `CL-OK-${tag}`;
  expect((await pay(approved, '233240000001')).res.status).toBe(202);

  const refused = `CL-FUNDS-${tag}`;
  const first = await pay(refused, '0240000002');
  expect(first.res.status).toBe(402);
  expect(first.res.body).toMatchObject({ error: 'INSUFFICIENT_FUNDS', details: { reference: `${refused}-1` } });
  const retried = await h.post('/payments', { msisdn: '0240000001' }, { token: first.token });
  expect(retried.status).toBe(202);
  expect(retried.body).toMatchObject({ reference: `${refused}-1`, attempt: 2 });

  const cancelled = `CL-CANCEL-${tag}`;
  const declined = await pay(cancelled, '233200000003');
  expect(declined.res.status).toBe(202);
  await eventually(async () => ((await h.proxy.payments.get(cancelled))?.status === 'CANCELLED' ? true : undefined), 60_000);
  const again = await h.post('/payments', { msisdn: '233240000001' }, { token: declined.token });
  expect(again.status).toBe(202);
  expect(again.body.reference).toBe(`${cancelled}-2`);

  const checkoutRef = `CL-CO-${tag}`;
  const checkoutToken = await h.mintCheckout({ reference: checkoutRef });
  const { checkoutId } = (await h.post('/checkouts', {}, { token: checkoutToken })).body as { checkoutId: string };
  expect(checkoutId).toEqual(expect.any(String));
  // Watched, then paid on the hosted page: the proxy reads it to its end.
  expect((await h.get(`/checkouts/${checkoutId}`, { token: checkoutToken })).status).toBe(200);
  const paid = await fetch(`${h.sandbox.url}/checkout/${checkoutId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'msisdn=233240000001',
    redirect: 'manual',
  });
  expect(paid.status).toBe(303);

  const orders = [approved, refused, cancelled];
  await Promise.all(orders.map(completed));
  return {
    orders,
    finalIds: [`payment:${approved}-1:COMPLETED`, `payment:${refused}-1:COMPLETED`, `payment:${cancelled}-2:COMPLETED`, `checkout:${checkoutId}:completed`],
  };
}

/** A proxy on the Cluster `env` names (as `serve` reads it), its webhooks to `receiver`, counting each order's completions told. */
async function startCounting(env: Record<string, string>, prefix: string, receiver: TestReceiver): Promise<{ h: Harness; completions: Map<string, number> }> {
  const completions = new Map<string, number>();
  const h = await startHarness({
    sandbox: { timeScale: 0.02 },
    config: {
      redisCluster: configFromEnv(env).redisCluster!,
      redisPrefix: prefix,
      relay,
      webhooks: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
      hooks: {
        onPaymentUpdate: (u) => {
          if (u.snapshot.status === 'COMPLETED') completions.set(u.snapshot.orderReference, (completions.get(u.snapshot.orderReference) ?? 0) + 1);
        },
      },
    },
  });
  return { h, completions };
}

/** Waits until the receiver answered 200 for each id, and checks each signature. */
async function delivered(r: TestReceiver, ids: string[]): Promise<void> {
  for (const id of ids) {
    const got = await eventually(() => r.received.find((x) => x.id === id && x.status === 200), 60_000);
    expect(new Webhook(TEST_WEBHOOK_SECRET).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ data: { idempotencyKey: id, final: true } });
  }
}

describe('the keys on a Cluster', () => {
  it('puts the prefix in a hash tag, keeping one the operator wrote', () => {
    expect(clusterPrefix('me:')).toBe('{me:}');
    expect(clusterPrefix('shop-a:prod:')).toBe('{shop-a:prod:}');
    expect(clusterPrefix('{shop}:')).toBe('{shop}:');
    const slot = calculateSlot('{me:}ord:A');
    for (const key of [ORDER_KEYS.order('B'), ORDER_KEYS.epoch, ORDER_KEYS.recovering, ORDER_KEYS.pending, ORDER_KEYS.inFlight('233240000001'), 'outbox:pending', 'store:history']) {
      expect(calculateSlot(`{me:}${key}`)).toBe(slot);
    }
    // Without the tag, an order's own keys already fall in different slots: what a Cluster refuses in one script.
    expect(new Set([ORDER_KEYS.order('A'), ORDER_KEYS.pending, ORDER_KEYS.epoch].map((k) => calculateSlot(`me:${k}`))).size).toBeGreaterThan(1);
  });

  it('every key of every commit that payments, retries, a checkout and their webhooks make is in one slot', async () => {
    const store = new RecordingStore();
    const receiver = await startReceiver();
    const h = await startHarness({ sandbox: { timeScale: 0.02 }, config: { store, relay, webhooks: { url: receiver.url, secret: TEST_WEBHOOK_SECRET } } });
    try {
      const { finalIds } = await journeys(h, `MEM-${run}`);
      await delivered(receiver, finalIds);
      const orderCommits = store.commits.filter((w) => w.key.startsWith('ord:'));
      // Records, their outbox messages and indexes, conditioned on the epoch: many keys per commit.
      expect(orderCommits.length).toBeGreaterThan(10);
      expect(orderCommits.some((w) => (w.also ?? []).some((s) => s.key.startsWith('outbox:msg:')))).toBe(true);
      for (const write of store.commits) {
        const slots = new Set(keysOf(write).map((key) => calculateSlot(clusterPrefix('me:') + key)));
        expect(slots.size, keysOf(write).join(' ')).toBe(1);
      }
    } finally {
      await h.close();
      await receiver.stop();
    }
  }, 120_000);

  it('is configured by REDIS_CLUSTER_NODES and REDIS_PASSWORD, each problem under its variable', () => {
    const base = { PROVIDER_ENV: 'sandbox', PROXY_TOKEN_SECRET: 'a-secret-of-forty-characters-0123456789AB' };
    expect(configFromEnv({ ...base, REDIS_CLUSTER_NODES: '10.0.0.5:7000, [::1]:7001', REDIS_PASSWORD: 'pw' }).redisCluster).toEqual({
      nodes: [{ host: '10.0.0.5', port: 7000 }, { host: '::1', port: 7001 }],
      password: 'pw',
    });
    expect(() => configFromEnv({ ...base, REDIS_CLUSTER_NODES: '10.0.0.5', REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      expect.objectContaining({
        problems: ['REDIS_CLUSTER_NODES: give one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES', 'REDIS_CLUSTER_NODES: "10.0.0.5" is not host:port (for example 10.0.0.5:7000,10.0.0.6:7000)'],
      }),
    );
    expect(() => configFromEnv({ ...base, REDIS_CLUSTER_NODES: '10.0.0.5:7000', REDIS_WAIT_REPLICAS: '1' })).toThrow(
      expect.objectContaining({ problems: [expect.stringMatching(/^REDIS_WAIT_REPLICAS: not supported on a Redis Cluster/)] }),
    );
    expect(() => resolveConfig({ ...configFromEnv(base), redisCluster: { nodes: [] } })).toThrow(/must list at least one node/);
    // Shards: a whole number from 1 to 256, with the Cluster only.
    expect(configFromEnv({ ...base, REDIS_CLUSTER_NODES: '10.0.0.5:7000', REDIS_CLUSTER_SHARDS: '16' }).redisCluster).toEqual({ nodes: [{ host: '10.0.0.5', port: 7000 }], shards: 16 });
    for (const [shards, problem] of [
      ['0', /^REDIS_CLUSTER_SHARDS: /],
      ['257', /^REDIS_CLUSTER_SHARDS: /],
      ['many', /^REDIS_CLUSTER_SHARDS: /],
    ] as const) {
      expect(() => resolveConfig(configFromEnv({ ...base, REDIS_CLUSTER_NODES: '10.0.0.5:7000', REDIS_CLUSTER_SHARDS: shards }))).toThrow(expect.objectContaining({ problems: [expect.stringMatching(problem)] }));
    }
    expect(() => configFromEnv({ ...base, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_SHARDS: '4' })).toThrow(
      expect.objectContaining({ problems: ['REDIS_CLUSTER_SHARDS: applies only with REDIS_CLUSTER_NODES (one server keeps every key in one place)'] }),
    );
    // A store of one's own whose prefix is one hash tag cannot be split (REDIS_PREFIX allows no braces).
    expect(() => new RedisStore({ cluster: { nodes: [{ host: '127.0.0.1', port: 1 }] }, prefix: '{shop}:', shards: 4 })).toThrow(/a prefix with a hash tag \(\{shop\}:\) puts every key in one slot/);
    expect(() => new RedisStore({ url: 'redis://127.0.0.1:1', shards: 4 })).toThrow(/shards are for a Redis Cluster/);
  });

  it('fails a command, rather than holding it, while no node of the Cluster answers', async () => {
    const store = new RedisStore({ cluster: { nodes: [{ host: '127.0.0.1', port: await freePort() }] } });
    try {
      await expect(store.get('anything')).rejects.toThrow(/^store get failed: /);
      await expect(store.commit({ key: ORDER_KEYS.order('X'), expected: null, value: '{}' })).rejects.toThrow(/^store commit failed: /);
      expect(await store.ping()).toBe(false);
    } finally {
      await store.close();
    }
  }, 60_000);
});

const exec = promisify(execFile);
const nodes: TestRedis[] = [];

beforeAll(async () => {
  for (let i = 0; i < 3; i++) nodes.push(await startRedis(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '15000']));
  await exec('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes']);
  for (const node of nodes) {
    const admin = new Redis(node.url);
    try {
      await eventually(async () => (/cluster_state:ok/.test(String(await admin.call('CLUSTER', 'INFO'))) ? true : undefined), 30_000);
    } finally {
      admin.disconnect();
    }
  }
}, 60_000);
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
});

describe('a real three-node Redis Cluster', () => {
  it('carries payments (approved, refused and retried, cancelled and paid again) and a checkout to completion, webhooks delivered, each charged once', async () => {
    const receiver = await startReceiver();
    const prefix = `cluster-${run}:`;
    // As `serve` reads it: one node is enough, the client learns the others.
    const { h, completions } = await startCounting({ PROVIDER_ENV: 'sandbox', REDIS_CLUSTER_NODES: `127.0.0.1:${nodes[0]!.port}` }, prefix, receiver);
    try {
      await h.proxy.ready();
      const ready = await h.get(READY_PATH);
      expect(ready.status, JSON.stringify(ready.body.reasons)).toBe(200);
      expect(ready.body.checks.store).toMatchObject({ ok: true, writable: true, cluster: 'yes', replication: 'master, no replicas' });

      const { orders, finalIds } = await journeys(h, run);
      await delivered(receiver, finalIds);
      // One charge per completed try at the provider; each completion told once.
      const sent = [...h.sandbox.app.sandbox.payments.values()].map((p) => p.referenceNo).filter((r) => r.startsWith('CL-'));
      expect(sent.sort()).toEqual([`CL-CANCEL-${run}-1`, `CL-CANCEL-${run}-2`, `CL-FUNDS-${run}-1`, `CL-OK-${run}-1`].sort());
      await eventually(() => (orders.every((o) => completions.get(o) === 1) ? true : undefined), 30_000);

      // The records sit on one master, under the hash tag; the other masters hold none of the proxy's keys.
      const counts = await Promise.all(
        nodes.map(async (n) => {
          const admin = new Redis(n.url);
          try {
            return (await admin.keys(`{${prefix}}*`)).length;
          } finally {
            admin.disconnect();
          }
        }),
      );
      expect(counts.filter((c) => c > 0)).toHaveLength(1);
      // The store's history is the slot's master's: nothing moved back.
      expect(h.logs.entries().filter((e) => String(e.msg).startsWith("the store's history moved back"))).toEqual([]);
      expect(Math.max(...counts)).toBeGreaterThan(10);
      // The store sees its subscribers on every node (processes count each other through it).
      const store = new RedisStore({ cluster: { nodes: [{ host: '127.0.0.1', port: nodes[2]!.port }] }, prefix });
      try {
        expect(await store.subscribers('ord:presence')).toBeGreaterThanOrEqual(1);
        const clock = await store.time();
        expect(Math.abs(clock - Date.now())).toBeLessThan(60_000);
      } finally {
        await store.close();
      }
    } finally {
      await h.close();
      await receiver.stop();
    }
  }, 180_000);

  it('is not ready on a node of it reached through a plain (non-cluster) client, with the reason', async () => {
    const h = await startHarness({ config: { redisUrl: nodes[0]!.url, redisPrefix: `plain-${run}:` } });
    try {
      const { status, body } = await h.get(READY_PATH);
      expect(status).toBe(503);
      expect(body.checks.store.cluster).toBe('yes');
      expect(body.reasons).toContain(
        "Redis is a Cluster node reached as a single server: commands for keys in slots it does not serve are redirected (MOVED), which a single-server client cannot follow; give the Cluster's nodes in REDIS_CLUSTER_NODES instead of REDIS_URL",
      );
    } finally {
      await h.close();
    }
  }, 60_000);

  it('shares orders between two instances: a payment sent through one is watched to its end through the other, once', async () => {
    const prefix = `pair-${run}:`;
    const updates: string[] = [];
    const config = { redisCluster: { nodes: [{ host: '127.0.0.1', port: nodes[2]!.port }] }, redisPrefix: prefix, relay, hooks: { onPaymentUpdate: (u: PaymentUpdate) => void updates.push(`${u.snapshot.reference} ${u.snapshot.status}`) } };
    const a = await startHarness({ sandbox: { timeScale: 0.02 }, config });
    const b = await startHarness({ provider: () => a.proxy.config.provider as never, config });
    try {
      const token = await a.mintPayment({ referenceNo: `CL-PAIR-${run}` });
      const sent = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).post('/payments', { msisdn: '233240000001' }, { token })));
      expect(sent.map((r) => r.status)).toEqual(Array(10).fill(202));
      const reference = `CL-PAIR-${run}-1`;
      expect(new Set(sent.map((r) => r.body.reference))).toEqual(new Set([reference]));
      const stream = await openStream(`${b.baseUrl}/payments/${reference}/events`, token);
      await stream.ended;
      expect(stream.events.at(-1)!.data.status).toBe('COMPLETED');
      expect([...a.sandbox.app.sandbox.payments.values()].filter((p) => p.referenceNo === reference)).toHaveLength(1);
      await eventually(() => (updates.includes(`${reference} COMPLETED`) ? true : undefined), 60_000);
      expect(updates.filter((u) => u === `${reference} COMPLETED`)).toHaveLength(1);
    } finally {
      await b.close();
      await a.close();
    }
  }, 120_000);

  it('splits orders into shards spread over its masters (REDIS_CLUSTER_SHARDS): payments and a checkout completed, webhooks delivered, each charged once', async () => {
    const receiver = await startReceiver();
    const prefix = `shards-${run}:`;
    const env = { PROVIDER_ENV: 'sandbox', REDIS_CLUSTER_NODES: `127.0.0.1:${nodes[1]!.port}`, REDIS_CLUSTER_SHARDS: '12' };
    const { h, completions } = await startCounting(env, prefix, receiver);
    const admins = nodes.map((n) => new Redis(n.url));
    try {
      await h.proxy.ready();
      const ready = await h.get(READY_PATH);
      expect(ready.status, JSON.stringify(ready.body.reasons)).toBe(200);
      expect(ready.body.checks.store).toMatchObject({ ok: true, writable: true, cluster: 'yes' });

      const { orders, finalIds } = await journeys(h, `SH-${run}`);
      await delivered(receiver, finalIds);
      await eventually(() => (orders.every((o) => completions.get(o) === 1) ? true : undefined), 30_000);
      const sent = [...h.sandbox.app.sandbox.payments.values()].map((p) => p.referenceNo).filter((r) => r.includes(`-SH-${run}-`));
      expect(sent.sort()).toEqual([`CL-CANCEL-SH-${run}-1`, `CL-CANCEL-SH-${run}-2`, `CL-FUNDS-SH-${run}-1`, `CL-OK-SH-${run}-1`].sort());

      // The store is marked as split, with its number of shards, in the prefix's own slot.
      const cluster = new Cluster([{ host: '127.0.0.1', port: nodes[0]!.port }]);
      try {
        expect(await cluster.mget(`{${prefix}}store:format`, `{${prefix}}store:shards`)).toEqual(['3', '12']);
      } finally {
        cluster.disconnect();
      }
      // Each order's keys are under its shard's tag, and the shards' keys are on every master.
      const tags = shardTags(prefix, 12);
      for (const order of orders) {
        const key = `${tags[shardIndex(order, 12)]}ord:${order}`;
        const holders = await Promise.all(admins.map(async (a) => (await a.call('CLUSTER', 'COUNTKEYSINSLOT', String(calculateSlot(key)))) as number));
        expect(holders.some((n) => n > 0), key).toBe(true);
      }
      const perMaster = await Promise.all(admins.map(async (a) => (await a.keys(`{${prefix}*`)).filter((k) => !k.startsWith(`{${prefix}}`)).length));
      expect(perMaster.every((n) => n > 0), JSON.stringify(perMaster)).toBe(true);
      // An instance given another number of shards refuses the store, saying which number it has.
      const other = await startHarness({ config: { redisCluster: configFromEnv({ ...env, REDIS_CLUSTER_SHARDS: '4' }).redisCluster!, redisPrefix: prefix } });
      try {
        await expect(other.proxy.ready()).rejects.toThrow(/^the store splits its orders into 12 shards \(format 3\) and this instance is given 4: set REDIS_CLUSTER_SHARDS=12/);
      } finally {
        await other.close();
      }
    } finally {
      for (const a of admins) a.disconnect();
      await h.close();
      await receiver.stop();
    }
  }, 180_000);

  it("goes on with the other shards' orders while the master of some shards stalls, and with those once it answers", async () => {
    const prefix = `stall-${run}:`;
    const count = 12;
    const tags = shardTags(prefix, count);
    const cluster = new Cluster([{ host: '127.0.0.1', port: nodes[0]!.port }]);
    const masterOf = (key: string) => cluster.slots[calculateSlot(key)]![0]!;
    const h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: { redisCluster: { nodes: [{ host: '127.0.0.1', port: nodes[0]!.port }], shards: count }, redisPrefix: prefix, relay },
    });
    let stopped: TestRedis | undefined;
    try {
      await h.proxy.ready();
      await cluster.ping();
      // The master to stall keeps some shards but not the prefix's own slot (tokens, limits, the store's clock).
      const base = masterOf(`{${prefix}}x`);
      const stalled = nodes.find((n) => `127.0.0.1:${n.port}` !== base && tags.some((t) => masterOf(t) === `127.0.0.1:${n.port}`))!;
      const where = (ref: string) => masterOf(`${tags[shardIndex(ref, count)]}ord:${ref}`);
      const pick = (on: boolean) => {
        for (let n = 0; ; n++) if ((where(`ST-${run}-${n}`) === `127.0.0.1:${stalled.port}`) === on) return `ST-${run}-${n}`;
      };
      const [elsewhere, there] = [pick(false), pick(true)];
      const tokens = { elsewhere: await h.mintPayment({ referenceNo: elsewhere }), there: await h.mintPayment({ referenceNo: there }) };
      stalled.process.kill('SIGSTOP');
      stopped = stalled;
      // An order kept on another master is paid and read to its end meanwhile.
      expect((await h.post('/payments', { msisdn: '233240000001' }, { token: tokens.elsewhere })).status).toBe(202);
      await eventually(async () => ((await h.proxy.payments.get(elsewhere))?.status === 'COMPLETED' ? true : undefined), 20_000);
      // One kept on the stalled master fails closed; readiness stays, saying which shards do not answer.
      expect((await h.post('/payments', { msisdn: '233240000001' }, { token: tokens.there })).status).toBe(503);
      const ready = await h.get(READY_PATH);
      expect(ready.status, JSON.stringify(ready.body.reasons)).toBe(200);
      expect((ready.body.checks.store.notes as string[]).some((n) => /^shard \d+ of 12 .* does not answer/.test(n))).toBe(true);
      stalled.process.kill('SIGCONT');
      stopped = undefined;
      await eventually(async () => ((await h.post('/payments', { msisdn: '233240000001' }, { token: tokens.there })).status === 202 ? true : undefined), 30_000);
      await eventually(async () => ((await h.proxy.payments.get(there))?.status === 'COMPLETED' ? true : undefined), 30_000);
      for (const ref of [elsewhere, there]) expect([...h.sandbox.app.sandbox.payments.values()].filter((p) => p.referenceNo === `${ref}-1`)).toHaveLength(1);
    } finally {
      stopped?.process.kill('SIGCONT');
      cluster.disconnect();
      await h.close();
    }
  }, 120_000);

  // Last: it stops the Cluster.
  it('fails commands, rather than holding them, once every node of it stops answering', async () => {
    const store = new RedisStore({ cluster: { nodes: [{ host: '127.0.0.1', port: nodes[1]!.port }] }, prefix: `down-${run}:` });
    try {
      await store.set('k', 'v');
      expect(await store.get('k')).toBe('v');
      await Promise.all(nodes.map((n) => n.stop()));
      await expect(store.get('k')).rejects.toThrow(/^store get failed: /);
      await expect(store.get('k')).rejects.toThrow(/^store get failed: /);
      expect(await store.ping()).toBe(false);
    } finally {
      await store.close();
    }
  }, 120_000);
});
