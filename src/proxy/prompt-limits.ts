import type { ProxyContext } from './context.js';
import { ProxyError } from './errors.js';
import { consume } from './limits.js';
import { numberKeysOf } from './number-keys.js';
import { ORDER_KEYS } from './order/keys.js';
import { isLiveTry, tryByReference, type Order } from './order/order-record.js';
import type { References } from './order/references.js';
import type { ProxyStore } from './store/types.js';

/**
 * Payment prompts per number (DESIGN: default policies): twenty orders' tokens must not send twenty prompts
 * to one phone. Before a new try is sent: at most `paymentsInFlightPerNumber` tries of any order may be
 * waiting on the number (counted from the orders the number's index names, so every instance agrees), and
 * at most `paymentPromptsPerNumber` prompts per window are sent to it.
 */
export async function checkPromptLimits(
  ctx: ProxyContext,
  references: References,
  readOrder: (ref: string) => Promise<Order | null>,
  msisdn: string,
  /** The try about to be sent (its claim is already in the index): not counted against itself. */
  own: string,
  /** Where orders (and so the number's index) are kept: each shard keeps its orders' part of the index. */
  stores: readonly ProxyStore[] = [ctx.store],
): Promise<void> {
  let open = 0;
  // The number's index under each accepted secret's hash (a rotation rolls out), and under the digits (written
  // by releases before the hash); a try found under two of them counts once.
  const seen = new Set([own]);
  const keys = [...numberKeysOf(ctx.config).all(msisdn), msisdn].map(ORDER_KEYS.inFlight);
  // Every shard's part of the index at once. A shard that does not answer is not counted when there are others
  // (DESIGN: Redis Cluster): a limit against prompting one phone too often is no reason to refuse every other
  // shard's orders while one is down.
  const lists = await Promise.all(
    stores.flatMap((store) =>
      keys.map(async (key) => ({ store, key, listed: stores.length === 1 ? await store.members(key) : await store.members(key).catch(() => [] as string[]) })),
    ),
  );
  for (const { store, key, listed } of lists) {
    for (const reference of listed) {
      if (seen.has(reference)) continue;
      seen.add(reference);
      const parsed = references.parseAttempt(reference);
      const order = parsed ? await readOrder(parsed.orderReference) : null;
      const t = order ? tryByReference(order, reference) : undefined;
      // A prompt is open while the page waits on it; after our deadline the phone has long dropped it.
      if (t && isLiveTry(t) && t.msisdn === msisdn && !t.timedOut) open++;
      else if (!t || !isLiveTry(t) || t.msisdn !== msisdn) await store.removeFromSet(key, reference);
    }
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
