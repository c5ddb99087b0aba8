import type { CheckoutUpdate, ProxyContext } from '../context.js';
import type { OutboxConsumer } from './outbox.js';
import { maskForLog } from '../phone.js';
import { ORDER_KEYS, RECORD_TTL_MS } from '../order/keys.js';
import type { PaymentPayload } from '../order/messages.js';

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
    // The SMS goes to the payer's number; an email receipt needs none.
    needsNumber: () => settings?.sms === true,
    async deliver(message) {
      const { snapshot, receipt } = message.payload as PaymentPayload;
      const text = receiptText({ ...receipt, reference: snapshot.reference, currency: snapshot.currency, totalAmount: snapshot.totalAmount });
      const to = receipt.msisdn;
      if (settings?.sms && to === undefined) ctx.logger.warn({ reference: snapshot.reference }, "SMS receipt not sent: the payer's number was not kept (the order was put back from the store)");
      else if (settings?.sms && to !== undefined && (await claim(ctx, ORDER_KEYS.receipt('sms', snapshot.reference)))) {
        try {
          await ctx.client.sms.send({ to, from: ctx.config.otp.sender, type: 'Quick', message: text, isGlobal: false });
        } catch (err) {
          ctx.logger.warn({ err: describe(err), reference: snapshot.reference, to: maskForLog(to) }, 'SMS receipt not sent');
        }
      }
      const email = settings?.email;
      if (email?.to && (await claim(ctx, ORDER_KEYS.receipt('email', snapshot.reference)))) {
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
export function receiptText(record: { currency: string; totalAmount: number; payee: string; narration: string; reference: string }): string {
  const amount = record.totalAmount.toFixed(2);
  return `Payment received: ${record.currency} ${amount} to ${record.payee} for ${record.narration}. Ref ${record.reference}.`;
}

async function claim(ctx: ProxyContext, key: string): Promise<boolean> {
  return ctx.store.setIfAbsent(key, new Date(ctx.now()).toISOString(), RECORD_TTL_MS);
}

function describe(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err };
}
