/**
 * The real thing behind `store-emptied-join.test.ts`: a proxy on Redis is sending a customer's payment request
 * (on its way for 4 s); Redis is flushed; a second proxy process starts on it before the first has looked.
 * The second found no epoch, began the order afresh, looked at the provider (the request not landed yet:
 * nothing) and opened a hosted checkout; the customer paid it, and approved the prompt that landed: charged
 * twice. It now counts the processes listening on Redis (`PUBSUB NUMSUB`) and holds new orders back for the
 * recovery window; the first puts its copy back meanwhile, and the checkout is refused.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { sandboxProvider, startHarness, type Harness } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';
import { sandboxAndRedis } from './sandbox-and-redis.js';
import { answerOnPhone, sleep, upstreamPayments } from './sandbox-truth.js';

// Sweeps 3 s apart: the first process looks at the store that long after the flush at most (its only order's
// request is on its way, so nothing else makes it look), and the recovery window (three sweeps, 9 s)
// outlasts the second's start on a busy machine.
const relay = { minIntervalMs: 20, maxIntervalMs: 100, deadlineMs: 60_000, lateIntervalMs: 200, sweepIntervalMs: 3_000 };

const world = sandboxAndRedis();

/** Resolves once the first process's payment request is on its way (the store is flushed then, not before). */
let sending!: () => void;
const onItsWay = new Promise<void>((resolve) => (sending = resolve));

/** The network of the first process: a payment request takes 4 s to reach the provider, then is answered. */
const slowSend: typeof fetch = async (input, init) => {
  if (init?.method === 'POST' && String(input instanceof Request ? input.url : input).endsWith('/v1/payment')) {
    sending();
    await sleep(4_000);
  }
  return fetch(input, init);
};

const proxyOn = (extra: Record<string, unknown> = {}): Promise<Harness> =>
  startHarness({ provider: () => sandboxProvider(world.sandbox()), config: { redisUrl: world.redis().url, relay, timeouts: { connectMs: 1_000, totalMs: 8_000 }, ...extra } });

describe('a proxy process new to a flushed Redis, the process that ran on it not yet looking', () => {
  it('opens no hosted checkout while a payment request is on its way: the order is charged once', { timeout: 60_000 }, async () => {
    const a = await proxyOn({ fetch: slowSend });
    let b: Harness | undefined;
    const admin = new Redis(world.redis().url);
    const sandbox = world.sandbox();
    try {
      await a.proxy.ready();
      const ref = `EMPTIED-${Date.now()}`;
      const paying = a.post('/payments', { msisdn: '0260000004' }, { token: await a.mintPayment({ referenceNo: ref }) });
      // On its way: a flush before it (the request still reading the provider's history, 200 ms were not
      // enough on a busy machine) holds it back with a 503, which is right but not this test.
      await onItsWay;
      await admin.flushall();
      b = await proxyOn();
      const token = await b.mintCheckout({ reference: ref });
      const first = await b.post('/checkouts', {}, { token });
      const checkoutId = (first.body as { checkoutId?: string }).checkoutId;
      // Before: the checkout opened, and the customer paid it.
      if (checkoutId) await fetch(`${sandbox.url}/checkout/${checkoutId}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'msisdn=233240000001', redirect: 'manual' });

      expect((await paying).status).toBe(202);
      const [landed] = await eventually(async () => {
        const found = (await upstreamPayments(sandbox.url)).filter((p) => p.referenceNo === `${ref}-1`);
        return found.length === 1 ? found : undefined;
      });
      expect(await answerOnPhone(sandbox.url, landed!.referenceId, 'approve')).toBe(true);

      const paidSessions = [...sandbox.app.sandbox.checkouts.values()].filter((s) => s.reference.endsWith(ref) && s.status === 'completed');
      expect(paidSessions).toEqual([]);
      // Held (503) while the store recovers; on a machine so busy that the request landed first, the first
      // process had put the order back already (409).
      expect([first.status, (first.body as { error?: string }).error]).toEqual(first.status === 503 ? [503, 'UPSTREAM_UNAVAILABLE'] : [409, 'ORDER_IN_OTHER_PAYMENT']);
      const refused = await eventually(async () => {
        const again = await b!.post('/checkouts', {}, { token });
        return again.status === 503 ? undefined : again;
      }, 30_000);
      expect(refused).toMatchObject({ status: 409, body: { error: 'ORDER_IN_OTHER_PAYMENT', details: { method: 'mobile-money' } } });
    } finally {
      admin.disconnect();
      await b?.close();
      await a.close();
    }
  });
});
