import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { ConfigError, resolveConfig } from '../../src/proxy/config.js';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { startHarness, TEST_SECRET, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';
import { startReceiver, TEST_WEBHOOK_SECRET, type Received, type TestReceiver } from './webhook-receiver.js';

const relay = { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, outboxBackoffMs: 20, outboxMaxBackoffMs: 100 };
const COMPLETES = '233240000001';

let harness: Harness | undefined;
let receiver: TestReceiver | undefined;
afterEach(async () => {
  await harness?.close();
  await receiver?.stop();
  harness = receiver = undefined;
});

async function start(webhooks: Record<string, unknown> = {}, hooks: Record<string, unknown> = {}): Promise<{ h: Harness; r: TestReceiver }> {
  receiver = await startReceiver();
  harness = await startHarness({
    sandbox: { timeScale: 0.02 },
    config: { relay, webhooks: { url: receiver.url, secret: TEST_WEBHOOK_SECRET, ...webhooks }, hooks },
  });
  return { h: harness, r: receiver };
}

/** Pays an order with the number that completes; resolves to its attempt reference and the COMPLETED webhook-id. */
async function pay(h: Harness): Promise<{ reference: string; orderReference: string; completedId: string }> {
  const orderReference = `ORDER-${Math.random().toString(36).slice(2, 10)}`;
  const token = await h.mintPayment({ referenceNo: orderReference });
  const res = await h.post('/payments', { msisdn: COMPLETES }, { token });
  expect(res.status).toBe(202);
  const reference = res.body.reference as string;
  return { reference, orderReference, completedId: `payment:${reference}:COMPLETED` };
}

const of = (r: TestReceiver, id: string): Received[] => r.received.filter((got) => got.id === id);
const deliveredTo = (r: TestReceiver, id: string) => eventually(() => of(r, id).find((got) => got.status === 200), 15_000);

describe('signed webhooks', () => {
  it('POSTs every payment state change, signed so that the standardwebhooks verifier accepts it and refuses a tampered one', async () => {
    const { h, r } = await start();
    const { reference, orderReference, completedId } = await pay(h);
    const got = await deliveredTo(r, completedId);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    const verifier = new Webhook(TEST_WEBHOOK_SECRET);
    const headers = got.headers as Record<string, string>;
    const body = verifier.verify(got.body, headers) as Record<string, unknown>;
    expect(body).toMatchObject({
      type: 'payment.completed',
      timestamp: expect.stringMatching(/Z$/),
      data: {
        idempotencyKey: completedId,
        orderReference,
        previous: 'PENDING',
        final: true,
        snapshot: { reference, orderReference, status: 'COMPLETED', amount: 12.5 },
      },
    });
    // The first report was delivered too, as its own webhook.
    expect(JSON.parse((await deliveredTo(r, `payment:${reference}:PENDING`)).body).type).toBe('payment.pending');

    // A receiver can tell a forgery: another body, another signature, another id or a stale timestamp fail.
    const forged = got.body.replace('"amount":12.5', '"amount":0.01');
    expect(forged).not.toBe(got.body);
    expect(() => verifier.verify(forged, headers)).toThrow();
    expect(() => verifier.verify(got.body, { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` })).toThrow();
    expect(() => verifier.verify(got.body, { ...headers, 'webhook-id': `${completedId}x` })).toThrow();
    expect(() => verifier.verify(got.body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 3_600) })).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, headers)).toThrow();
  });

  it('POSTs checkout state changes too, as checkout.<status> with the order reference', async () => {
    const { h, r } = await start();
    const token = await h.mintCheckout({ reference: 'CO-webhook' });
    const { checkoutId } = (await h.post('/checkouts', {}, { token })).body as { checkoutId: string };
    const id = `checkout:${checkoutId}:completed`;
    // The session is read (and so reported) once watched; paying on the hosted page completes it.
    await eventually(() => of(r, `checkout:${checkoutId}:pending`)[0]);
    const paid = await fetch(`${h.sandbox.url}/checkout/${checkoutId}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'msisdn=233240000001',
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    const got = await deliveredTo(r, id);
    expect(new Webhook(TEST_WEBHOOK_SECRET).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: 'checkout.completed',
      data: { idempotencyKey: id, orderReference: 'CO-webhook', final: true, snapshot: { checkoutId, reference: 'CO-webhook', status: 'completed' } },
    });
  });

  it('keeps trying a receiver that is down (refused, then 500) with the same webhook-id, and delivers once it answers 2xx', async () => {
    const { h, r } = await start();
    await r.stop();
    const { completedId } = await pay(h);
    // Connection refused: the delivery waits, listed as pending with why.
    const pending = await eventually(async () => {
      const found = (await h.proxy.webhooks.list({ state: 'pending' })).find((d) => d.id === completedId);
      return found && found.attempts >= 3 ? found : undefined;
    });
    expect(pending.lastError).toMatch(/could not reach the receiver \(ECONNREFUSED\)/);

    let failures = 2;
    r.answer = (got) => (got.id === completedId && failures-- > 0 ? 500 : 200);
    await r.start();
    await deliveredTo(r, completedId);
    const tries = of(r, completedId);
    expect(tries.map((t) => t.status)).toEqual([500, 500, 200]);
    // Every try carried the same id and the same body (only webhook-timestamp and the signature are of the try).
    expect(new Set(tries.map((t) => t.headers['webhook-id']))).toEqual(new Set([completedId]));
    expect(new Set(tries.map((t) => t.body)).size).toBe(1);
    // The receiver answered 200 before the proxy read that answer and recorded the delivery: wait for the record.
    const delivered = await eventually(async () => (await h.proxy.webhooks.list({ state: 'delivered' })).find((d) => d.id === completedId));
    expect(delivered).toMatchObject({ state: 'delivered', nextAt: null, deliveredAt: expect.any(String) });
    expect(delivered.attempts).toBeGreaterThanOrEqual(pending.attempts + 3);
    expect(h.logs.entries().some((e) => e.msg === 'outbox delivery failed; will retry' && e.consumer === 'webhook')).toBe(true);
  });

  it('delivers at least once: a receiver that processed a webhook and then answered 500 gets the same webhook-id again, which is how it dedupes', async () => {
    const { h, r } = await start();
    const processed = new Set<string>();
    let effects = 0;
    r.answer = (got) => {
      // The receiver's own dedupe: an id it has already processed is acknowledged without acting again.
      if (!processed.has(got.id)) {
        processed.add(got.id);
        effects++;
        if (got.id.endsWith(':COMPLETED')) return 500; // processed, but the answer is lost
      }
      return 200;
    };
    const { completedId } = await pay(h);
    await deliveredTo(r, completedId);
    expect(of(r, completedId).map((t) => [t.id, t.status])).toEqual([
      [completedId, 500],
      [completedId, 200],
    ]);
    expect(effects).toBe(2); // PENDING and COMPLETED, each acted on once
  });

  it('dead-letters a webhook still refused past its age limit, lists it, and replays it with the same webhook-id', async () => {
    const { h, r } = await start({ maxAgeMs: 300 });
    r.answer = () => 500;
    const { completedId } = await pay(h);
    const dead = await eventually(async () => (await h.proxy.webhooks.list({ state: 'dead' })).find((d) => d.id === completedId));
    expect(dead).toMatchObject({ type: 'payment.completed', state: 'dead', nextAt: null, lastError: 'receiver answered 500' });
    expect(dead.deadAt).toBeDefined();
    const triesBefore = of(r, completedId).length;
    expect(h.logs.entries().some((e) => e.msg === 'outbox message given up on; in the dead-letter set' && e.consumer === 'webhook')).toBe(true);

    r.answer = () => 200;
    expect(await h.proxy.webhooks.replay(completedId)).toBe(true);
    await deliveredTo(r, completedId);
    expect(of(r, completedId).length).toBe(triesBefore + 1);
    // The receiver's 200 comes before the outbox writes the delivery down: wait for the record.
    const delivered = await eventually(async () => (await h.proxy.webhooks.list({ state: 'delivered' })).find((d) => d.id === completedId));
    expect((await h.proxy.webhooks.list({ state: 'dead' })).map((d) => d.id)).not.toContain(completedId);
    expect(delivered).toMatchObject({ state: 'delivered', replayedAt: expect.any(String), deliveredAt: expect.any(String) });
    expect((await h.proxy.webhooks.list()).map((d) => d.id)).toContain(completedId);
    // A delivered one is replayed too (the receiver dedupes); an unknown id is not.
    expect(await h.proxy.webhooks.replay(completedId)).toBe(true);
    await eventually(() => (of(r, completedId).filter((t) => t.status === 200).length === 2 ? true : undefined));
    expect(await h.proxy.webhooks.replay('payment:NOPE-1:COMPLETED')).toBe(false);
  });

  it('never holds up the in-process hooks: a receiver that hangs leaves every hook on time', async () => {
    const updates: { at: number; update: PaymentUpdate }[] = [];
    const { h, r } = await start({ timeoutMs: 1_500 }, { onPaymentUpdate: (update: PaymentUpdate) => void updates.push({ at: Date.now(), update }) });
    r.answer = () => 'hang';
    const paid: { started: number; completedId: string }[] = [];
    for (let i = 0; i < 3; i++) paid.push({ started: Date.now(), ...(await pay(h)) });
    for (const { started, completedId } of paid) {
      const hook = await eventually(() => updates.find((u) => u.update.idempotencyKey === completedId));
      // Three orders, six webhooks each hanging 1.5 s: one queue for both would have made these wait seconds.
      expect(hook.at - started).toBeLessThan(1_000);
    }
    const waiting = await eventually(async () => (await h.proxy.webhooks.list({ state: 'pending' })).find((d) => d.lastError === 'no answer within 1500 ms'), 8_000);
    expect(waiting.attempts).toBeGreaterThanOrEqual(1);
  });
});

describe('webhook configuration', () => {
  const base = { PROVIDER_ENV: 'sandbox', PROXY_TOKEN_SECRET: TEST_SECRET };

  it('reads WEBHOOK_URL and WEBHOOK_SECRET, both or neither', () => {
    const config = configFromEnv({ ...base, WEBHOOK_URL: 'https://shop.example/webhooks', WEBHOOK_SECRET: TEST_WEBHOOK_SECRET });
    expect(resolveConfig(config).webhooks).toEqual({ url: 'https://shop.example/webhooks', secret: TEST_WEBHOOK_SECRET, timeoutMs: 10_000, maxAgeMs: 3 * 24 * 3_600_000 });
    expect(configFromEnv(base).webhooks).toBeUndefined();
    expect(() => configFromEnv({ ...base, WEBHOOK_URL: 'https://shop.example/webhooks' })).toThrow(/WEBHOOK_SECRET: is required when WEBHOOK_URL is set/);
    expect(() => configFromEnv({ ...base, WEBHOOK_SECRET: TEST_WEBHOOK_SECRET })).toThrow(/WEBHOOK_URL: is required when WEBHOOK_SECRET is set/);
  });

  it('reads the age limit from WEBHOOK_MAX_AGE_MS, held to a day in production and named when wrong', () => {
    const env = { ...base, WEBHOOK_URL: 'https://shop.example/webhooks', WEBHOOK_SECRET: TEST_WEBHOOK_SECRET };
    expect(resolveConfig(configFromEnv({ ...env, WEBHOOK_MAX_AGE_MS: '172800000' })).webhooks?.maxAgeMs).toBe(172_800_000);
    expect(problemsOf({ ...env, WEBHOOK_MAX_AGE_MS: '2 days' })).toEqual([expect.stringMatching(/^WEBHOOK_MAX_AGE_MS: /)]);
    expect(problemsOf({ WEBHOOK_MAX_AGE_MS: '172800000' })).toEqual(['WEBHOOK_MAX_AGE_MS: is used only with WEBHOOK_URL and WEBHOOK_SECRET']);
  });

  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      resolveConfig(configFromEnv({ ...base, ...env }));
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };

  it('refuses a secret that is not whsec_ and 24 to 64 bytes of base64, without quoting it', () => {
    for (const secret of ['not-a-secret', 'whsec_', `whsec_${Buffer.alloc(16, 1).toString('base64')}`, `whsec_${Buffer.alloc(65, 1).toString('base64')}`, 'whsec_!!!!']) {
      const problems = problemsOf({ WEBHOOK_URL: 'https://shop.example/w', WEBHOOK_SECRET: secret });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^WEBHOOK_SECRET: must be whsec_ followed by the base64 of 24 to 64 random bytes/);
      if (secret.length > 10) expect(problems[0]).not.toContain(secret);
    }
  });

  it('takes http only in the sandbox or to a loopback host', () => {
    const production = {
      PROVIDER_ENV: 'production',
      MESSAGING_BASE_URL: 'https://api.example',
      PAYMENT_BASE_URL: 'https://pay.example/gw',
      MESSAGING_API_KEY: 'k',
      MESSAGING_API_SECRET: 's',
      PAYMENT_USERNAME: 'u',
      PAYMENT_PASSWORD: 'p',
      CHECKOUT_API_KEY: 'c',
      PAYEE_NAME: 'Shop',
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    };
    expect(problemsOf({ ...production, WEBHOOK_URL: 'http://shop.example/w' })).toEqual([
      'WEBHOOK_URL: must be https when PROVIDER_ENV is production (http only in the sandbox or to a loopback host)',
    ]);
    expect(problemsOf({ ...production, WEBHOOK_URL: 'http://127.0.0.1:9000/w' })).toEqual([]);
    expect(problemsOf({ ...production, WEBHOOK_URL: 'https://shop.example/w' })).toEqual([]);
    expect(problemsOf({ WEBHOOK_URL: 'http://shop.example/w', WEBHOOK_SECRET: TEST_WEBHOOK_SECRET })).toEqual([]);
    expect(problemsOf({ WEBHOOK_URL: 'ftp://shop.example/w', WEBHOOK_SECRET: TEST_WEBHOOK_SECRET })).toEqual(['WEBHOOK_URL: must be an http(s) URL']);
  });

  it('keeps one try shorter than the outbox lease, so two instances never send one webhook at once', () => {
    const config = { ...configFromEnv(base), webhooks: { url: 'https://shop.example/w', secret: TEST_WEBHOOK_SECRET, timeoutMs: 5_000 } };
    expect(() => resolveConfig({ ...config, relay: { minIntervalMs: 1_000, maxIntervalMs: 10_000, deadlineMs: 60_000, outboxLeaseMs: 5_000 } })).toThrow(
      /webhooks\.timeoutMs: must be less than relay\.outboxLeaseMs \(5000\)/,
    );
    expect(resolveConfig(config).webhooks?.timeoutMs).toBe(5_000);
  });
});
