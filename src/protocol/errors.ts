import { z } from 'zod';
import { PROXY_ERROR_CODES } from './codes.js';

export const proxyErrorCode = z.enum(PROXY_ERROR_CODES);

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
