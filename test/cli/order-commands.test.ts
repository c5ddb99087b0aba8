/**
 * `merchant-elements orders unresolved` and `orders resolve`: the operator's part of "unknown blocks
 * everything", against a proxy whose provider reads status by referenceId only and loses one initiation's
 * answer (the payment lands: nothing but the operator, or a callback, can tell the proxy its referenceId).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { startHarness, type Harness } from '../proxy/helpers.js';
import { lateNetwork } from '../proxy/late-network.js';
import { eventually } from '../proxy/sse-client.js';
import { runMain } from './cli-harness.js';

const SERVER_KEY = 'server-key-of-at-least-thirty-two-bytes-long!';
const late = lateNetwork({ landAfterMs: 200 });
const updates: PaymentUpdate[] = [];
let h: Harness;
const env = () => ({ PROXY_URL: h.baseUrl, PROXY_SERVER_KEY: SERVER_KEY });

beforeAll(async () => {
  h = await startHarness({
    sandbox: { timeScale: 0.02, statusReference: 'referenceId' },
    provider: (sandbox) => ({
      env: 'sandbox',
      messagingBaseUrl: sandbox.url,
      paymentBaseUrl: sandbox.paymentUrl,
      messaging: { apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
      payment: { username: 'test-user', password: 'test-password' },
      checkout: { apiKey: 'test-checkout-key' },
      statusReference: 'referenceId',
    }),
    config: {
      serverKey: SERVER_KEY,
      fetch: late.fetch,
      timeouts: { connectMs: 1_000, totalMs: 1_000 },
      relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, unknownGraceMs: 200 },
      hooks: { onPaymentUpdate: (u) => void updates.push(u) },
    },
  });
});
afterAll(() => h?.close());

describe('merchant-elements orders', () => {
  it('lists an order whose payment no read can see, and resolves it with the provider\'s referenceId', async () => {
    const ref = `CLI-${Date.now()}`;
    late.delayNext();
    expect((await h.post('/payments', { msisdn: '0260000004' }, { token: await h.mintPayment({ referenceNo: ref }) })).body.status).toBe('UNKNOWN');
    await late.landed();
    const upstream = [...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === `${ref}-1`)!;

    const table = await runMain(['orders', 'unresolved'], env());
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/^order\s+attempt or session\s+phase\s+status/);
    expect(table.stdout).toMatch(new RegExp(`${ref}\\s+${ref}-1\\s+unknown\\s+UNKNOWN`));
    const json = JSON.parse((await runMain(['orders', 'unresolved', '--json', '--limit', '10'], env())).stdout) as { orders: { orderReference: string }[] };
    expect(json.orders.map((o) => o.orderReference)).toContain(ref);

    const wrong = await runMain(['orders', 'resolve', ref, '--attempt', `${ref}-1`, '--reference-id', 'someone-elses'], env());
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('INVALID_INPUT');

    expect(await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' }).then((r) => r.status)).toBe(303);
    const resolved = await runMain(['orders', 'resolve', ref, '--attempt', `${ref}-1`, '--reference-id', upstream.referenceId], env());
    expect(resolved).toMatchObject({ code: 0, stdout: `${ref}: resolved\n` });
    await eventually(() => updates.find((u) => u.snapshot.orderReference === ref && u.snapshot.status === 'COMPLETED'));
    expect((await runMain(['orders', 'unresolved'], env())).stdout).not.toContain(ref);
  });

  it('voids an attempt the provider has nothing for (--absent), and the order can be paid again', async () => {
    const ref = `CLI-ABSENT-${Date.now()}`;
    // A send that hangs and is never processed: what the operator finds absent at the provider.
    const token = await h.mintPayment({ referenceNo: ref });
    await fetch(`${h.sandbox.url}/__sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kind: 'hang', method: 'POST', path: '/gateway/v1/payment' }) });
    expect((await h.post('/payments', { msisdn: '0260000004' }, { token })).body.status).toBe('UNKNOWN');
    const resolved = await runMain(['orders', 'resolve', ref, '--attempt', `${ref}-1`, '--absent', '--json'], env());
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({ orderReference: ref, tries: [] });
    expect((await h.post('/payments', { msisdn: '0260000004' }, { token })).body).toMatchObject({ reference: `${ref}-1`, status: 'PENDING' });
  });

  it('shows an order: its payment as the proxy reads it, as fields and as JSON; an unknown one exits 1', async () => {
    const ref = `CLI-SHOW-${Date.now()}`;
    expect((await h.post('/payments', { msisdn: '0240000001' }, { token: await h.mintPayment({ referenceNo: ref }) })).status).toBe(202);
    const shown = await runMain(['orders', 'show', ref], env());
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toMatch(/^payment\n/);
    expect(shown.stdout).toMatch(new RegExp(`\\n  reference\\s+${ref}-1\\n`));
    expect(shown.stdout).toMatch(/\n {2}amount\s+12\.5\n/);
    expect(shown.stdout).not.toContain('checkout');
    const json = JSON.parse((await runMain(['orders', 'show', ref, '--json'], env())).stdout) as { payment: { orderReference: string }; checkout: unknown };
    expect(json).toMatchObject({ payment: { orderReference: ref }, checkout: null });
    const unknown = await runMain(['orders', 'show', 'NO-SUCH-ORDER'], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no order "NO-SUCH-ORDER"');
    expect((await runMain(['orders', 'show'], env())).code).toBe(2);
  });

  it('says what is wrong: missing or mixed flags (2), an unknown order (1), no configuration (3)', async () => {
    expect((await runMain(['orders', 'resolve', 'X'], env())).code).toBe(2);
    expect((await runMain(['orders', 'resolve', 'X', '--attempt', 'X-1'], env())).stderr).toContain('--reference-id ID or --absent');
    expect((await runMain(['orders', 'resolve', 'X', '--session', '1', '--reference-id', 'r'], env())).code).toBe(2);
    expect((await runMain(['orders', 'unresolved', '--limit', '0'], env())).code).toBe(2);
    const unknown = await runMain(['orders', 'resolve', 'NO-SUCH-ORDER', '--attempt', 'NO-SUCH-ORDER-1', '--absent'], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no order "NO-SUCH-ORDER"');
    expect((await runMain(['orders', 'unresolved'], {})).code).toBe(3);
  });
});
