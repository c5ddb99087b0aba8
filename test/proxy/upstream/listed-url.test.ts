import { describe, expect, it } from 'vitest';
import type { ProviderClient } from '../../../src/provider/types.js';
import { checkoutUrlCheck } from '../../../src/proxy/upstream/checkout-url.js';
import { CheckoutUpstream } from '../../../src/proxy/upstream/checkout-upstream.js';
import { captureLogger } from '../helpers.js';

const listed = (checkoutId: string, checkoutUrl: string | null) => ({
  checkoutId,
  reference: 'ORDER-1',
  status: 'pending',
  amount: 12.5,
  currency: 'GHS',
  createdAt: '2026-11-28T00:00:00.000Z',
  expiresAt: '2026-11-28T01:00:00.000Z',
  checkoutUrl,
});

// A created session's URL on another host than the provider's is refused (nobody is sent to it); a listed one,
// adopted when an order's creation answer was lost, was kept whatever its host, and handed to the customer.
describe("a checkout session found by the provider's listing", () => {
  it('keeps its URL only on a host the customer may be sent to', async () => {
    const logs = captureLogger();
    const client = {
      checkout: { sessions: async () => ({ sessions: [listed('A', 'https://pay.example/checkout/A'), listed('B', 'https://evil.example/checkout/B'), listed('C', null)] }) },
    } as unknown as ProviderClient;
    const check = checkoutUrlCheck({ env: 'production', checkoutBaseUrl: 'https://pay.example/checkout-api' } as never, logs.logger);
    const upstream = new CheckoutUpstream(client, logs.logger, true, check);
    const result = await upstream.list('ORDER-1');
    expect(result.kind === 'listed' && result.sessions.map((s) => [s.checkoutId, s.checkoutUrl])).toEqual([
      ['A', 'https://pay.example/checkout/A'],
      ['B', null],
      ['C', null],
    ]);
    expect(logs.entries().filter((e) => e['level'] === 50).map((e) => e['host'])).toEqual(['evil.example']);
  });
});
