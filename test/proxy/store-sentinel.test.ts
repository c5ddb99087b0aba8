/**
 * Redis through Sentinel, configured as an operator does (`redisSentinel`, from REDIS_SENTINELS and
 * REDIS_MASTER_NAME): real redis-server processes on loopback (a master, a replica, three Sentinels), the
 * sandbox, and payments before, across and after the master is killed and the Sentinels fail over.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { READY_PATH } from '../../src/proxy/routes/ready.js';
import { freePort, sandboxProvider, startHarness, startRedis, type Harness, type TestRedis } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds (generous deadline; no timing assertion). */
async function waitFor<T>(check: () => Promise<T | false | null | undefined>, what: string, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what}: not in time`);
    await sleep(100);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'me-sentinel-'));
/** The master's name, this run's own: a Sentinel left over from another run can never answer for it. */
const NAME = `me-${process.pid}-${Date.now().toString(36)}`;
const run = Date.now().toString(36).toUpperCase();
/** Longer than this file ever runs. */
const SENTINEL_LIFETIME_S = 600;
let master: TestRedis;
let replica: TestRedis;
const sentinels: { port: number; process: ChildProcess }[] = [];

/** `redis-server <conf> --sentinel` watching `master` as `name`, quorum 2, down after 1 s. */
async function startSentinel(masterPort: number, name = NAME): Promise<{ port: number; process: ChildProcess }> {
  const port = await freePort();
  const conf = join(dir, `sentinel-${port}.conf`);
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  // Bounded by `timeout`: a Sentinel outliving a killed test run would turn whatever server later listens on
  // its old master's port (another test's) into a replica of its own, and wipe it.
  const child = spawn('timeout', ['-s', 'KILL', String(SENTINEL_LIFETIME_S), 'redis-server', conf, '--sentinel'], { stdio: 'ignore' });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await waitFor(async () => {
      if (probe.status !== 'ready') await probe.connect().catch(() => undefined);
      return (await probe.ping()) === 'PONG';
    }, 'a Sentinel answers', 15_000);
  } finally {
    probe.disconnect();
  }
  return { port, process: child };
}

beforeAll(async () => {
  master = await startRedis();
  replica = await startRedis(['--replicaof', '127.0.0.1', String(master.port)]);
  for (let i = 0; i < 3; i++) sentinels.push(await startSentinel(master.port));
});
/** Every redis-server a test started besides the suite's own, stopped at the end. */
const extra: TestRedis[] = [];
afterAll(async () => {
  // SIGTERM: `timeout` passes it on to the Sentinel, and exits with it.
  await Promise.all(extra.map((r) => r.stop()));
  await Promise.all(sentinels.map((s) => new Promise((resolve) => (s.process.exitCode !== null || s.process.signalCode !== null ? resolve(null) : (s.process.once('exit', resolve), s.process.kill('SIGTERM'))))));
  await replica?.stop();
  await master?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Redis through Sentinel', () => {
  it('is configured by REDIS_SENTINELS and REDIS_MASTER_NAME, each problem under its variable', () => {
    const base = { PROVIDER_ENV: 'sandbox', PROXY_TOKEN_SECRET: 'a-secret-of-forty-characters-0123456789AB' };
    expect(configFromEnv({ ...base, REDIS_SENTINELS: '10.0.0.5:26379, [::1]:26380', REDIS_MASTER_NAME: 'mymaster', REDIS_PASSWORD: 'pw' }).redisSentinel).toEqual({
      sentinels: [{ host: '10.0.0.5', port: 26379 }, { host: '::1', port: 26380 }],
      name: 'mymaster',
      password: 'pw',
    });
    expect(() => configFromEnv({ ...base, REDIS_SENTINELS: '10.0.0.5', REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      expect.objectContaining({
        problems: [
          'REDIS_SENTINELS: give either REDIS_URL or REDIS_SENTINELS, not both',
          'REDIS_SENTINELS: "10.0.0.5" is not host:port (for example 10.0.0.5:26379,10.0.0.6:26379)',
          "REDIS_MASTER_NAME: is required with REDIS_SENTINELS (the master's name in the Sentinels' configuration)",
        ],
      }),
    );
    expect(() => configFromEnv({ ...base, REDIS_MASTER_NAME: 'mymaster' })).toThrow(expect.objectContaining({ problems: ['REDIS_MASTER_NAME: applies only with REDIS_SENTINELS'] }));
  });

  it('carries payments across a failover: the master killed, the replica promoted, nothing lost or charged twice', async () => {
    const completions = new Map<string, number>();
    const proxy: Harness = await startHarness({
      // 3 s for the sandbox's approving number: payments sent before the kill complete during the failover.
      sandbox: { timeScale: 1 },
      config: {
        redisSentinel: { sentinels: sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })), name: NAME },
        redisPrefix: `sentinel-${run}:`,
        relay: { minIntervalMs: 100, maxIntervalMs: 500, sweepIntervalMs: 500 },
        hooks: {
          onPaymentUpdate: (u) => {
            if (u.snapshot.status === 'COMPLETED') completions.set(u.snapshot.orderReference, (completions.get(u.snapshot.orderReference) ?? 0) + 1);
          },
        },
      },
    });
    try {
      await proxy.proxy.ready();
      expect(proxy.logs.entries().find((e) => String(e.msg).startsWith('store checked'))).toMatchObject({ store: { replication: expect.stringMatching(/^master, 1 replica \(behind by \d+ bytes/) } });
      /** Pays an order, asking again while the store answers 503 (a failover under way): the customer's retry. */
      const pay = async (order: string) => {
        const token = await proxy.mintPayment({ referenceNo: order });
        const res = await waitFor(async () => {
          const r = await proxy.post('/payments', { msisdn: '233240000001' }, { token });
          if (r.status !== 202 && r.status !== 503) throw new Error(`${order}: ${r.status} ${r.text}`);
          return r.status === 202 && r;
        }, `${order} accepted`);
        return res.body.reference as string;
      };
      const completed = (order: string) => waitFor(async () => (await proxy.proxy.payments.get(order))?.status === 'COMPLETED', `${order} completed`);

      const before = [`SEN-A1-${run}`, `SEN-A2-${run}`];
      for (const order of before) await pay(order);
      await Promise.all(before.map(completed));
      const across = [`SEN-B1-${run}`, `SEN-B2-${run}`];
      for (const order of across) await pay(order);
      // Replication is asynchronous: the test waits until the replica has every write, so that what it
      // proves is the client's failover (what a lagging replica costs is docs/operations.md's).
      const admin = new Redis(master.url);
      expect(await admin.call('WAIT', '1', '10000')).toBe(1);
      admin.disconnect();
      master.process.kill('SIGKILL');

      const sentinel = new Redis({ host: '127.0.0.1', port: sentinels[0]!.port });
      await waitFor(async () => {
        const [, port] = (await sentinel.call('SENTINEL', 'get-master-addr-by-name', NAME)) as [string, string];
        return Number(port) === replica.port;
      }, 'the Sentinels promote the replica');
      sentinel.disconnect();

      const after = [`SEN-C1-${run}`, `SEN-C2-${run}`];
      for (const order of after) await pay(order);
      const all = [...before, ...across, ...after];
      await Promise.all(all.map(completed));
      expect((await proxy.get(READY_PATH)).body.checks.store).toMatchObject({ ok: true, writable: true, replication: 'master, no replicas' });
      // Each order charged once at the provider, and its completion reported.
      const sent = [...proxy.sandbox.app.sandbox.payments.values()].map((p) => p.referenceNo).sort();
      expect(sent).toEqual(all.map((o) => `${o}-1`).sort());
      await waitFor(async () => all.every((o) => completions.has(o)), 'every completion reported');
    } finally {
      await proxy.close();
    }
  }, 180_000);
});

describe('Redis through Sentinel where the mode needs durability', () => {
  it('is ready with an append-only file on every write and commits a replica acknowledged, and still ready after a failover, with nothing moved back', async () => {
    const name = `${NAME}-durable`;
    const durable = ['--appendonly', 'yes', '--appendfsync', 'always'];
    const primary = await startRedis(durable);
    extra.push(primary);
    // Two replicas: after the master is lost, the promoted one still has one to acknowledge its commits.
    for (let i = 0; i < 2; i++) extra.push(await startRedis([...durable, '--replicaof', '127.0.0.1', String(primary.port)]));
    const admin = new Redis(primary.url);
    await waitFor(async () => (await admin.info('replication')).match(/state=online/g)?.length === 2, 'both replicas in step');
    admin.disconnect();
    const watching: { port: number; process: ChildProcess }[] = [];
    for (let i = 0; i < 3; i++) watching.push(await startSentinel(primary.port, name));
    sentinels.push(...watching);

    const proxy: Harness = await startHarness({
      provider: (sandbox) => ({ ...sandboxProvider(sandbox), statusReference: 'referenceId' as const }),
      config: {
        redisSentinel: { sentinels: watching.map((s) => ({ host: '127.0.0.1', port: s.port })), name },
        redisPrefix: `sentinel-durable-${run}:`,
        redisReplicas: { acknowledge: 1 },
      },
    });
    try {
      await proxy.proxy.ready();
      const before = await proxy.get(READY_PATH);
      expect(before.status, JSON.stringify(before.body.reasons)).toBe(200);
      expect(before.body.checks.store).toMatchObject({ needsDurability: true, persistence: 'append-only file, appendfsync always', replication: expect.stringMatching(/^master, 2 replicas/) });

      primary.process.kill('SIGKILL');
      const sentinel = new Redis({ host: '127.0.0.1', port: watching[0]!.port });
      await waitFor(async () => {
        const [, port] = (await sentinel.call('SENTINEL', 'get-master-addr-by-name', name)) as [string, string];
        return Number(port) !== primary.port;
      }, 'the Sentinels promote a replica');
      sentinel.disconnect();

      let last = '';
      const after = await waitFor(async () => {
        const res = await proxy.get(READY_PATH);
        last = JSON.stringify(res.body);
        return res.status === 200 && /^master, 1 replica/.test(res.body.checks.store.replication) && res;
      }, 'ready on the promoted master, with the other replica acknowledging', 120_000).catch((err: Error) => {
        throw new Error(`${err.message}; last: ${last}`);
      });
      expect(after.body.checks.store.needsDurability).toBe(true);
      // The proxy looked at the promoted master's history (the marker names its run_id)...
      const asked = new Redis({ host: '127.0.0.1', port: watching[1]!.port });
      const port = Number(((await asked.call('SENTINEL', 'get-master-addr-by-name', name)) as string[])[1]);
      asked.disconnect();
      const promoted = new Redis({ host: '127.0.0.1', port });
      const runId = /run_id:(\w+)/.exec(await promoted.info('server'))![1];
      await waitFor(async () => JSON.parse((await promoted.get(`sentinel-durable-${run}:store:history`)) ?? '{}').runId === runId, 'a look at the promoted master');
      promoted.disconnect();
      // Every commit waited for a replica, so the promoted one holds them: the history did not move back.
      expect(proxy.logs.entries().filter((e) => String(e.msg).startsWith("the store's history moved back"))).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 180_000);
});
