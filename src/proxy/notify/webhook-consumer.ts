import { Webhook } from 'standardwebhooks';
import type { CheckoutSnapshot, CheckoutViewStatus, PaymentSnapshot, PaymentViewStatus } from '../../protocol/index.js';
import { webhookSecrets, type WebhookSettings } from '../config-webhooks.js';
import type { CheckoutUpdate } from '../context.js';
import type { OutboxConsumer, OutboxMessage } from './outbox.js';
import type { PaymentPayload } from '../order/messages.js';

/** The consumer's name in the outbox (`deliveries.webhook`). */
export const WEBHOOK_CONSUMER = 'webhook';

/** `payment.<status>` (`payment.completed`, `payment.timed_out`, …) or `checkout.<status>` (`checkout.completed`, …). */
export type WebhookType = `payment.${Lowercase<PaymentViewStatus>}` | `checkout.${CheckoutViewStatus}`;

/** What a webhook's body holds under `data`: the in-process hook's update, plus the order reference. */
export interface WebhookData {
  /** The same as `webhook-id`: `payment:<attemptReference>:<STATUS>` or `checkout:<checkoutId>:<status>`. */
  idempotencyKey: string;
  /** The merchant's order reference (a payment's `snapshot.orderReference`, a checkout's `snapshot.reference`). */
  orderReference: string;
  /** The status before this change; null on the first report. */
  previous: PaymentViewStatus | CheckoutViewStatus | null;
  /**
   * True when the provider's answer is final (a payment COMPLETED, FAILED or CANCELLED; a checkout completed,
   * failed, expired or cancelled). Only a completion never changes again: one the provider said failed may
   * still complete, and a later webhook says so.
   */
  final: boolean;
  snapshot: PaymentSnapshot | CheckoutSnapshot;
}

/** The JSON body of a webhook (Standard Webhooks' `type`, `timestamp`, `data`). */
export interface WebhookBody {
  type: WebhookType;
  /** When the state change was recorded (ISO 8601), the same on every try. */
  timestamp: string;
  data: WebhookData;
}

/** The body of an outbox message as a webhook; never the paying number in full (only what the snapshot shows). */
export function webhookBody(message: OutboxMessage): WebhookBody {
  const timestamp = new Date(message.createdAt).toISOString();
  if (message.kind === 'payment') {
    const { idempotencyKey, snapshot, previous, final } = message.payload as PaymentPayload;
    const type = `payment.${snapshot.status.toLowerCase()}` as WebhookType;
    return { type, timestamp, data: { idempotencyKey, orderReference: snapshot.orderReference, previous, final, snapshot } };
  }
  const { idempotencyKey, snapshot, previous, final } = message.payload as CheckoutUpdate;
  return { type: `checkout.${snapshot.status}`, timestamp, data: { idempotencyKey, orderReference: snapshot.reference, previous, final, snapshot } };
}

/** A refused or failed try: its message is the delivery's `lastError` (never the URL, which may hold a token). */
export class WebhookDeliveryError extends Error {
  override readonly name = 'WebhookDeliveryError';
}

/**
 * Signed webhooks as an outbox consumer (Standard Webhooks): every payment and checkout state change is
 * POSTed as JSON to `settings.url` with `webhook-id` (the outbox id, the same on every try),
 * `webhook-timestamp` (this try, in seconds) and `webhook-signature` (`v1,` HMAC-SHA256 by the
 * `standardwebhooks` package; one per secret, space-separated, while a secret is rotated). A 2xx answer is delivered; anything else (3xx included: redirects are never
 * followed), a timeout or a refused connection throws, and the outbox tries again with backoff for
 * `settings.maxAgeMs` before dead-lettering it.
 */
export function webhookConsumer(settings: WebhookSettings, now: () => number, fetchImpl: typeof fetch = fetch): OutboxConsumer {
  const signers = webhookSecrets(settings.secret).map((secret) => new Webhook(secret));
  return {
    name: WEBHOOK_CONSUMER,
    maxAgeMs: settings.maxAgeMs,
    accepts: () => true,
    async deliver(message) {
      const body = JSON.stringify(webhookBody(message));
      const seconds = Math.floor(now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'merchant-elements-webhooks',
        'webhook-id': message.id,
        'webhook-timestamp': String(seconds),
        'webhook-signature': signers.map((signer) => signer.sign(message.id, new Date(seconds * 1000), body)).join(' '),
      };
      let res: Response;
      try {
        res = await fetchImpl(settings.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(settings.timeoutMs) });
      } catch (err) {
        throw new WebhookDeliveryError(failureOf(err, settings.timeoutMs));
      }
      // The answer's body is not read (a receiver could send a lot); the connection is let go.
      await res.body?.cancel().catch(() => undefined);
      if (res.status < 200 || res.status > 299) throw new WebhookDeliveryError(`receiver answered ${res.status}`);
    },
  };
}

/** A sentence for a try that got no answer: timeout, refused, reset (the cause's code, never the URL). */
function failureOf(err: unknown, timeoutMs: number): string {
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code ? `could not reach the receiver (${code})` : 'could not reach the receiver';
}
