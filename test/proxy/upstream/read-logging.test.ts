import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../../../src/provider/errors.js';
import type { ProviderClient } from '../../../src/provider/types.js';
import { CheckoutUpstream } from '../../../src/proxy/upstream/checkout-upstream.js';
import { PaymentUpstream } from '../../../src/proxy/upstream/payment-upstream.js';
import { captureLogger } from '../helpers.js';

const timeout = () => new ProviderUnavailableError({ message: 'timed out', operation: 'payments.status', reason: 'timeout', outcomeUnknown: false });

/** A client whose status reads and listings fail with `err` (the provider client has logged it itself). */
function failingClient(err: () => unknown): ProviderClient {
  const fail = async () => {
    throw err();
  };
  return { payments: { status: fail }, checkout: { status: fail, sessions: fail } } as unknown as ProviderClient;
}

// Under a flash sale's outage every pending payment's read fails, and each was logged at warn twice: by the
// provider client (operation, status, reason) and by the reader (the reference). One warn line a failure.
describe('a status read that fails and is read on', () => {
  it('is logged at debug when the provider client logged the call (a provider error), with its subject', async () => {
    const logs = captureLogger();
    const payments = new PaymentUpstream(failingClient(timeout), logs.logger, 'either');
    const checkouts = new CheckoutUpstream(failingClient(timeout), logs.logger, true, () => true);
    expect((await payments.read('ORDER-1-1', 'ref-1')).kind).toBe('error');
    expect((await checkouts.read('chk-1')).kind).toBe('error');
    expect((await checkouts.list('ORDER-2')).kind).toBe('error');
    const lines = logs.entries().map((e) => [e.level, e.msg, e.reference ?? e.checkoutId]);
    expect(lines).toEqual([
      [20, 'payment status read failed; reading on', 'ORDER-1-1'],
      [20, 'checkout status read failed; reading on', 'chk-1'],
      [20, 'checkout sessions could not be listed; reading on', 'ORDER-2'],
    ]);
  });

  it('is logged at warn when nothing else logged it (not a provider error)', async () => {
    const logs = captureLogger();
    const payments = new PaymentUpstream(failingClient(() => new TypeError('boom')), logs.logger, 'referenceNo');
    expect((await payments.read('ORDER-1-1', null)).kind).toBe('error');
    expect(logs.entries()).toMatchObject([{ level: 40, msg: 'payment status read failed; reading on', reference: 'ORDER-1-1', err: { type: 'TypeError' } }]);
  });
});
