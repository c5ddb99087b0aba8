/**
 * The real thing behind `stale-copy-restored.test.ts`: two proxy processes on Redis and the sandbox. The
 * second reads a customer's order once, while its first prompt waits; the customer declines it and pays
 * again through the first process, which is then replaced (a rolling deploy: its copies go with it), and
 * Redis is emptied. The customer approves the second prompt, and nobody comes back to the page. The second
 * process puts back its older copy, which knows nothing of the second try: before, only a customer's next
 * request read the provider's history again, so the completion never reached the merchant's hook. Now its
 * reconciler reads the next number, adopts the completed payment and reports it.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { sandboxProvider, startHarness, type Harness } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';
import { sandboxAndRedis } from './sandbox-and-redis.js';
import { answerOnPhone, upstreamPayments } from './sandbox-truth.js';

const relay = { minIntervalMs: 20, maxIntervalMs: 100, deadlineMs: 60_000, lateIntervalMs: 200, sweepIntervalMs: 500 };

const world = sandboxAndRedis();

const proxyOn = (updates: PaymentUpdate[]): Promise<Harness> =>
  startHarness({
    provider: () => sandboxProvider(world.sandbox()),
    config: { redisUrl: world.redis().url, relay, hooks: { onPaymentUpdate: (u: PaymentUpdate) => void updates.push(u) } },
  });

/** The payment the sandbox holds under `referenceNo`, once it has one. */
const landed = (referenceNo: string) =>
  eventually(async () => (await upstreamPayments(world.sandbox().url)).find((p) => p.referenceNo === referenceNo));

describe('an older copy put back on an emptied Redis, the process that saw the order last replaced', () => {
  it('has its reconciler read the provider again: the later try’s completion reaches the hook with nobody coming back', { timeout: 60_000 }, async () => {
    const fromA: PaymentUpdate[] = [];
    const fromB: PaymentUpdate[] = [];
    const a = await proxyOn(fromA);
    const b = await proxyOn(fromB);
    const admin = new Redis(world.redis().url);
    try {
      await Promise.all([a.proxy.ready(), b.proxy.ready()]);
      const ref = `STALE-${Date.now()}`;
      const token = await a.mintPayment({ referenceNo: ref, maxAttempts: 3 });
      expect((await a.post('/payments', { msisdn: '0260000004' }, { token })).status).toBe(202);
      // A page's status read through the second process: its copy has the first try pending.
      expect((await b.get(`/payments/${ref}-1`, { token })).body).toMatchObject({ status: 'PENDING' });

      expect(await answerOnPhone(world.sandbox().url, (await landed(`${ref}-1`)).referenceId, 'decline')).toBe(true);
      await eventually(async () => ((await a.get(`/payments/${ref}-1`, { token })).body as { status?: string }).status === 'CANCELLED' || undefined);
      const second = await a.post('/payments', { msisdn: '0260000004' }, { token });
      expect(second.body).toMatchObject({ reference: `${ref}-2` });

      await a.close();
      await admin.flushall();
      expect(await answerOnPhone(world.sandbox().url, (await landed(`${ref}-2`)).referenceId, 'approve')).toBe(true);

      const completed = await eventually(() => fromB.find((u) => u.snapshot.reference === `${ref}-2` && u.snapshot.status === 'COMPLETED'), 30_000);
      expect(completed).toMatchObject({ final: true, idempotencyKey: `payment:${ref}-2:COMPLETED` });
      expect(await b.proxy.payments.get(ref)).toMatchObject({ reference: `${ref}-2`, status: 'COMPLETED' });
      expect((await upstreamPayments(world.sandbox().url)).filter((p) => p.referenceNo.startsWith(`${ref}-`)).map((p) => `${p.referenceNo}:${p.status}`).sort()).toEqual([
        `${ref}-1:CANCELLED`,
        `${ref}-2:COMPLETED`,
      ]);
    } finally {
      admin.disconnect();
      await b.close();
      await a.close().catch(() => undefined);
    }
  });
});
