import { z } from 'zod';

// The rate-limit part of the proxy configuration (DESIGN: default policies), apart from config.ts.

/** One rate-limit policy: `points` allowed per `durationSec`, optionally blocking for `blockDurationSec` after. */
export const limitPolicy = z.strictObject({
  points: z.number().int().positive(),
  durationSec: z.number().int().positive(),
  blockDurationSec: z.number().int().nonnegative().optional(),
});
export type LimitPolicy = z.infer<typeof limitPolicy>;

/** DESIGN's default policies; each may be overridden by `config.limits`. */
export const DEFAULT_LIMITS = {
  /** OTP sends allowed on one token (over the longest token lifetime). */
  otpSendPerToken: { points: 5, durationSec: 86_400 },
  otpSendPerIp: { points: 10, durationSec: 3_600 },
  otpSendPerNumberShort: { points: 3, durationSec: 600 },
  otpSendPerNumberDay: { points: 5, durationSec: 86_400 },
  /** One send per number per window: the cooldown between sends. */
  otpSendCooldown: { points: 1, durationSec: 60 },
  /** Sends per number prefix (the number less its last 4 digits): the SMS-pumping velocity cap. */
  otpSendPerPrefix: { points: 10, durationSec: 3_600 },
  /** Failed code checks per number; the number is locked for the rest of the window after. */
  otpVerifyFailuresPerNumber: { points: 10, durationSec: 3_600 },
  accountLookupPerToken: { points: 10, durationSec: 86_400 },
  accountLookupPerIp: { points: 30, durationSec: 600 },
  /** Open status streams per token and address. */
  streamsPerClient: { points: 3, durationSec: 3_600 },
  /**
   * Open status streams per address whatever the token (`points`; the window is unused): room for a
   * carrier's shared address or an office, not for one page reloaded two hundred times.
   */
  streamsPerAddress: { points: 30, durationSec: 3_600 },
  /** Payment prompts sent to one number per hour, whatever the order (against prompt spam). */
  paymentPromptsPerNumber: { points: 10, durationSec: 3_600 },
  /** Payments of any orders unsettled at once on one number (`points`; the window is unused). */
  paymentsInFlightPerNumber: { points: 2, durationSec: 3_600 },
  /** Wrong server keys per address (server API); past it every server call from there is 429 for the window. */
  serverKeyFailuresPerIp: { points: 20, durationSec: 600 },
} satisfies Record<string, LimitPolicy>;
export type LimitName = keyof typeof DEFAULT_LIMITS;

export const limitsSchema = z
  .strictObject(Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((k) => [k, limitPolicy.optional()])) as {
    [K in LimitName]: z.ZodOptional<typeof limitPolicy>;
  })
  .default({})
  .transform((given) => ({ ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v)) }) as Record<LimitName, LimitPolicy>);
