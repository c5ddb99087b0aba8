import type { ProxyContext } from '../context.js';
import type { Relay } from '../relay/relay.js';
import { ProxyError } from '../errors.js';
import { KEYS, RECORD_TTL_MS } from './keys.js';

/** The two ways an order reference can be paid. */
export type PaymentMethod = 'mobile-money' | 'checkout';

/** Where the order stands on the method that holds it: `free` lets the other method take the order over. */
export interface MethodState {
  /** True when that method has nothing live or completed for the order (every try read as ended unpaid). */
  free: boolean;
  /** The status to name in the refusal (`PENDING`, `COMPLETED`, `pending`, `completed`…). */
  status: string;
}

/** Reads where the order stands on a method; null when the method has no record of the order at all. */
export type MethodProbe = (method: PaymentMethod, orderReference: string) => Promise<MethodState | null>;

/**
 * One order is paid once, whichever way (DESIGN: payment attempts and money safety). Before a new mobile
 * money attempt or a new checkout session, the method claims the order (`ord:method:<reference>`); the
 * other method may take it over only while the holder's state is `free` (its tries all ended unpaid).
 * Otherwise the request is refused with `ORDER_IN_OTHER_PAYMENT`, naming the method and its status.
 * The claim is a compare-and-set, so a payment and a checkout started at once cannot both win.
 */
export async function claimMethod(
  ctx: ProxyContext,
  orderReference: string,
  method: PaymentMethod,
  probe: MethodProbe,
  leaseMs: number,
): Promise<void> {
  const key = KEYS.orderMethod(orderReference);
  const mine = JSON.stringify({ method, at: ctx.now() });
  for (let tries = 0; tries < 20; tries++) {
    if (await ctx.store.setIfAbsent(key, mine, RECORD_TTL_MS)) return;
    const raw = await ctx.store.get(key);
    if (raw === null) continue;
    const holder = parseHolder(raw);
    if (holder.method === method) return;
    const other = holder.method;
    const state = await probe(other, orderReference);
    // Claimed but nothing made yet: the other request is still on its way, unless it died (lease over).
    const busy = state ? !state.free : ctx.now() - holder.at <= leaseMs;
    if (busy) {
      const how = other === 'checkout' ? 'on the hosted checkout page' : 'by mobile money';
      throw new ProxyError('ORDER_IN_OTHER_PAYMENT', `This order is already being paid ${how}.`, {
        method: other,
        status: state?.status ?? (other === 'checkout' ? 'pending' : 'PENDING'),
      });
    }
    if (await ctx.store.compareAndSet(key, raw, mine, RECORD_TTL_MS)) return;
  }
  throw new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is busy. Try again in a moment.', { retryable: true });
}

/** The stored claim (`{ method, at }`). */
function parseHolder(raw: string): { method: PaymentMethod; at: number } {
  try {
    const parsed = JSON.parse(raw) as { method?: unknown; at?: unknown };
    return { method: parsed.method === 'checkout' ? 'checkout' : 'mobile-money', at: typeof parsed.at === 'number' ? parsed.at : 0 };
  } catch {
    return { method: raw === 'checkout' ? 'checkout' : 'mobile-money', at: 0 };
  }
}

/** Where the order stands on each method, read through the relay's trackers. */
export function methodProbe(relay: Relay): MethodProbe {
  return (method, orderReference) =>
    method === 'checkout' ? relay.checkouts.tracker.methodState(orderReference) : relay.payments.tracker.methodState(orderReference);
}
