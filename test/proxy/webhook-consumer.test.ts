import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { ConfigError, resolveConfig } from '../../src/proxy/config.js';
import { webhookConsumer } from '../../src/proxy/notify/webhook-consumer.js';
import type { OutboxMessage } from '../../src/proxy/notify/outbox.js';
import { TEST_SECRET } from './helpers.js';
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
