import type { CheckoutSnapshot, PaymentSnapshot } from '../../src/protocol/index.js';
import type { MerchantProxy } from '../../src/proxy/index.js';
import { type Product, productById } from './catalogue.js';

/** One line of an order or a cart. */
export interface OrderLine {
  product: Product;
  quantity: number;
  /** Pesewas. */
  total: number;
}

/** An order the shop's server created; its status comes from the proxy only, never from a browser. */
export interface Order {
  /** `ORDER-1042`: the `referenceNo` of its payment tokens and the `reference` of its checkouts. */
  reference: string;
  lines: OrderLine[];
  /** Pesewas. */
  total: number;
  createdAt: Date;
  /**
   * The digits of the signed-in customer who placed it, if any: never the masked number, which two
   * customers can share (`+233 24 *** **17`).
   */
  customer?: string;
  /** The latest payment update the proxy's `hooks.onPaymentUpdate` reported for this order. */
  payment?: PaymentSnapshot;
  /** The latest checkout update the proxy's `hooks.onCheckoutUpdate` reported for this order. */
  checkout?: CheckoutSnapshot;
}

/**
 * How the order page describes an order's payment (`checking`: back from the hosted page, its outcome not
 * read yet; the page alone decides it).
 */
export type OrderStatus = 'unpaid' | 'pending' | 'checking' | 'paid' | 'failed' | 'cancelled' | 'expired' | 'timed-out';

/** What the server knows of an order's payment, read through the proxy. */
export interface OrderView {
  order: Order;
  status: OrderStatus;
  payment: PaymentSnapshot | null;
  checkout: CheckoutSnapshot | null;
  /**
   * Mobile money can do nothing more for it: its last try ended unpaid with no attempt left. What is still
   * possible: the hosted checkout, or a new order of the same goods.
   */
  spent: boolean;
}

/** Lines of `{ productId: quantity }`, unknown products and non-positive quantities dropped. */
export function linesOf(items: ReadonlyMap<string, number>): OrderLine[] {
  const lines: OrderLine[] = [];
  for (const [id, quantity] of items) {
    const product = productById(id);
    if (product && quantity > 0) lines.push({ product, quantity, total: product.price * quantity });
  }
  return lines;
}

/** The sum of lines, in pesewas. */
export function totalOf(lines: readonly OrderLine[]): number {
  return lines.reduce((sum, line) => sum + line.total, 0);
}

/** The shop's orders, in memory (one demo process). */
export class OrderBook {
  private readonly orders = new Map<string, Order>();
  private next: number;

  constructor(firstNumber = 1042) {
    this.next = firstNumber;
  }

  /** Creates an order of the given lines (which must not be empty), for the customer with these digits. */
  create(lines: OrderLine[], customer?: string): Order {
    if (lines.length === 0) throw new Error('An order needs at least one line.');
    const order: Order = {
      reference: `ORDER-${this.next++}`,
      lines,
      total: totalOf(lines),
      createdAt: new Date(),
      ...(customer ? { customer } : {}),
    };
    this.orders.set(order.reference, order);
    return order;
  }

  get(reference: string): Order | undefined {
    return this.orders.get(reference);
  }

  /** The orders the customer with these digits placed, newest first. */
  byCustomer(customer: string): Order[] {
    return [...this.orders.values()].filter((o) => o.customer === customer).reverse();
  }

  /** `hooks.onPaymentUpdate`: keeps the latest update of the order the payment belongs to. */
  recordPayment(snapshot: PaymentSnapshot): void {
    const order = this.orders.get(snapshot.orderReference);
    if (order) order.payment = snapshot;
  }

  /** `hooks.onCheckoutUpdate`: keeps the latest update of the order the checkout belongs to. */
  recordCheckout(snapshot: CheckoutSnapshot): void {
    const order = this.orders.get(snapshot.reference);
    if (order) order.checkout = snapshot;
  }

  /**
   * What the server knows of an order's payment: the hooks' latest updates, refreshed from the proxy
   * (`payments.get`, `checkouts.get`), which never takes a browser's word for it.
   */
  async view(order: Order, proxy: MerchantProxy): Promise<OrderView> {
    const [payment, checkout] = await Promise.all([
      proxy.payments.get(order.reference).then((s) => latest(s, order.payment)),
      proxy.checkouts.get(order.reference).then((s) => latest(s, order.checkout)),
    ]);
    return { order, status: statusOf(payment, checkout), payment, checkout, spent: isSpent(payment) };
  }
}

/** The order's mobile-money attempts are all used and none paid (a try that never reached the provider is free). */
export function isSpent(payment: PaymentSnapshot | null): boolean {
  return (payment?.status === 'FAILED' || payment?.status === 'CANCELLED') && payment.attemptsLeft === 0;
}

/** The newer of two snapshots (the hook's record may lag the store, or the store may have expired). */
function latest<T extends { updatedAt: string }>(read: T | null, recorded: T | undefined): T | null {
  if (!read) return recorded ?? null;
  if (!recorded) return read;
  return Date.parse(recorded.updatedAt) > Date.parse(read.updatedAt) ? recorded : read;
}

/**
 * One status for the order: paid by either way wins, then a payment in progress, then the latest ending.
 * A checkout session still `pending` was opened but not used: the order is as unpaid as before.
 */
export function statusOf(payment: PaymentSnapshot | null, checkout: CheckoutSnapshot | null): OrderStatus {
  if (payment?.status === 'COMPLETED' || checkout?.status === 'completed') return 'paid';
  if (payment?.status === 'PENDING' || checkout?.status === 'processing') return 'pending';
  const ended = checkout?.status === 'pending' ? null : checkout;
  const last = payment && ended ? latest<PaymentSnapshot | CheckoutSnapshot>(payment, ended) : (payment ?? ended);
  return last ? (last.status.toLowerCase().replace('_', '-') as OrderStatus) : 'unpaid';
}
