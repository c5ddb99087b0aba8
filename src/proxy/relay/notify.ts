import type { CheckoutSnapshot, CheckoutViewStatus, PaymentSnapshot, PaymentViewStatus } from '../../protocol/index.js';
import type { CheckoutUpdate, PaymentUpdate, ProxyContext } from '../context.js';
import type { OutboxConsumer, OutboxMessage } from '../outbox/outbox.js';
import { maskForLog } from '../phone.js';
import { KEYS, RECORD_TTL_MS, subject } from '../payments/keys.js';
import { isFinalForMerchant, type PaymentRecord } from '../payments/payment-record.js';

/** A payment state change as the outbox carries it: the hook's update plus what receipts need. */
export interface PaymentPayload extends PaymentUpdate {
  receipt: { msisdn: string; payee: string; narration: string };
}

/** The outbox message of a payment's new status; its id is the idempotency key of that state change. */
export function paymentMessage(record: PaymentRecord, snapshot: PaymentSnapshot, previous: PaymentViewStatus | null, now: number): OutboxMessage<PaymentPayload> {
  const send = (record.sends ?? 1) > 1 ? `:${record.sends}` : '';
  const idempotencyKey = `payment:${record.reference}${send}:${record.status}`;
  return {
    id: idempotencyKey,
    kind: 'payment',
    subject: subject.payment(record.reference),
    createdAt: now,
    payload: {
      idempotencyKey,
      snapshot,
      previous,
      final: isFinalForMerchant(record),
      receipt: { msisdn: record.msisdn, payee: record.payee, narration: record.narration },
    },
  };
}

/** The outbox message of a checkout session's new status. */
export function checkoutMessage(snapshot: CheckoutSnapshot, previous: CheckoutViewStatus | null, final: boolean, now: number): OutboxMessage<CheckoutUpdate> {
  const idempotencyKey = `checkout:${snapshot.checkoutId}:${snapshot.status}`;
  return {
    id: idempotencyKey,
    kind: 'checkout',
    subject: subject.checkout(snapshot.checkoutId),
    createdAt: now,
    payload: { idempotencyKey, snapshot, previous, final },
  };
}

/**
 * The merchant's in-process hooks as an outbox consumer: `onPaymentUpdate` / `onCheckoutUpdate` get every
 * state change at least once (retried with backoff after a throw, a crash or a store error), each with
 * the same `idempotencyKey` on every try.
 */
export function hooksConsumer(ctx: ProxyContext): OutboxConsumer {
  return {
    name: 'hooks',
    accepts: (message) => (message.kind === 'payment' ? !!ctx.hooks.onPaymentUpdate : !!ctx.hooks.onCheckoutUpdate),
    async deliver(message) {
      if (message.kind === 'payment') {
        const { receipt: _receipt, ...update } = message.payload as PaymentPayload;
        await ctx.hooks.onPaymentUpdate?.(update);
      } else {
        await ctx.hooks.onCheckoutUpdate?.(message.payload as CheckoutUpdate);
      }
    },
  };
}

/** Receipt settings, read defensively (`config.receipts` is optional). */
interface ReceiptSettings {
  sms?: boolean;
  email?: { from: string; to?: string };
}

/**
 * Receipts of a completed payment as an outbox consumer: an SMS to the paying number and an email to
 * `receipts.email.to`, each claimed once before sending. A failed send is logged and not sent again (a
 * second SMS is worse than none for a receipt the merchant's own flow repeats); a store error before the
 * claim is retried like any delivery.
 */
export function receiptsConsumer(ctx: ProxyContext): OutboxConsumer {
  const settings = (ctx.config as { receipts?: ReceiptSettings }).receipts;
  return {
    name: 'receipts',
    accepts: (message) =>
      !!settings && message.kind === 'payment' && (message.payload as PaymentPayload).snapshot.status === 'COMPLETED',
    async deliver(message) {
      const { snapshot, receipt } = message.payload as PaymentPayload;
      const text = receiptText({ ...receipt, reference: snapshot.reference, currency: snapshot.currency, totalAmount: snapshot.totalAmount });
      if (settings?.sms && (await claim(ctx, KEYS.receipt('sms', snapshot.reference)))) {
        try {
          await ctx.client.sms.send({ to: receipt.msisdn, from: ctx.config.otp.sender, type: 'Quick', message: text, isGlobal: false });
        } catch (err) {
          ctx.logger.warn({ err: describe(err), reference: snapshot.reference, to: maskForLog(receipt.msisdn) }, 'SMS receipt not sent');
        }
      }
      const email = settings?.email;
      if (email?.to && (await claim(ctx, KEYS.receipt('email', snapshot.reference)))) {
        try {
          await ctx.client.email.send({ from: email.from, to: email.to, subject: `Payment received: ${snapshot.reference}`, text });
        } catch (err) {
          ctx.logger.warn({ err: describe(err), reference: snapshot.reference }, 'email receipt not sent');
        }
      }
    },
  };
}

/** The receipt's words (one SMS segment for usual narrations). */
export function receiptText(record: Pick<PaymentRecord, 'currency' | 'totalAmount' | 'payee' | 'narration' | 'reference'>): string {
  const amount = record.totalAmount.toFixed(2);
  return `Payment received: ${record.currency} ${amount} to ${record.payee} for ${record.narration}. Ref ${record.reference}.`;
}

async function claim(ctx: ProxyContext, key: string): Promise<boolean> {
  return ctx.store.setIfAbsent(key, new Date(ctx.now()).toISOString(), RECORD_TTL_MS);
}

function describe(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err };
}
