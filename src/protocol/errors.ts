import { z } from 'zod';

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
  'NOT_FOUND',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  // Transport-level refusals the hardening rules produce (415, 413, 405); same shape.
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'ATTEMPTS_EXHAUSTED',
  'HUMAN_CHECK_FAILED',
  'INTERNAL',
] as const;
export const proxyErrorCode = z.enum(PROXY_ERROR_CODES);
export type ProxyErrorCode = z.infer<typeof proxyErrorCode>;

/** Codes after which the same request may succeed if tried again later. */
export const RETRYABLE_CODES: readonly ProxyErrorCode[] = ['RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'INTERNAL'];

export const fieldProblem = z.object({ path: z.string(), message: z.string() });

export const proxyErrorBody = z.object({
  error: proxyErrorCode,
  message: z.string(),
  details: z
    .object({
      /** INVALID_INPUT: each bad field and what is wrong with it. */
      fields: z.array(fieldProblem).optional(),
      /** RATE_LIMITED (and OTP_LOCKED): seconds until a retry may succeed. */
      retryAfter: z.number().int().nonnegative().optional(),
      /** OTP_INVALID: wrong tries left on this code. */
      attemptsLeft: z.number().int().nonnegative().optional(),
      /** UPSTREAM_UNAVAILABLE and friends: true when the same call may be made again. */
      retryable: z.boolean().optional(),
    })
    .loose()
    .default({}),
});
export type ProxyErrorBody = z.infer<typeof proxyErrorBody>;
