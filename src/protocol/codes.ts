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
  'HUMAN_CHECK_FAILED',
  'NOT_FOUND',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  // Transport-level refusals of the hardening rules (415, 413) and the last-resort 500; same shape.
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INTERNAL',
] as const;
export type ProxyErrorCode = (typeof PROXY_ERROR_CODES)[number];

/** Codes after which the same request may succeed if tried again later. */
export const RETRYABLE_CODES: readonly ProxyErrorCode[] = ['RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'INTERNAL'];

/** The proxy's view of a payment: the provider's four statuses, plus TIMED_OUT once the relay's deadline passed. */
export const PAYMENT_VIEW_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;
export type PaymentViewStatus = (typeof PAYMENT_VIEW_STATUSES)[number];
export const FINAL_PAYMENT_VIEW_STATUSES: readonly PaymentViewStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/** Checkout statuses as the proxy relays them (the provider's status-read values). */
export const CHECKOUT_VIEW_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type CheckoutViewStatus = (typeof CHECKOUT_VIEW_STATUSES)[number];
export const FINAL_CHECKOUT_VIEW_STATUSES: readonly CheckoutViewStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

export const DELIVERY_STATUSES = ['DELIVERED', 'UNDELIVERED', 'REJECTED', 'EXPIRED', 'ACCEPTED'] as const;
export type OtpDeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const PIN_TYPES = ['NUMERIC', 'ALPHANUMERIC', 'ALPHABETIC'] as const;
export type OtpPinType = (typeof PIN_TYPES)[number];
