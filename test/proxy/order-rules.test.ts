/**
 * The order rules of "Money you can trust" (DESIGN: payment attempts and money safety), each against the
 * sandbox on loopback, with the sandbox's own record of what it received as the truth:
 * an order's terms are fixed by its first payment; attempts count per order; one payment waits on one
 * number; one live checkout per order reference; one way to pay per order; checkoutUrl is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutUpdate } from '../../src/proxy/context.js';
import { numberKeys } from '../../src/proxy/number-keys.js';
import { ORDER_KEYS } from '../../src/proxy/order/keys.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { startHarness, TEST_SECRET, type Harness } from './helpers.js';
import { eventually, openStream } from './sse-client.js';

const fast = { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 };

describe('order rules', () => {
  let h: Harness;
  const checkoutUpdates: CheckoutUpdate[] = [];
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: { relay: fast, hooks: { onCheckoutUpdate: (u) => void checkoutUpdates.push(u) } },
    });
  });
  afterAll(() => h.close());

  const upstream = () => [...h.sandbox.app.sandbox.payments.values()];
  const upstreamOf = (order: string) => upstream().filter((p) => p.referenceNo.startsWith(`${order}-`));
  const finalOf = async (token: string, reference: string) => {
    const stream = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
    await stream.ended;
    return stream.events.at(-1)!.data;
  };
  const hosted = (checkoutId: string, action: 'pay' | 'cancel') =>
    fetch(`${h.sandbox.url}/checkout/${checkoutId}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'msisdn=233240000001',
      redirect: 'manual',
    });
  const order = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

  describe('an order is paid at its token\u2019s price (finding 1)', () => {
    it('refuses a re-priced token of a pending order with ORDER_CHANGED, on POST and on reads, and charges nothing new', async () => {
      const ref = order('CART');
      const cheap = await h.mintPayment({ referenceNo: ref, amount: 1 });
      const first = await h.post('/payments', { msisdn: '233260000004' }, { token: cheap });
      expect(first.body).toMatchObject({ status: 'PENDING', amount: 1 });
      const dear = await h.mintPayment({ referenceNo: ref, amount: 500 });
      const refused = await h.post('/payments', { msisdn: '233260000004' }, { token: dear });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'ORDER_CHANGED', details: { orderReference: ref, changed: ['amount'] } });
      expect((await h.get(`/payments/${first.body.reference}`, { token: dear })).body.error).toBe('ORDER_CHANGED');
      expect(upstreamOf(ref)).toHaveLength(1);
      expect(upstreamOf(ref)[0]!.amount).toBe(1);
    });

    it('refuses a re-priced token of a completed order: the old payment is never its answer', async () => {
      const ref = order('CART');
      const cheap = await h.mintPayment({ referenceNo: ref, amount: 1 });
      const first = await h.post('/payments', { msisdn: '233240000001' }, { token: cheap });
      expect((await finalOf(cheap, first.body.reference)).status).toBe('COMPLETED');
      for (const change of [{ amount: 500 }, { narration: 'Something else' }, { payee: 'Other Shop' }, { msisdn: '233240000001' }]) {
        const token = await h.mintPayment({ referenceNo: ref, amount: 1, ...change });
        const res = await h.post('/payments', { msisdn: '233240000001' }, { token });
        expect(res.status).toBe(409);
        expect(res.body.error).toBe('ORDER_CHANGED');
        expect(res.body.details.changed).toEqual([Object.keys(change)[0]]);
      }
      // The same terms again (a reload) answer the completed payment, with both references.
      const again = await h.post('/payments', { msisdn: '233240000001' }, { token: await h.mintPayment({ referenceNo: ref, amount: 1 }) });
      expect(again.body).toMatchObject({ status: 'COMPLETED', reference: `${ref}-1`, orderReference: ref, amount: 1 });
      expect(await h.proxy.payments.get(ref)).toMatchObject({ status: 'COMPLETED', amount: 1 });
    });
  });

  describe('attempts count per order, and one payment waits on one number (finding 13)', () => {
    it('refuses a fourth attempt after three failures even with a newly minted token', async () => {
      const ref = order('ORDER');
      for (let i = 1; i <= 3; i++) {
        const token = await h.mintPayment({ referenceNo: ref }); // a reload mints a new token each time
        const res = await h.post('/payments', { msisdn: '233240000404' }, { token });
        expect(res.body).toMatchObject({ reference: `${ref}-${i}`, attempt: i, attemptsLeft: 3 - i });
        expect((await finalOf(token, res.body.reference)).status).toBe('FAILED');
      }
      const fourth = await h.post('/payments', { msisdn: '233240000404' }, { token: await h.mintPayment({ referenceNo: ref }) });
      expect(fourth.status).toBe(409);
      expect(fourth.body.error).toBe('ATTEMPTS_EXHAUSTED');
      expect(upstreamOf(ref)).toHaveLength(3);
      // The merchant may allow more, by minting with a higher maxAttempts.
      const more = await h.post('/payments', { msisdn: '233240000001' }, { token: await h.mintPayment({ referenceNo: ref, maxAttempts: 4 }) });
      expect(more.body).toMatchObject({ reference: `${ref}-4`, attempt: 4, attemptsLeft: 0 });
    });

    it('tells a second tab confirming another number which (masked) number the pending payment waits on', async () => {
      const ref = order('ORDER');
      const tabA = await h.mintPayment({ referenceNo: ref });
      const tabB = await h.mintPayment({ referenceNo: ref });
      const a = await h.post('/payments', { msisdn: '0260000004' }, { token: tabA });
      expect(a.status).toBe(202);
      const b = await h.post('/payments', { msisdn: '0240000001' }, { token: tabB });
      expect(b.status).toBe(409);
      expect(b.body).toMatchObject({ error: 'PAYMENT_IN_PROGRESS', details: { reference: a.body.reference, status: 'PENDING' } });
      expect(b.body.details.msisdn).toMatch(/26 \*{3} \*{2}04$/);
      expect(b.body.message).toContain(b.body.details.msisdn);
      expect(upstreamOf(ref)).toHaveLength(1);
    });
  });

  describe('checkouts: one live session per order reference (finding 6)', () => {
    it('reuses the live session for every token of the order, opens a new one only after it ended unpaid, and looks up the completed one', async () => {
      const ref = order('CO-ORDER');
      const first = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      const second = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(second.body.checkoutId).toBe(first.body.checkoutId);
      await hosted(first.body.checkoutId, 'cancel');
      await eventually(async () => ((await h.proxy.checkouts.get(ref))?.status === 'cancelled' ? true : undefined));
      const third = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(third.body.checkoutId).not.toBe(first.body.checkoutId);
      await hosted(third.body.checkoutId, 'pay');
      await eventually(async () => ((await h.proxy.checkouts.get(ref))?.status === 'completed' ? true : undefined));
      // Paid: every later request answers the completed session; the lookup by reference gives it too.
      const fourth = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(fourth.body).toMatchObject({ checkoutId: third.body.checkoutId, status: 'completed' });
      expect(await h.proxy.checkouts.get(ref)).toMatchObject({ checkoutId: third.body.checkoutId, reference: ref, status: 'completed' });
      expect(await h.proxy.checkouts.getSession(first.body.checkoutId)).toMatchObject({ status: 'cancelled' });
      expect([...h.sandbox.app.sandbox.checkouts.values()].filter((c) => c.reference === ref)).toHaveLength(2);
      const completed = checkoutUpdates.filter((u) => u.snapshot.reference === ref && u.snapshot.status === 'completed');
      expect(completed.map((u) => u.idempotencyKey)).toEqual([`checkout:${third.body.checkoutId}:completed`]);
    });

    it('refuses a checkout token of the same reference with another amount', async () => {
      const ref = order('CO-ORDER');
      await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref, amount: 10 }) });
      const res = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref, amount: 99 }) });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'ORDER_CHANGED', details: { changed: ['amount'] } });
    });
  });

  describe('one order is paid once, whichever way (finding 12)', () => {
    it('refuses a checkout while the order\u2019s mobile-money payment is pending, and a payment while its checkout is live', async () => {
      const ref = order('ORDER');
      const pay = await h.post('/payments', { msisdn: '233260000004' }, { token: await h.mintPayment({ referenceNo: ref }) });
      expect(pay.status).toBe(202);
      const checkout = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(checkout.status).toBe(409);
      expect(checkout.body).toMatchObject({ error: 'ORDER_IN_OTHER_PAYMENT', details: { method: 'mobile-money', status: 'PENDING' } });

      const other = order('ORDER');
      const live = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: other }) });
      expect(live.status).toBe(201);
      const refused = await h.post('/payments', { msisdn: '233240000001' }, { token: await h.mintPayment({ referenceNo: other }) });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'ORDER_IN_OTHER_PAYMENT', details: { method: 'checkout', status: 'pending' } });
      expect(upstreamOf(other)).toHaveLength(0);
    });

    it('lets the other way take over once every try of the first ended unpaid', async () => {
      const ref = order('ORDER');
      const token = await h.mintPayment({ referenceNo: ref });
      const pay = await h.post('/payments', { msisdn: '233200000003' }, { token });
      expect((await finalOf(token, pay.body.reference)).status).toBe('CANCELLED');
      const checkout = await h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) });
      expect(checkout.status).toBe(201);
      await hosted(checkout.body.checkoutId, 'pay');
      await eventually(async () => ((await h.proxy.checkouts.get(ref))?.status === 'completed' ? true : undefined));
      const again = await h.post('/payments', { msisdn: '233240000001' }, { token });
      expect(again.body).toMatchObject({ error: 'ORDER_IN_OTHER_PAYMENT', details: { method: 'checkout', status: 'completed' } });
    });

    it('lets only one of a payment and a checkout started at once win', async () => {
      const ref = order('ORDER');
      const [pay, checkout] = await Promise.all([
        h.post('/payments', { msisdn: '233260000004' }, { token: await h.mintPayment({ referenceNo: ref }) }),
        h.post('/checkouts', {}, { token: await h.mintCheckout({ reference: ref }) }),
      ]);
      expect([pay.status === 202, checkout.status === 201].filter(Boolean)).toHaveLength(1);
      expect([pay.body.error, checkout.body.error].filter(Boolean)).toEqual(['ORDER_IN_OTHER_PAYMENT']);
    });
  });
});

describe('checkoutUrl (finding 7)', () => {
  it('refuses a session whose checkoutUrl is not https on the checkout host: javascript:, data:, another host', async () => {
    let rewrite = 'javascript:alert(document.cookie)';
    const realFetch = globalThis.fetch;
    const h = await startHarness({
      config: {
        relay: fast,
        fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
          const res = await realFetch(input, init);
          if (!String(input instanceof Request ? input.url : input).endsWith('/v1/checkout/initialize')) return res;
          const body = (await res.json()) as Record<string, unknown>;
          return new Response(JSON.stringify({ ...body, checkoutUrl: rewrite }), { status: res.status, headers: res.headers });
        }) as typeof fetch,
      },
    });
    try {
      for (const url of ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'https://evil.example/pay', 'ftp://127.0.0.1/x']) {
        rewrite = url;
        const res = await h.post('/checkouts', {}, { token: await h.mintCheckout() });
        expect(res.status).toBe(502);
        expect(res.body.error).toBe('UPSTREAM_ERROR');
        expect(res.text).not.toContain(url.slice(0, 12));
      }
      expect(h.logs.entries().some((e) => String(e.msg).startsWith('checkout interface answered a checkoutUrl'))).toBe(true);
      const sandboxUrl = new URL(h.sandbox.url);
      rewrite = `${sandboxUrl.origin}/checkout/fine`;
      expect((await h.post('/checkouts', {}, { token: await h.mintCheckout() })).status).toBe(201);
    } finally {
      await h.close();
    }
  });
});

describe('payment prompts per number (finding 8)', () => {
  it('refuses a third prompt waiting on one number, and the eleventh in an hour, from twenty orders\u2019 tokens', async () => {
    const h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: {
        relay: fast,
        limits: { paymentsInFlightPerNumber: { points: 2, durationSec: 3_600 }, paymentPromptsPerNumber: { points: 10, durationSec: 3_600 } },
      },
    });
    try {
      const pay = async (msisdn: string) =>
        h.post('/payments', { msisdn }, { token: await h.mintPayment({ referenceNo: `SPAM-${Math.random().toString(36).slice(2, 10)}` }) });
      // In flight: 233260000004 stays pending until answered.
      const waiting = [await pay('233260000004'), await pay('233260000004'), await pay('233260000004')];
      expect(waiting.map((r) => r.status)).toEqual([202, 202, 429]);
      expect(waiting[2]!.body).toMatchObject({ error: 'RATE_LIMITED', details: { scope: 'number' } });
      expect(waiting[2]!.headers.get('retry-after')).toBeTruthy();
      // Per hour: 233240000001 completes by itself; the eleventh prompt within the hour is refused.
      const answers = [];
      for (let i = 0; i < 12; i++) {
        const res = await pay('233240000001');
        answers.push(res.status);
        if (res.status === 202) await eventually(async () => ((await h.proxy.payments.getAttempt(res.body.reference))?.status === 'COMPLETED' ? true : undefined));
      }
      expect(answers).toEqual([...Array(10).fill(202), 429, 429]);
      const sent = [...h.sandbox.app.sandbox.payments.values()].filter((p) => p.referenceNo.startsWith('SPAM-'));
      expect(sent).toHaveLength(12);
    } finally {
      await h.close();
    }
  });

  it('counts the prompts an older release indexed under the digits, and indexes its own under their hash (a rolling upgrade)', async () => {
    const store = new MemoryStore();
    const h = await startHarness({ sandbox: { timeScale: 0.02 }, config: { store, relay: fast, limits: { paymentsInFlightPerNumber: { points: 2, durationSec: 3_600 } } } });
    try {
      const number = '233260000004';
      const hashed = ORDER_KEYS.inFlight(numberKeys(TEST_SECRET).of(number));
      const pay = async () => h.post('/payments', { msisdn: number }, { token: await h.mintPayment({ referenceNo: `UPG-${Math.random().toString(36).slice(2, 10)}` }) });
      const first = await pay();
      expect(first.status).toBe(202);
      expect(await store.members(hashed)).toEqual([first.body.reference]);
      // Indexed under the digits too, as a release before the hash did: still one prompt, so a second may go.
      await store.addToSet(ORDER_KEYS.inFlight(number), first.body.reference);
      const second = await pay();
      expect(second.status).toBe(202);
      expect((await store.members(hashed)).sort()).toEqual([first.body.reference, second.body.reference].sort());
      // The second under the digits only, as an older instance indexes its own: still counted, a third is refused.
      await store.removeFromSet(hashed, second.body.reference);
      await store.addToSet(ORDER_KEYS.inFlight(number), second.body.reference);
      expect((await pay()).status).toBe(429);
    } finally {
      await h.close();
    }
  });
});
