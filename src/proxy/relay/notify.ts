import type { CheckoutSnapshot, CheckoutViewStatus, PaymentViewStatus } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { maskForLog } from '../phone.js';
import { KEYS, RECORD_TTL_MS } from '../payments/keys.js';
import { isFinalPaymentStatus, toPaymentSnapshot, type PaymentRecord } from '../payments/payment-record.js';

/**
 * Calls `hooks.onPaymentUpdate` for the record's status, at most once per reference and status across
 * instances and restarts: the call is claimed in the store first (`hook:payment:<ref>:<status>`), and
 * only the claimant calls. A hook that throws is logged and not retried (the claim stays): a merchant
 * who needs delivery guarantees reads `proxy.payments.get()` or keeps its own outbox. Receipts follow
 * a COMPLETED payment, claimed the same way.
 */
export async function notifyPayment(ctx: ProxyContext, record: PaymentRecord, previous: PaymentViewStatus | null): Promise<void> {
  const hook = ctx.hooks.onPaymentUpdate;
  if (hook && (await claim(ctx, KEYS.hook('payment', record.reference, record.status)))) {
    try {
      await hook({ snapshot: toPaymentSnapshot(record), previous, final: isFinalPaymentStatus(record.status) });
    } catch (err) {
      ctx.logger.error({ err: describe(err), reference: record.reference, status: record.status }, 'onPaymentUpdate hook failed; not retried');
    }
  }
  if (record.status === 'COMPLETED') await sendReceipts(ctx, record);
}

/** As {@link notifyPayment}, for checkout sessions (`hook:checkout:<checkoutId>:<status>`). */
export async function notifyCheckout(
  ctx: ProxyContext,
  snapshot: CheckoutSnapshot,
  previous: CheckoutViewStatus | null,
  final: boolean,
): Promise<void> {
  const hook = ctx.hooks.onCheckoutUpdate;
  if (!hook || !(await claim(ctx, KEYS.hook('checkout', snapshot.checkoutId, snapshot.status)))) return;
  try {
    await hook({ snapshot, previous, final });
  } catch (err) {
    ctx.logger.error({ err: describe(err), checkoutId: snapshot.checkoutId, status: snapshot.status }, 'onCheckoutUpdate hook failed; not retried');
  }
}

/** Receipt settings, read defensively (`config.receipts` is optional). */
interface ReceiptSettings {
  sms?: boolean;
  email?: { from: string; to?: string };
}

/**
 * Sends the configured receipts of a completed payment, each once (claimed before sending): an SMS to the
 * paying number from the configured OTP sender, and an email to `receipts.email.to`. A failed send is
 * logged and not retried (a second SMS is worse than none for a receipt the merchant's own flow repeats).
 */
async function sendReceipts(ctx: ProxyContext, record: PaymentRecord): Promise<void> {
  const settings = (ctx.config as { receipts?: ReceiptSettings }).receipts;
  if (!settings) return;
  const text = receiptText(record);
  if (settings.sms && (await claim(ctx, KEYS.receipt('sms', record.reference)))) {
    try {
      await ctx.client.sms.send({ to: record.msisdn, from: ctx.config.otp.sender, type: 'Quick', message: text, isGlobal: false });
    } catch (err) {
      ctx.logger.warn({ err: describe(err), reference: record.reference, to: maskForLog(record.msisdn) }, 'SMS receipt not sent');
    }
  }
  const email = settings.email;
  if (email?.to && (await claim(ctx, KEYS.receipt('email', record.reference)))) {
    try {
      await ctx.client.email.send({ from: email.from, to: email.to, subject: `Payment received: ${record.reference}`, text });
    } catch (err) {
      ctx.logger.warn({ err: describe(err), reference: record.reference }, 'email receipt not sent');
    }
  }
}

/** The receipt's words (one SMS segment for usual narrations). */
export function receiptText(record: PaymentRecord): string {
  const amount = record.totalAmount.toFixed(2);
  return `Payment received: ${record.currency} ${amount} to ${record.payee} for ${record.narration}. Ref ${record.reference}.`;
}

async function claim(ctx: ProxyContext, key: string): Promise<boolean> {
  return ctx.store.setIfAbsent(key, new Date(ctx.now()).toISOString(), RECORD_TTL_MS);
}

function describe(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err };
}
