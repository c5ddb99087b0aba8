import { z } from 'zod';

/** The only `x-api-version` the messaging interface accepts. */
export const API_VERSION = '2025-08-01';

/** ISO 8601 date-time with offset (the provider answers `Z` or an offset). */
export const isoDateTime = z.iso.datetime({ offset: true });

/** A phone number as the provider takes it: digits only, no `+` prefix, 8 to 15 digits (E.164 length). */
export const phoneNumber = z
  .string()
  .regex(/^\d{8,15}$/, 'must be 8 to 15 digits, without a + prefix');

/** Error body of the messaging and checkout interfaces (and the error examples of other endpoints). */
export const providerErrorBody = z.object({
  error: z.string().min(1),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).default({}),
});
export type ProviderErrorBody = z.infer<typeof providerErrorBody>;

/** Error codes that the specification names. Others are the sandbox's documented choices (see sandbox/errors). */
export const SPEC_ERROR_CODES = ['INVALID_PHONE_NUMBER', 'INSUFFICIENT_FUNDS', 'INVALID_AMOUNT'] as const;

/**
 * Common response envelope of the messaging interface, parameterised by its `statusCode`
 * (integer 201 on SMS send/bulk/resend, string "200" elsewhere), its `sequenceNo` and `data`.
 */
export function messagingEnvelope<
  S extends z.ZodType,
  Q extends z.ZodType,
  D extends z.ZodType,
>(statusCode: S, sequenceNo: Q, data: D) {
  return z.object({
    statusCode,
    statusMessage: z.string(),
    transactionId: z.string(),
    sequenceNo,
    data,
    timestamp: isoDateTime,
  });
}

/** A hypermedia link of the payment gateway envelope. */
export const gatewayLink = z.object({ rel: z.string(), href: z.string() });

/** Four-character statusCode values of the payment gateway. */
export const GATEWAY_STATUS = {
  SUCCESSFUL: '0000',
  PENDING: '0001',
  BAD_REQUEST: '0400',
  UNAUTHORIZED: '0401',
  NOT_FOUND: '0404',
} as const;

/** Payment gateway envelope on success: `data` present, `links` as the gateway gives them. */
export function gatewayEnvelope<C extends z.ZodType, D extends z.ZodType>(statusCode: C, data: D) {
  return z.object({
    statusCode,
    statusMessage: z.string(),
    transactionId: z.string().nullable(),
    sequenceNo: z.string().nullable().optional(),
    data,
    links: z.array(gatewayLink),
  });
}

/** Payment gateway error envelope: `0400`, `0401` or `0404`, with transactionId null, data null and links []. */
export const gatewayErrorEnvelope = z.object({
  statusCode: z.enum([GATEWAY_STATUS.BAD_REQUEST, GATEWAY_STATUS.UNAUTHORIZED, GATEWAY_STATUS.NOT_FOUND]),
  statusMessage: z.string(),
  transactionId: z.null(),
  sequenceNo: z.string().nullable().optional(),
  data: z.null(),
  links: z.array(gatewayLink).length(0),
});
export type GatewayErrorEnvelope = z.infer<typeof gatewayErrorEnvelope>;
