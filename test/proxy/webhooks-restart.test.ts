import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { sandboxProvider, startHarness, startRedis, type Harness, type TestRedis } from './helpers.js';
import { eventually } from './sse-client.js';
import { startReceiver, TEST_WEBHOOK_SECRET, type TestReceiver } from './webhook-receiver.js';

const relay = { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, outboxBackoffMs: 50, outboxMaxBackoffMs: 200, sweepIntervalMs: 200 };

let redis: TestRedis;
let sandbox: StartedSandbox;
let receiver: TestReceiver;
beforeAll(async () => {
  redis = await startRedis();
  sandbox = await startSandbox({ timeScale: 0.02 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.stop();
  await sandbox?.close();
  await redis?.stop();
});

/** A proxy instance on the shared sandbox and Redis, sending webhooks to the shared receiver. */
const proxyOnRedis = (): Promise<Harness> =>
  startHarness({
    provider: () => sandboxProvider(sandbox),
    config: { relay, redisUrl: redis.url, webhooks: { url: receiver.url, secret: TEST_WEBHOOK_SECRET } },
  });

describe('signed webhooks across a restart', () => {
  it('a proxy closed mid-retry: a new instance on the same Redis delivers the webhook, with the same webhook-id', async () => {
    receiver.answer = () => 500;
    const a = await proxyOnRedis();
    const token = await a.mintPayment();
    const { reference } = (await a.post('/payments', { msisdn: '233240000001' }, { token })).body as { reference: string };
    const id = `payment:${reference}:COMPLETED`;
    await eventually(async () => {
      const found = (await a.proxy.webhooks.list({ state: 'pending' })).find((d) => d.id === id);
      return found && found.attempts >= 2 ? found : undefined;
    });
    await a.close();
    const triesBeforeRestart = receiver.received.filter((got) => got.id === id).length;

    receiver.answer = () => 200;
    const b = await proxyOnRedis();
    try {
      await eventually(() => receiver.received.find((got) => got.id === id && got.status === 200), 15_000);
      const tries = receiver.received.filter((got) => got.id === id);
      expect(tries.length).toBeGreaterThan(triesBeforeRestart);
      expect(tries.map((t) => t.status).slice(0, triesBeforeRestart).every((s) => s === 500)).toBe(true);
      expect(new Set(tries.map((t) => t.headers['webhook-id']))).toEqual(new Set([id]));
      // The receiver answered 200 before the proxy read that answer and recorded the delivery: wait for the record.
      await eventually(async () => ((await b.proxy.webhooks.list({ state: 'delivered' })).some((d) => d.id === id) ? true : undefined));
    } finally {
      await b.close();
    }
  });
});
