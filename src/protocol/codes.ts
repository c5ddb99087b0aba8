// Plain constants of the protocol, free of zod, so browser code can import them without shipping a
// schema library (the elements' size budget). The zod schemas in errors.ts and schemas.ts build on these.

/**
 * Stable error codes of the browser-to-proxy protocol (DESIGN.md). Every error the proxy answers has the
 * provider's own error shape: `{ error, message, details }`.
 */
export const PROXY_ERROR_CODES = [
  'INVALID_INPUT',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'ORIGIN_NOT_ALLOWED',
  'RATE_LIMITED',
  'OTP_INVALID',
  'OTP_EXPIRED',
  'OTP_LOCKED',
  'INVALID_PHONE_NUMBER',
  'ACCOUNT_NOT_FOUND',
  'INSUFFICIENT_FUNDS',
  'PAYMENT_FAILED',
  'ATTEMPTS_EXHAUSTED',
  // Money rules (DESIGN: payment attempts and money safety), all 409:
  // a token whose terms (amount, currency, payee, narration, locked number) differ from the order's payment;
  'ORDER_CHANGED',
  // a request naming another number while the order's payment waits on one (details.msisdn, masked);
  'PAYMENT_IN_PROGRESS',
  // the order is being (or was) paid the other way (details.method 'checkout' | 'mobile-money', details.status).
  'ORDER_IN_OTHER_PAYMENT',
  // an earlier try of the order (either way) is not read final yet: its money state is unknown, so nothing
  // new may start (details.method, details.status, details.reference); retryable once it is read.
  'PAYMENT_UNCONFIRMED',
  // the provider already has a payment under this order's reference with other terms (another shop on the
  // same provider account, or the reference reused at another price): nothing is adopted, the log says more.
  'REFERENCE_CONFLICT',
  'HUMAN_CHECK_FAILED',
  'NOT_FOUND',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  // Transport-level refusals of the hardening rules (415, 413) and the last-resort 500; same shape.
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INTERNAL',
  // Server API (the merchant's backend, never a browser): a missing or wrong server key (401); the API is
  // off because no server key is configured (503); an OTP proof redeemed a second time (409).
  'SERVER_KEY_INVALID',
  'SERVER_API_DISABLED',
  'PROOF_USED',
] as const;
export type ProxyErrorCode = (typeof PROXY_ERROR_CODES)[number];

/** Codes after which the same request may succeed if tried again later. */
export const RETRYABLE_CODES: readonly ProxyErrorCode[] = ['RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'PAYMENT_UNCONFIRMED', 'INTERNAL'];

/**
 * The proxy's view of a payment: the provider's four statuses, plus
 * - TIMED_OUT: the page stopped waiting at the relay's deadline. Not a money state: the proxy keeps reading
 *   the attempt (24 h by default), a late outcome still follows, and no new attempt opens meanwhile;
 * - UNKNOWN: the request was sent but its answer was lost, and the provider's status read cannot find it
 *   (a provider that reads status by `referenceId` only): the money state stays unknown until a callback or
 *   the shop's operator settles it. Not final: the page keeps watching, and nothing new starts meanwhile;
 * - VOID: the attempt certainly never reached the provider (nothing was charged; it uses up no attempt).
 */
export const PAYMENT_VIEW_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'UNKNOWN', 'VOID'] as const;
export type PaymentViewStatus = (typeof PAYMENT_VIEW_STATUSES)[number];
/** Statuses after which a page stops watching (TIMED_OUT included: a late outcome is read by reloading). */
export const FINAL_PAYMENT_VIEW_STATUSES: readonly PaymentViewStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'VOID'];
/** Statuses that never change again: the money's own end states (TIMED_OUT is not one). */
export const SETTLED_PAYMENT_STATUSES: readonly PaymentViewStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'VOID'];

/** Checkout statuses as the proxy relays them (the provider's status-read values). */
export const CHECKOUT_VIEW_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type CheckoutViewStatus = (typeof CHECKOUT_VIEW_STATUSES)[number];
export const FINAL_CHECKOUT_VIEW_STATUSES: readonly CheckoutViewStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

export const DELIVERY_STATUSES = ['DELIVERED', 'UNDELIVERED', 'REJECTED', 'EXPIRED', 'ACCEPTED'] as const;
export type OtpDeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const PIN_TYPES = ['NUMERIC', 'ALPHANUMERIC', 'ALPHABETIC'] as const;
export type OtpPinType = (typeof PIN_TYPES)[number];
