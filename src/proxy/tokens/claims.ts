import { z } from 'zod';
import { money, paymentTerms } from '../../protocol/server-schemas.js';

// The minting inputs are the server API's bodies too: defined once, in the protocol.
export {
  MAX_AMOUNT,
  checkoutTokenInput,
  isWholePesewas,
  otpTokenInput,
  paymentTokenInput,
  type CheckoutTokenInput,
  type OtpTokenInput,
  type PaymentTokenInput,
} from '../../protocol/server-schemas.js';

/** Token scopes: one per element, plus the proof an OTP success returns. */
export const TOKEN_SCOPES = ['otp', 'payment', 'checkout', 'otp-proof'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

// Verification schemas (docs/tokens.md is their prose). A token may be minted by another language with the
// shared secret, so every bound field is checked as strictly as the minting input checks it, and what the
// Node minting API defaults (payee, maxAttempts) is optional here with the same default: the proxy decides
// the same thing whoever minted the token. Unknown claims are ignored (`nbf`, `iss`, `sub` on an element token).

/** Claims every token carries besides its bound fields; `iat` is optional (nothing reads it). */
const base = {
  jti: z.string().min(1).max(128),
  exp: z.number().int(),
  iat: z.number().int().optional(),
  aud: z.union([z.string(), z.array(z.string())]),
};

export const paymentClaims = z.object({
  ...base,
  scope: z.literal('payment'),
  // The token service fills in the configured PAYEE_NAME when absent and normalises msisdn (a hand-minted
  // token may carry a local form).
  ...paymentTerms,
});
/** A verified payment token's claims: `payee` always set (from the token, else the configured payee). */
export type PaymentClaims = Omit<z.output<typeof paymentClaims>, 'payee'> & { payee: string };

export const checkoutClaims = z.object({
  ...base,
  scope: z.literal('checkout'),
  title: z.string().trim().min(1).max(200),
  reference: z.string().trim().min(1).max(64),
  amount: money,
  description: z.string().trim().min(1).max(500),
  returnUrl: z.url({ protocol: /^https?$/ }),
});
export type CheckoutClaims = z.output<typeof checkoutClaims>;

export const otpClaims = z.object({
  ...base,
  scope: z.literal('otp'),
  purpose: z.string().trim().min(1).max(64),
  /** Normalised to digits by the token service. */
  recipient: z.string().trim().min(1).max(32).optional(),
});
export type OtpClaims = z.output<typeof otpClaims>;

export const otpProofClaims = z.object({
  ...base,
  scope: z.literal('otp-proof'),
  /** The verified number (digits, E.164 without +). */
  sub: z.string().min(1),
  purpose: z.string().min(1),
});
export type OtpProofClaims = z.output<typeof otpProofClaims>;
