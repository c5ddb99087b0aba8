import type { ProxyErrorCode } from './codes.js';

/**
 * The HTTP status the proxy answers with each error code: part of the contract (the OpenAPI document and
 * docs/troubleshooting.md are generated from it). Apart from codes.ts, which browser code imports: the
 * elements read the code, never the status, and their size budget pays for nothing they do not use.
 */
export const ERROR_STATUS: Readonly<Record<ProxyErrorCode, number>> = {
  INVALID_INPUT: 400,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  ORIGIN_NOT_ALLOWED: 403,
  RATE_LIMITED: 429,
  OTP_INVALID: 400,
  OTP_EXPIRED: 410,
  OTP_LOCKED: 423,
  INVALID_PHONE_NUMBER: 400,
  ACCOUNT_NOT_FOUND: 404,
  INSUFFICIENT_FUNDS: 402,
  PAYMENT_FAILED: 402,
  ATTEMPTS_EXHAUSTED: 409,
  ORDER_CHANGED: 409,
  PAYMENT_IN_PROGRESS: 409,
  ORDER_IN_OTHER_PAYMENT: 409,
  PAYMENT_UNCONFIRMED: 409,
  REFERENCE_CONFLICT: 409,
  HUMAN_CHECK_FAILED: 403,
  NOT_FOUND: 404,
  UPSTREAM_UNAVAILABLE: 503,
  UPSTREAM_ERROR: 502,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL: 500,
  SERVER_KEY_INVALID: 401,
  SERVER_API_DISABLED: 503,
  PROOF_USED: 409,
};
