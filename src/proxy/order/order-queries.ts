import type { ChargeEstimate, CheckoutSnapshot, OrderView, PaymentSnapshot } from '../../protocol/index.js';
import type { PaymentClaims } from '../tokens/claims.js';
import type { OrderBook } from './order-book.js';
import type { TransitionEnv } from './events.js';
import { completedSession, completedTry, liveSession, liveTry, triesUsed, tryByReference, type CheckoutTry, type Order, type PaymentTry } from './order-record.js';
import { changedPaymentTerms } from './order-rules.js';
import type { References } from './references.js';
import { checkoutSnapshot, paymentSnapshot, shownSession, shownTry, viewStatus, type ViewEnv } from './views.js';

/** Reads of orders for the routes and the merchant's backend (nothing here changes an order). */
export class OrderQueries {
  constructor(
    private readonly book: OrderBook,
    private readonly references: References,
    private readonly env: () => ViewEnv & Pick<TransitionEnv, 'now' | 'numbers'>,
    private readonly checkoutIndex: (checkoutId: string) => Promise<string | null>,
  ) {}

  /** The order's payment, by the merchant's order reference (its completed try, else its live one, else its last). */
  async payment(ref: string): Promise<{ order: Order; t: PaymentTry } | null> {
    const order = await this.book.read(ref);
    const t = order ? shownTry(order) : undefined;
    return order && t ? { order, t } : null;
  }

  /** One try, by its attempt reference (`ORDER-123-1`, with the shop's prefix). */
  async attempt(reference: string): Promise<{ order: Order; t: PaymentTry } | null> {
    const parsed = this.references.parseAttempt(reference);
    if (!parsed) return null;
    const order = await this.book.read(parsed.orderReference);
    const t = order ? tryByReference(order, reference) : undefined;
    return order && t ? { order, t } : null;
  }

  /** The order's checkout, by the merchant's reference: its completed session, else its latest with an id. */
  async checkout(ref: string): Promise<{ order: Order; s: CheckoutTry } | null> {
    const order = await this.book.read(ref);
    const s = order ? shownSession(order) : undefined;
    return order && s ? { order, s } : null;
  }

  /** One session, by its checkoutId. */
  async session(checkoutId: string): Promise<{ order: Order; s: CheckoutTry } | null> {
    const ref = await this.checkoutIndex(checkoutId);
    const order = ref === null ? null : await this.book.read(ref);
    const s = order?.sessions.find((x) => x.checkoutId === checkoutId);
    return order && s ? { order, s } : null;
  }

  paymentSnapshot(found: { order: Order; t: PaymentTry }): PaymentSnapshot {
    return paymentSnapshot(found.order, found.t, this.env());
  }

  checkoutSnapshot(found: { order: Order; s: CheckoutTry }): CheckoutSnapshot | null {
    return checkoutSnapshot(found.order, found.s);
  }

  /**
   * `GET /order`: where the token's order stands, so a page shows the truth from its first paint: the live
   * (or completed, or last) payment, the tries left, what a new try would meet, and the charge to expect.
   * A token whose terms are not the order's sees nothing of it (the route refuses it first).
   */
  async view(claims: PaymentClaims, chargeEstimate: ChargeEstimate | null): Promise<OrderView> {
    const order = await this.book.read(claims.referenceNo);
    const env = this.env();
    const base = { orderReference: claims.referenceNo, chargeEstimate };
    if (!order) return { ...base, payment: null, attemptsLeft: claims.maxAttempts, next: 'open', otherMethod: null };
    const t = shownTry(order);
    const payment = t ? paymentSnapshot(order, t, env) : null;
    const attemptsLeft = Math.max(0, claims.maxAttempts - triesUsed(order));
    const session = completedSession(order) ?? liveSession(order);
    const otherMethod = session ? { method: 'checkout' as const, status: session.phase === 'open' || session.phase === 'completed' ? session.status : 'unknown' } : null;
    const next: OrderView['next'] =
      completedTry(order) || liveTry(order) ? 'payment' : otherMethod ? 'other-method' : attemptsLeft === 0 || order.conflict ? 'exhausted' : 'open';
    return { ...base, payment, attemptsLeft, next, otherMethod };
  }

  /** The names of the terms in which the token differs from the order's (the route refuses ORDER_CHANGED). */
  async changedTerms(claims: PaymentClaims, terms: Parameters<typeof changedPaymentTerms>[1]): Promise<string[]> {
    const order = await this.book.read(claims.referenceNo);
    return order ? changedPaymentTerms(order, terms, this.env()) : [];
  }

  /** True when the order's shown try is one no page waits on anymore (a look should read it now). */
  isLate(order: Order, t: PaymentTry): boolean {
    const status = viewStatus(order, t, this.env());
    return status === 'TIMED_OUT' || status === 'UNKNOWN' || (t.phase === 'void' && t.voidReason === 'not-found');
  }
}

/** The charge to expect, when the configuration knows the provider's rate: half-up to the pesewa. */
export function estimateCharge(amount: number, chargePercent: number | undefined): ChargeEstimate | null {
  if (chargePercent === undefined) return null;
  const base = Math.round(amount * 100);
  const charge = Math.floor((base * chargePercent + 50) / 100);
  return { charge: charge / 100, totalAmount: (base + charge) / 100 };
}
