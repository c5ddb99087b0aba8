// A checkout-status outage at the sandbox, for the suites that watch one interface's circuit open alone.
import { expect } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';

/**
 * A harness whose circuits open after 3 failed calls (and stay open a minute), with a checkout session
 * pending, then the sandbox failing every checkout status read (`probesPass`: only that session's): the
 * relay's reads of it open the checkout interface's background circuit, and this resolves once `/health`
 * says so.
 */
export async function withCheckoutCircuitOpen(options: { probesPass?: boolean } = {}): Promise<Harness> {
  const h = await startHarness({
    config: {
      circuitBreaker: { threshold: 0.5, minimumCalls: 3, windowMs: 60_000, halfOpenAfterMs: 60_000 },
      relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
    },
  });
  // The session is made first: before creating one for an order it has not seen, the proxy asks the provider
  // what it already has for it, and an unreadable answer refuses the checkout (unknown blocks new sessions).
  const checkout = await h.post('/checkouts', {}, { token: await h.mintCheckout() });
  expect(checkout.status, checkout.text).toBe(201);
  const scripted = await fetch(`${h.sandbox.url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: '503', method: 'GET', path: options.probesPass ? `/v1/checkout/${checkout.body.checkoutId}/` : '/v1/checkout/', count: 10_000 }),
  });
  expect(scripted.status).toBe(201);
  await eventually(async () => ((await h.get('/health')).body.upstream.circuits.checkout === 'open' ? true : undefined));
  return h;
}
