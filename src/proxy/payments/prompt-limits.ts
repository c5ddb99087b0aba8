import type { ProxyContext } from '../context.js';
import { ProxyError } from '../errors.js';
import { consume } from '../limits.js';
import type { LimitName } from '../config.js';
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
  const limits = ctx.config.limits as Partial<Record<string, { points?: number } | number>>;
  const inFlightLimit = pointsOf(limits['paymentsInFlightPerNumber']);
  if (inFlightLimit !== undefined) {
    let open = 0;
    for (const reference of await ctx.store.members(KEYS.inFlight(msisdn))) {
      const record = await relay.payments.tracker.read(reference);
      if (record && !isSettledPaymentStatus(record.status)) open++;
      else await ctx.store.removeFromSet(KEYS.inFlight(msisdn), reference);
    }
    if (open >= inFlightLimit) {
      throw new ProxyError('RATE_LIMITED', 'Another payment prompt is already waiting on this number. Approve or decline it first.', {
        retryAfter: 60,
        scope: 'number',
      });
    }
  }
  if (limits['paymentPromptsPerNumber'] !== undefined) {
    try {
      await consume(ctx, 'paymentPromptsPerNumber' as LimitName, msisdn);
    } catch (err) {
      if (err instanceof ProxyError && err.code === 'RATE_LIMITED') {
        throw new ProxyError('RATE_LIMITED', 'Too many payment prompts to this number. Try again later.', { ...err.details, scope: 'number' });
      }
      throw err;
    }
  }
}

function pointsOf(policy: { points?: number } | number | undefined): number | undefined {
  if (typeof policy === 'number') return policy;
  return policy?.points;
}
