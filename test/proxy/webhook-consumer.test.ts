import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { ConfigError, resolveConfig } from '../../src/proxy/config.js';
import { webhookConsumer } from '../../src/proxy/notify/webhook-consumer.js';
import type { OutboxMessage } from '../../src/proxy/notify/outbox.js';
import { SERVER_PATHS } from '../../src/protocol/index.js';
import { serveSuite, SERVER_KEY, SHOP } from '../cli/serve-harness.js';
import { startRedis, TEST_SECRET, type TestRedis } from './helpers.js';
import { call, journeyAddress, journeyNumber, runTraffic, startRollingFleet } from './rolling-fleet.js';
import { eventually } from './sse-client.js';
import { startReceiver, type TestReceiver } from './webhook-receiver.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

const message: OutboxMessage = {
  id: 'payment:ROT-1-1:COMPLETED',
  kind: 'payment',
  subject: 'payment:ROT-1-1',
  createdAt: Date.now(),
  payload: {
    idempotencyKey: 'payment:ROT-1-1:COMPLETED',
    previous: 'PENDING',
    final: true,
    snapshot: { reference: 'ROT-1-1', orderReference: 'ROT-1', status: 'COMPLETED', amount: 12.5 },
  },
};

let receiver: TestReceiver | undefined;
afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

describe('webhook signatures while a secret is rotated', () => {
  it('signs with every secret of WEBHOOK_SECRET, so the standardwebhooks library verifies with the old one and with the new one', async () => {
    receiver = await startReceiver();
    const [next, old, stranger] = [secret(), secret(), secret()];
    const settings = resolveConfig(configFromEnv({ PROXY_TOKEN_SECRET: TEST_SECRET, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: `${next}, ${old}` })).webhooks!;
    await webhookConsumer(settings, Date.now).deliver(message);

    const [got] = receiver.received;
    const headers = got!.headers as Record<string, string>;
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    for (const key of [old, next]) {
      expect(new Webhook(key).verify(got!.body, headers)).toMatchObject({ type: 'payment.completed', data: { orderReference: 'ROT-1' } });
    }
    expect(() => new Webhook(stranger).verify(got!.body, headers)).toThrow();
    expect(() => new Webhook(old).verify(got!.body.replace('12.5', '0.01'), headers)).toThrow();
  });

  it('signs once with one secret, as before', async () => {
    receiver = await startReceiver();
    const only = secret();
    await webhookConsumer(resolveConfig(configFromEnv({ PROXY_TOKEN_SECRET: TEST_SECRET, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: only })).webhooks!, Date.now).deliver(message);
    const headers = receiver.received[0]!.headers as Record<string, string>;
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(only).verify(receiver.received[0]!.body, headers)).toBeTruthy();
  });

  it('refuses a list with one bad secret, or more than four, naming WEBHOOK_SECRET and quoting none', () => {
    const problemsOf = (value: string): string[] => {
      try {
        configFromEnv({ PROXY_TOKEN_SECRET: TEST_SECRET, WEBHOOK_URL: 'https://shop.example/w', WEBHOOK_SECRET: value });
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    const good = secret();
    expect(problemsOf(`${good} whsec_short`)).toEqual([expect.stringMatching(/^WEBHOOK_SECRET: must be whsec_ followed by the base64 of 24 to 64 random bytes/)]);
    expect(problemsOf(Array.from({ length: 5 }, secret).join(' '))).toEqual(['WEBHOOK_SECRET: takes at most 4 secrets at once (the new one first, then those being retired)']);
    expect(problemsOf(`${good} whsec_short`).join()).not.toContain(good);
  });
});

describe('a rotation of WEBHOOK_SECRET while payments complete', () => {
  const suite = serveSuite();
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  it('loses and gets refused no webhook: two instances restarted one at a time to "<new> <old>", the receiver moved to the new secret, then to "<new>"', async () => {
    redis = await startRedis();
    receiver = await startReceiver();
    const [old, next] = [secret(), secret()];
    // The merchant's receiver checks with one secret at a time, as the guide's receivers do.
    let checking = old;
    const checkedWith = new Map<string, number>();
    receiver.answer = ({ body, headers }) => {
      try {
        new Webhook(checking).verify(body, headers as Record<string, string>);
      } catch {
        return 400;
      }
      checkedWith.set(checking, (checkedWith.get(checking) ?? 0) + 1);
      return 204;
    };
    const envOf = (secrets: string) => ({ ...suite.env(), REDIS_URL: redis!.url, TRUST_PROXY: 'loopback', WEBHOOK_URL: receiver!.url, WEBHOOK_SECRET: secrets });
    const fleet = await startRollingFleet(suite, [envOf(old), envOf(old)]);
    const server = { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' };
    const completed: string[] = [];
    const journey = async (n: number) => {
      const page = { 'content-type': 'application/json', origin: SHOP, 'x-forwarded-for': journeyAddress(n) };
      const { token } = await call(`${fleet.base}${SERVER_PATHS.paymentToken}`, { method: 'POST', headers: server, body: JSON.stringify({ amount: 5, referenceNo: `WH-${n}`, narration: 'Order' }), expect: 201 });
      const auth = { ...page, authorization: `Bearer ${String(token)}` };
      const paid = await call(`${fleet.base}/payments`, { method: 'POST', headers: auth, body: JSON.stringify({ msisdn: journeyNumber(n) }), expect: 202 });
      for (;;) {
        const seen = await call(`${fleet.base}/payments/${String(paid.reference)}`, { headers: auth, expect: 200 });
        if (seen.status === 'COMPLETED') return void completed.push(String(paid.reference));
        if (seen.status !== 'PENDING') throw new Error(`payment ${String(paid.reference)} ended ${String(seen.status)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    try {
      const traffic = runTraffic(journey, 2);
      await traffic.more(3);
      for (const index of [0, 1]) {
        await fleet.restart(index, envOf(`${next} ${old}`));
        await traffic.more(3);
      }
      checking = next;
      await traffic.more(3);
      for (const index of [0, 1]) {
        await fleet.restart(index, envOf(next));
        await traffic.more(3);
      }
      await traffic.stop();
      expect(traffic.failures).toEqual([]);

      // Every state change of every payment reaches the receiver, accepted, and none was ever refused.
      const delivered = () => new Set(receiver!.received.filter((r) => r.status === 204).map((r) => r.id));
      const expected = completed.flatMap((reference) => [`payment:${reference}:PENDING`, `payment:${reference}:COMPLETED`]);
      await eventually(() => (expected.every((id) => delivered().has(id)) ? true : undefined), 120_000, 100);
      expect(receiver.received.filter((r) => r.status !== 204)).toEqual([]);
      expect(completed.length).toBeGreaterThanOrEqual(15);
      expect(checkedWith.get(old)).toBeGreaterThan(0);
      expect(checkedWith.get(next)).toBeGreaterThan(0);
    } finally {
      await fleet.close();
    }
  }, 600_000);
});
