import type { CheckoutViewStatus, PaymentViewStatus } from '../../protocol/index.js';
import type { CheckoutUpdate, PaymentUpdate } from '../context.js';
import type { OutboxMessage } from '../notify/outbox-types.js';
import { isMasked } from '../phone.js';
import type { CheckoutTry, Order, PaymentTry } from './order-record.js';
import { checkoutSnapshot, paymentSnapshot, reportedStatus, type ViewEnv } from './views.js';

/** A payment state change as the outbox carries it: the hook's update plus what receipts need. */
export interface PaymentPayload extends PaymentUpdate {
  /** `msisdn`: the payer's number, absent when the step knew it only masked (a record put back from its stored form). */
  receipt: { msisdn?: string; payee: string; narration: string };
}

const FINAL_PAYMENT: readonly PaymentViewStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];
const FINAL_CHECKOUT: readonly CheckoutViewStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

/**
 * The idempotency key of a payment state change (DESIGN: one charge, one key). A payment the provider has is
 * one charge per reference (it refuses a reference twice): `payment:<reference>:<STATUS>`, whichever try sent
 * or found it. A refusal made no charge and its number is taken again, so it is keyed by the try:
 * `payment:<reference>:try<ordinal>:FAILED`.
 */
export function paymentKey(t: PaymentTry, status: PaymentViewStatus): string {
  return t.phase === 'refused' ? `payment:${t.reference}:try${t.ordinal}:${status}` : `payment:${t.reference}:${status}`;
}

/**
 * The notifications a step decides: one per try whose reported status changed, one per session whose status
 * changed. Stored in the same atomic write as the order (a transactional outbox), so a state change and its
 * message are never separated.
 */
export function messagesOf(before: Order, after: Order, env: ViewEnv & { now: number }): OutboxMessage[] {
  if (before === after) return [];
  const out: OutboxMessage[] = [];
  for (const t of after.tries) {
    const old = before.tries.find((x) => x.ordinal === t.ordinal);
    const status = reportedStatus(t);
    const previous = old ? reportedStatus(old) : null;
    if (status !== null && status !== previous) out.push(paymentMessage(after, t, status, previous, env));
  }
  for (const s of after.sessions) {
    const old = before.sessions.find((x) => x.ordinal === s.ordinal);
    if (s.checkoutId === null) continue;
    const previous = old?.checkoutId ? old.status : null;
    if (previous === s.status) continue;
    const message = checkoutMessage(after, s, previous, env.now);
    if (message) out.push(message);
  }
  return out;
}

function paymentMessage(order: Order, t: PaymentTry, status: PaymentViewStatus, previous: PaymentViewStatus | null, env: ViewEnv & { now: number }): OutboxMessage<PaymentPayload> {
  const idempotencyKey = paymentKey(t, status);
  const snapshot = { ...paymentSnapshot(order, t, env), status };
  return {
    id: idempotencyKey,
    kind: 'payment',
    subject: `payment:${t.reference}`,
    createdAt: env.now,
    payload: {
      idempotencyKey,
      snapshot,
      previous,
      final: FINAL_PAYMENT.includes(status),
      receipt: { ...(isMasked(t.msisdn) ? {} : { msisdn: t.msisdn }), payee: order.terms?.payee ?? '', narration: order.terms?.narration ?? '' },
    },
  };
}

function checkoutMessage(order: Order, s: CheckoutTry, previous: CheckoutViewStatus | null, now: number): OutboxMessage<CheckoutUpdate> | null {
  const snapshot = checkoutSnapshot(order, s);
  if (!snapshot) return null;
  const idempotencyKey = `checkout:${snapshot.checkoutId}:${snapshot.status}`;
  return {
    id: idempotencyKey,
    kind: 'checkout',
    subject: `checkout:${snapshot.checkoutId}`,
    createdAt: now,
    payload: { idempotencyKey, snapshot, previous, final: FINAL_CHECKOUT.includes(snapshot.status) },
  };
}
