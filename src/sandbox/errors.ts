import type { Response } from 'express';
import { GATEWAY_STATUS, type GatewayErrorEnvelope, type ProviderErrorBody } from '../provider/schemas/index.js';
import type { z } from 'zod';

/**
 * Error codes the sandbox answers beyond the three the specification names (documented in the README's
 * table of sandbox choices). Each is paired with its HTTP status where it is used.
 */
export const SANDBOX_ERROR_CODES = {
  VALIDATION_ERROR: 400, // a field missing, of the wrong type, or unknown; details.fields lists them
  INVALID_PHONE_NUMBER: 400,
  INVALID_AMOUNT: 400,
  MESSAGE_TOO_LONG: 400, // message over 1600 characters
  TOO_MANY_RECIPIENTS: 400, // email to/cc/bcc over 150, bulk over 1,000 messages
  INVALID_PIN_LENGTH: 400,
  INVALID_RETRIES: 400,
  INVALID_OTP: 400, // wrong, expired, spent or replaced code
  MISSING_API_VERSION: 400, // email without x-api-version, or any other value than 2025-08-01
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  EMAIL_SERVICE_UNAVAILABLE: 502,
  INSUFFICIENT_CREDIT: 400, // SMS credit (or intlCredit when isGlobal) does not cover every segment; nothing is sent
  INTERNAL_ERROR: 500,
  CONFLICT: 409, // phone page: approve or decline of a payment that is no longer PENDING
  BAD_GATEWAY: 502, // injected fault 502 on messaging and checkout
  SERVICE_UNAVAILABLE: 503, // injected fault 503 on messaging and checkout
} as const;
export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_CODES | 'INSUFFICIENT_FUNDS';

/** Sends the messaging/checkout error body `{ error, message, details }`. */
export function sendError(
  res: Response,
  status: number,
  error: SandboxErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): void {
  const body: ProviderErrorBody = { error, message, details };
  res.status(status).json(body);
}

/** Sends a payment gateway error envelope (transactionId null, data null, links []). */
export function sendGatewayError(
  res: Response,
  statusCode: GatewayErrorEnvelope['statusCode'],
  statusMessage: string,
): void {
  const http = statusCode === GATEWAY_STATUS.UNAUTHORIZED ? 401 : statusCode === GATEWAY_STATUS.NOT_FOUND ? 404 : 400;
  const body: GatewayErrorEnvelope = { statusCode, statusMessage, transactionId: null, data: null, links: [] };
  res.status(http).json(body);
}

/** Lists each bad field of a zod error as `{ path, message }`. */
export function fieldsOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
}
