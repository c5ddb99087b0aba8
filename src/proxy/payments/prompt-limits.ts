import type { ProxyContext } from '../context.js';
import { ProxyError } from '../errors.js';
import { consume } from '../limits.js';
import type { Relay } from '../relay/relay.js';
import { KEYS } from './keys.js';
import { isSettledPaymentStatus } from './payment-record.js';

/**
 * Payment prompts per number (DESIGN: default policies): twenty orders' tokens must not send twenty
 * prompts to one phone. Before a new attempt is sent: at most `paymentsInFlightPerNumber` attempts of any
 * order may be unsettled on the number (counted from the store, so every instance agrees), and at most
 * `paymentPromptsPerNumber` prompts per window are sent to it.
 */
export async function checkPromptLimits(ctx: ProxyContext, relay: Relay, msisdn: string): Promise<void> {
  let open = 0;
  for (const reference of await ctx.store.members(KEYS.inFlight(msisdn))) {
    const record = await relay.payments.tracker.read(reference);
    // A prompt is in flight while the page waits on it (PENDING); after our deadline the phone has
    // long dropped it, though the reconciler still reads the payment.
    if (record?.status === 'PENDING') open++;
    else if (!record || isSettledPaymentStatus(record.status)) await ctx.store.removeFromSet(KEYS.inFlight(msisdn), reference);
  }
  if (open >= ctx.config.limits.paymentsInFlightPerNumber.points) {
    throw new ProxyError('RATE_LIMITED', 'Another payment prompt is already waiting on this number. Approve or decline it first.', {
      retryAfter: 60,
      scope: 'number',
    });
  }
  try {
    await consume(ctx, 'paymentPromptsPerNumber', msisdn);
  } catch (err) {
    if (err instanceof ProxyError && err.code === 'RATE_LIMITED') {
      throw new ProxyError('RATE_LIMITED', 'Too many payment prompts to this number. Try again later.', { ...err.details, scope: 'number' });
    }
    throw err;
  }
}

