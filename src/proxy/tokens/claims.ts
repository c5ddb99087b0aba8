import { z } from 'zod';

/** Token scopes: one per element, plus the proof an OTP success returns. */
export const TOKEN_SCOPES = ['otp', 'payment', 'checkout', 'otp-proof'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

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

const money = z
  .number()
  .finite()
  .min(0.01, 'must be at least 0.01')
  .max(MAX_AMOUNT, `must be at most ${MAX_AMOUNT.toLocaleString('en')}`)
  .refine(isWholePesewas, 'must have at most two decimals');

/** What the merchant binds into a payment token (`proxy.tokens.payment(...)`). */
export const paymentTokenInput = z.strictObject({
  amount: money,
  referenceNo: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9._:-]+$/, 'must be letters, digits and . _ : -'),
  narration: z.string().trim().min(1).max(140),
  /** Defaults to the configured PAYEE_NAME. */
  payee: z.string().trim().min(1).max(100).optional(),
  payer: z.string().trim().min(1).max(100).optional(),
  /** Locks the paying number when given. */
  msisdn: z.string().trim().min(1).max(32).optional(),
  maxAttempts: z.number().int().min(1).max(10).default(3),
  /** Seconds; default 900. */
  expiresIn: z.number().int().min(30).max(86_400).optional(),
});
export type PaymentTokenInput = z.input<typeof paymentTokenInput>;

export const checkoutTokenInput = z.strictObject({
  title: z.string().trim().min(1).max(200),
  reference: z.string().trim().min(1).max(64),
  amount: money,
  description: z.string().trim().min(1).max(500),
  returnUrl: z.url({ protocol: /^https?$/ }),
  expiresIn: z.number().int().min(30).max(86_400).optional(),
});
export type CheckoutTokenInput = z.input<typeof checkoutTokenInput>;

export const otpTokenInput = z.strictObject({
  /** What the verification is for (`sign-in`, `checkout`…); the proof carries it and verifyOtpProof checks it. */
  purpose: z.string().trim().min(1).max(64),
  /** Locks the number that may be verified with this token. */
  recipient: z.string().trim().min(1).max(32).optional(),
  expiresIn: z.number().int().min(30).max(86_400).optional(),
});
export type OtpTokenInput = z.input<typeof otpTokenInput>;

/** Claims every token carries besides its bound fields. */
const base = { jti: z.string().min(1), exp: z.number().int(), iat: z.number().int(), aud: z.string() };

export const paymentClaims = z.object({
  ...base,
  scope: z.literal('payment'),
  amount: z.number(),
  referenceNo: z.string(),
  narration: z.string(),
  payee: z.string(),
  payer: z.string().optional(),
  msisdn: z.string().optional(),
  maxAttempts: z.number().int(),
});
export type PaymentClaims = z.infer<typeof paymentClaims>;

export const checkoutClaims = z.object({
  ...base,
  scope: z.literal('checkout'),
  title: z.string(),
  reference: z.string(),
  amount: z.number(),
  description: z.string(),
  returnUrl: z.string(),
});
export type CheckoutClaims = z.infer<typeof checkoutClaims>;

export const otpClaims = z.object({
  ...base,
  scope: z.literal('otp'),
  purpose: z.string(),
  recipient: z.string().optional(),
});
export type OtpClaims = z.infer<typeof otpClaims>;

export const otpProofClaims = z.object({
  ...base,
  scope: z.literal('otp-proof'),
  /** The verified number (digits, E.164 without +). */
  sub: z.string(),
  purpose: z.string(),
});
export type OtpProofClaims = z.infer<typeof otpProofClaims>;
