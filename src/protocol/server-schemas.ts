// The server API's contract (the merchant's backend to the proxy, DESIGN: the proxy as a service): what it
// takes and answers. The token inputs live here, not in the proxy, because they are this API's bodies as well
// as the arguments of `proxy.tokens.*`: one definition for both, so the two cannot drift.
import { z } from 'zod';

/** The largest amount a token may carry (GHS 1,000,000,000): far above any order, far below float trouble. */
export const MAX_AMOUNT = 1_000_000_000;

/**
 * True when `x` is a whole number of pesewas exactly: `12.5` and `42.1` are, `0.30000000000000004` (what
 * `0.1 + 0.2` gives) is not. zod's `multipleOf(0.01)` allows a float error margin and let it through.
 */
export function isWholePesewas(x: number): boolean {
  const pesewas = Math.round(x * 100);
  return Number.isSafeInteger(pesewas) && pesewas / 100 === x;
}

/** An amount in cedis: at least 0.01, at most {@link MAX_AMOUNT}, whole pesewas. */
export const money = z
  .number()
  .finite()
  .min(0.01, 'must be at least 0.01')
  .max(MAX_AMOUNT, `must be at most ${MAX_AMOUNT.toLocaleString('en')}`)
  .refine(isWholePesewas, 'must have at most two decimals');

/** The merchant's order reference: it becomes the provider's `referenceNo` (plus `-N` per attempt). */
export const orderReference = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9._:-]+$/, 'must be letters, digits and . _ : -');

/** Default (and most) payment attempts one order allows. */
export const DEFAULT_MAX_ATTEMPTS = 3;
export const maxAttempts = z.number().int().min(1).max(10);

/** A token's lifetime in seconds, when the merchant picks one (900 by default). */
const expiresIn = z.number().int().min(30).max(86_400).optional();

/** The terms a payment token binds: the same fields when minted and when its claims are verified. */
export const paymentTerms = {
  amount: money,
  referenceNo: orderReference,
  narration: z.string().trim().min(1).max(140),
  /** Defaults to the configured PAYEE_NAME. */
  payee: z.string().trim().min(1).max(100).optional(),
  payer: z.string().trim().min(1).max(100).optional(),
  /** Locks the paying number when given (normalised to digits by the token service). */
  msisdn: z.string().trim().min(1).max(32).optional(),
  maxAttempts: maxAttempts.default(DEFAULT_MAX_ATTEMPTS),
};

/** What the merchant binds into a payment token (`proxy.tokens.payment(...)`, `POST /server/tokens/payment`). */
export const paymentTokenInput = z.strictObject({
  ...paymentTerms,
  /** Seconds; default 900. */
  expiresIn,
});
export type PaymentTokenInput = z.input<typeof paymentTokenInput>;

/** What the merchant binds into a checkout token (`proxy.tokens.checkout(...)`, `POST /server/tokens/checkout`). */
export const checkoutTokenInput = z.strictObject({
  title: z.string().trim().min(1).max(200),
  reference: z.string().trim().min(1).max(64),
  amount: money,
  description: z.string().trim().min(1).max(500),
  returnUrl: z.url({ protocol: /^https?$/ }),
  expiresIn,
});
export type CheckoutTokenInput = z.input<typeof checkoutTokenInput>;

/** What the merchant binds into an OTP token (`proxy.tokens.otp(...)`, `POST /server/tokens/otp`). */
export const otpTokenInput = z.strictObject({
  /** What the verification is for (`sign-in`, `checkout`…); the proof carries it and verifyOtpProof checks it. */
  purpose: z.string().trim().min(1).max(64),
  /** Locks the number that may be verified with this token. */
  recipient: z.string().trim().min(1).max(32).optional(),
  expiresIn,
});
export type OtpTokenInput = z.input<typeof otpTokenInput>;

/** 201 of `POST /server/tokens/*`: the element token and when it expires. */
export const mintedToken = z.object({ token: z.string(), expiresAt: z.iso.datetime() });
export type MintedToken = z.infer<typeof mintedToken>;

/** Body of `POST /server/otp-proofs/redeem`: the proof the page posted, and the purpose the backend expects. */
export const redeemOtpProofRequest = z.strictObject({
  proof: z.string().trim().min(1, 'is required').max(4_096, 'is too long'),
  purpose: z.string().trim().min(1, 'is required').max(64, 'is too long'),
});
export type RedeemOtpProofRequest = z.infer<typeof redeemOtpProofRequest>;

/** 200 of `POST /server/otp-proofs/redeem`: the verified number (E.164 digits without `+`) and its purpose. */
export const redeemOtpProofResponse = z.object({ msisdn: z.string(), purpose: z.string() });
export type RedeemOtpProofResponse = z.infer<typeof redeemOtpProofResponse>;

/** A path parameter of the server API's reads (an order reference, attempt reference or checkout id). */
export const serverLookupParam = z.string().min(1, 'is required').max(128, 'is too long');

/** One signed webhook as `GET /server/webhooks` lists it (times in ISO 8601). */
export const webhookDelivery = z.object({
  /** The `webhook-id` (the outbox id), the same on every try. */
  id: z.string(),
  type: z.string(),
  state: z.enum(['pending', 'delivered', 'dead']),
  createdAt: z.iso.datetime(),
  attempts: z.number().int().nonnegative(),
  nextAt: z.iso.datetime().nullable(),
  deliveredAt: z.iso.datetime().optional(),
  deadAt: z.iso.datetime().optional(),
  lastError: z.string().optional(),
  replayedAt: z.iso.datetime().optional(),
});

/**
 * The query of `GET /server/webhooks`: a state to list (all when absent), how many at most (1 to 1,000), and
 * where the page starts (the `next` of the page before).
 */
export const webhookListQuery = z.strictObject({
  state: z.enum(['pending', 'delivered', 'dead']).optional(),
  limit: z.coerce.number().int().min(1).max(1_000).optional(),
  cursor: z.string().min(1).max(512).optional(),
});

/** 200 of `GET /server/webhooks?state=&limit=&cursor=`: newest first; `next` is the cursor of the next page, null on the last. */
export const webhookList = z.object({ deliveries: z.array(webhookDelivery), next: z.string().nullable() });
export type WebhookList = z.infer<typeof webhookList>;

/** 202 of `POST /server/webhooks/:id/replay`: delivered again, with the same `webhook-id`. */
export const webhookReplayed = z.object({ id: z.string(), replayed: z.literal(true) });
export type WebhookReplayed = z.infer<typeof webhookReplayed>;

/** The body of `POST /server/webhooks/replay`: every dead (or delivered) webhook, recorded since a time when given. */
export const webhookBulkReplay = z.strictObject({
  state: z.enum(['dead', 'delivered']),
  since: z.iso.datetime({ offset: true }).optional(),
});

/** 202 of `POST /server/webhooks/replay`: the ids queued again, oldest first. */
export const webhookBulkReplayed = z.object({ replayed: z.array(z.string()) });

/** 202 of `POST /server/webhooks/retry`: every pending webhook is tried now; how many there were. */
export const webhookRetrying = z.object({ pending: z.number().int().nonnegative() });

/** An order whose money state is not final (`GET /server/orders/unresolved`): what is known of each open try and session. */
export const unresolvedOrder = z.object({
  orderReference: z.string(),
  /** An attempt reference the provider has with other terms than this order's, if any. */
  conflict: z.string().nullable(),
  tries: z.array(
    z.object({
      reference: z.string(),
      /** `sending`, `unknown` (its answer was lost) or `pending`. */
      phase: z.string(),
      status: z.string(),
      /** The number, masked. */
      msisdn: z.string(),
      referenceId: z.string().nullable(),
      sentAt: z.iso.datetime().nullable(),
    }),
  ),
  sessions: z.array(
    z.object({
      /** The session's number in the order (what a resolution names). */
      session: z.number().int().positive(),
      phase: z.string(),
      checkoutId: z.string().nullable(),
      status: z.string(),
      startedAt: z.iso.datetime(),
      expiresAt: z.string().nullable(),
    }),
  ),
});
export type UnresolvedOrder = z.infer<typeof unresolvedOrder>;

/** Query of `GET /server/orders/unresolved`. */
export const unresolvedOrdersQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(1_000).default(100) });

/** 200 of `GET /server/orders/unresolved?limit=`. */
export const unresolvedOrderList = z.object({ orders: z.array(unresolvedOrder) });
export type UnresolvedOrderList = z.infer<typeof unresolvedOrderList>;

/**
 * Body of `POST /server/orders/:reference/resolve`: the provider's word on one try or session of the order.
 * A `referenceId` or `checkoutId` from the provider's records is read and taken only if it is this order's;
 * `absent: true` says the provider's records have nothing for it (the try or session becomes void).
 */
export const orderResolution = z.union([
  z.strictObject({ reference: z.string().min(1).max(128), referenceId: z.string().trim().min(1).max(128) }),
  z.strictObject({ reference: z.string().min(1).max(128), absent: z.literal(true) }),
  z.strictObject({ session: z.number().int().positive(), checkoutId: z.string().trim().min(1).max(128) }),
  z.strictObject({ session: z.number().int().positive(), absent: z.literal(true) }),
]);
export type OrderResolution = z.infer<typeof orderResolution>;
