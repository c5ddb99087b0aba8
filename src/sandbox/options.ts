import { z } from 'zod';

/** Kinds of fault the sandbox can inject (DESIGN: "faults"). */
export const FAULT_KINDS = ['latency', '500', '502', '503', 'hang', 'reset', 'malformed'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const sandboxOptionsSchema = z.strictObject({
  /** Messaging credentials (`x-api-key` / `x-api-secret`). */
  apiKey: z.string().min(1).default('test-api-key'),
  apiSecret: z.string().min(1).default('test-api-secret'),
  /** Keys accepted on messaging but refused the balance read (403), to exercise that path. */
  keysWithoutBalancePermission: z.array(z.string()).default(['test-limited-key']),
  /** Secret of the limited key above. */
  limitedKeySecret: z.string().default('test-limited-secret'),
  /** Payment gateway HTTP Basic credentials. */
  paymentUsername: z.string().min(1).default('test-user'),
  paymentPassword: z.string().min(1).default('test-password'),
  /** Checkout Bearer key. */
  checkoutApiKey: z.string().min(1).default('test-checkout-key'),
  /**
   * Multiplies every delay and expiry (payments settling, receipts, OTP expiry, checkout expiry,
   * email rate window). 1 is real time; 0.01 makes everything 100 times faster.
   */
  timeScale: z.number().positive().max(1000).default(1),
  /** Fault injection by rate: each request draws a fault with this probability (0 = never, the default). */
  faultRate: z.number().min(0).max(1).default(0),
  /** Which faults the rate draws from. */
  faultKinds: z.array(z.enum(FAULT_KINDS)).default([...FAULT_KINDS]),
  /** Added delay for the `latency` fault, in real milliseconds (not scaled). */
  faultLatencyMs: z.number().int().nonnegative().default(2_000),
  /** How long a `hang` holds the request before dropping it, in real milliseconds (past any sane client timeout). */
  hangMs: z.number().int().positive().default(30_000),
  /**
   * Which reference the payment status path takes (the specification does not say): `either` (the sandbox's
   * default: `referenceId` or `referenceNo`), or only one of them, to try a proxy against either answer.
   */
  statusReference: z.enum(['either', 'referenceNo', 'referenceId']).default('either'),
  /**
   * Whether the checkout interface lists its sessions by reference (`GET /v1/checkout/reference/{reference}/
   * sessions`, not in the specification). Off, that path answers 404 like any unknown path.
   */
  checkoutListing: z.boolean().default(true),
  /** Starting local and international credit of the account. */
  initialCredit: z.number().nonnegative().default(1_000),
  initialIntlCredit: z.number().nonnegative().default(100),
  /** Public origin of the sandbox, used in `checkoutUrl` (defaults to the request's own host). */
  publicUrl: z.url().optional(),
  /** Email sends allowed per key per (scaled) minute; the next is a 429 with Retry-After. */
  emailRatePerMinute: z.number().int().positive().default(5),
  /**
   * Where payment status callbacks go (the specification does not say how a callbackId's target is
   * registered): a URL template containing `{callbackId}`, e.g.
   * `http://localhost:3000/merchant-elements/callbacks/payments/{callbackId}`. When set, the sandbox POSTs
   * `{ callbackId, referenceId, referenceNo, status }` there once, when a payment reaches a final state.
   */
  paymentCallbackUrl: z
    .string()
    .refine((t) => t.includes('{callbackId}'), 'must contain {callbackId}')
    .refine((t) => URL.canParse(t.replaceAll('{callbackId}', 'x')), 'must be an absolute URL')
    .optional(),
});

export type SandboxOptions = z.input<typeof sandboxOptionsSchema>;
export type ResolvedSandboxOptions = z.output<typeof sandboxOptionsSchema>;

/** Reads the overridable defaults from the environment (same variable names as the proxy's). */
export function sandboxOptionsFromEnv(env: NodeJS.ProcessEnv): SandboxOptions {
  const out: SandboxOptions = {};
  if (env.SANDBOX_API_KEY) out.apiKey = env.SANDBOX_API_KEY;
  if (env.SANDBOX_API_SECRET) out.apiSecret = env.SANDBOX_API_SECRET;
  if (env.SANDBOX_PAYMENT_USERNAME) out.paymentUsername = env.SANDBOX_PAYMENT_USERNAME;
  if (env.SANDBOX_PAYMENT_PASSWORD) out.paymentPassword = env.SANDBOX_PAYMENT_PASSWORD;
  if (env.SANDBOX_CHECKOUT_API_KEY) out.checkoutApiKey = env.SANDBOX_CHECKOUT_API_KEY;
  if (env.SANDBOX_TIME_SCALE) out.timeScale = Number(env.SANDBOX_TIME_SCALE);
  if (env.SANDBOX_PAYMENT_CALLBACK_URL) out.paymentCallbackUrl = env.SANDBOX_PAYMENT_CALLBACK_URL;
  const statusReference = env.SANDBOX_STATUS_REFERENCE;
  if (statusReference === 'either' || statusReference === 'referenceNo' || statusReference === 'referenceId') out.statusReference = statusReference;
  if (env.SANDBOX_CHECKOUT_LISTING === 'false') out.checkoutListing = false;
  return out;
}
