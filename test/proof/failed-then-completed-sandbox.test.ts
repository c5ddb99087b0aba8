/**
 * The real thing behind `failed-then-completed.test.ts`'s second case: a proxy and the sandbox over HTTP. The
 * customer declines the prompt (read CANCELLED, reported), and the provider later records the payment as
 * completed after all (the specification shows no transition after PENDING: "not shown"), calling nobody
 * back. Before, nothing read a cancelled try again without a callback, and the completion never reached the
 * merchant's hook; the reconciler now reads it again within the window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { startHarness, type Harness } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';
import { answerOnPhone, upstreamPayments } from './sandbox-truth.js';

const relay = { minIntervalMs: 20, maxIntervalMs: 100, deadlineMs: 60_000, lateIntervalMs: 200, sweepIntervalMs: 500 };
const updates: PaymentUpdate[] = [];
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sandbox: { timeScale: 0.02 }, config: { relay, hooks: { onPaymentUpdate: (u: PaymentUpdate) => void updates.push(u) } } });
});
afterAll(() => h.close());

describe('a payment read CANCELLED that the provider completes later without calling back', () => {
  it('is read again and its completion reaches the hook', { timeout: 60_000 }, async () => {
    const ref = `LATE-${Date.now()}`;
    const token = await h.mintPayment({ referenceNo: ref });
    expect((await h.post('/payments', { msisdn: '0260000004' }, { token })).status).toBe(202);
    const upstream = await eventually(async () => (await upstreamPayments(h.sandbox.url)).find((p) => p.referenceNo === `${ref}-1`));
    expect(await answerOnPhone(h.sandbox.url, upstream.referenceId, 'decline')).toBe(true);
    const cancelled = await eventually(() => updates.find((u) => u.snapshot.reference === `${ref}-1` && u.snapshot.status === 'CANCELLED'));
    expect(cancelled.final).toBe(true);

    // The provider's record changes with no callback (the sandbox has no route for it: set in its state).
    h.sandbox.app.sandbox.payments.get(upstream.referenceId)!.status = 'COMPLETED';

    const completed = await eventually(() => updates.find((u) => u.snapshot.reference === `${ref}-1` && u.snapshot.status === 'COMPLETED'), 20_000);
    expect(completed).toMatchObject({ final: true, idempotencyKey: `payment:${ref}-1:COMPLETED` });
    expect(await h.proxy.payments.get(ref)).toMatchObject({ reference: `${ref}-1`, status: 'COMPLETED' });
  });
});
