import { hash, randomBytes } from 'node:crypto';
import { SignJWT, errors as joseErrors } from 'jose';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { BoundedMap } from '../bounded-map.js';
import { ProxyError, parseInput } from '../errors.js';
import { normalisePhone } from '../phone.js';
import type { ProxyStore } from '../store/types.js';
import { tokenKeyRing, verifyWithKeys } from './keys.js';
import {
  type CheckoutClaims,
  type CheckoutTokenInput,
  type OtpClaims,
  type OtpProofClaims,
  type OtpTokenInput,
  type PaymentClaims,
  type PaymentTokenInput,
  type TokenScope,
  checkoutClaims,
  checkoutTokenInput,
  otpClaims,
  otpProofClaims,
  otpTokenInput,
  paymentClaims,
  paymentTokenInput,
} from './claims.js';

/** The only algorithm tokens are signed and verified with. */
export const TOKEN_ALGORITHM = 'HS256';
/** Default lifetime of an element token, in seconds. */
export const DEFAULT_TOKEN_TTL_SEC = 15 * 60;
/** Lifetime of an OTP proof, in seconds. */
export const PROOF_TTL_SEC = 10 * 60;

/** The claims of each scope. */
export interface ClaimsByScope {
  otp: OtpClaims;
  payment: PaymentClaims;
  checkout: CheckoutClaims;
  'otp-proof': OtpProofClaims;
}

const CLAIM_SCHEMAS: { [S in TokenScope]: z.ZodType<unknown> } = {
  otp: otpClaims,
  payment: paymentClaims,
  checkout: checkoutClaims,
  'otp-proof': otpProofClaims,
};

/**
 * How many verified element tokens the service remembers. A page sends its one token with every call
 * (send, verify, status reads, SSE reconnects), so a repeat skips the HMAC and the claim checks; the
 * entry is keyed by the SHA-256 of the whole token string, signature included, so only the very bytes
 * verified before hit it, and the expiry is checked again on every hit. Keyed by the digest rather than the
 * token: a token is some hundreds of bytes, and a flash sale's ten thousand status streams each leave one
 * entry behind (`npx tsx bench/sections/scale-heap.ts`).
 */
export const VERIFIED_CACHE_SIZE = 10_000;

/** What a successful `verifyOtpProof` tells the merchant. */
export interface VerifiedOtpProof {
  /** The verified number (E.164 digits without `+`). */
  recipient: string;
  purpose: string;
}

/** Mints and verifies element tokens and OTP proofs. */
export interface TokenService {
  /** Mints an OTP element token (`purpose`, optional `recipient` locking the number). */
  otp(input: OtpTokenInput): Promise<string>;
  /** Mints a payment element token; `payee` defaults to the configured payee name. */
  payment(input: PaymentTokenInput): Promise<string>;
  /** Mints a checkout element token. */
  checkout(input: CheckoutTokenInput): Promise<string>;
  /** Mints the proof returned after a successful OTP validation. */
  proof(input: VerifiedOtpProof): Promise<string>;
  /** Verifies a token of one scope; throws ProxyError TOKEN_INVALID or TOKEN_EXPIRED. */
  verify<S extends TokenScope>(token: string, scope: S): Promise<ClaimsByScope[S]>;
  /**
   * Verifies an OTP proof for a purpose, once: the first call resolves, any later call with the same
   * proof throws TOKEN_INVALID (single use across instances through the store).
   */
  verifyOtpProof(proof: string, expected: { purpose: string }): Promise<VerifiedOtpProof>;
  /**
   * As verifyOtpProof, with refusals the server API can tell apart: TOKEN_INVALID (400) with
   * `details.reason` `invalid`, `expired` or `purpose`; PROOF_USED (409) for a proof already redeemed.
   */
  redeemOtpProof(proof: string, expected: { purpose: string }): Promise<VerifiedOtpProof>;
}

export interface TokenServiceOptions {
  /** Signs every token and proof, and verifies them. */
  secret: string;
  /** Other secrets that verify and never sign (a rotation's next or previous secret: see keys.ts). */
  acceptedSecrets?: readonly string[];
  audience: string;
  payeeName: string;
  defaultCountry: string;
  store: ProxyStore;
  now: () => number;
  /** Where a refused token is logged, with the reason and the name of each missing or wrong claim. */
  logger?: Logger;
}

/** Why a token was refused, for the log line (never the token itself). */
interface Refusal {
  scope: TokenScope;
  reason: string;
  /** Each missing or wrong claim and what is wrong with it. */
  claims?: { claim: string; problem: string }[];
}

/** The claims a zod failure names, each with its problem (`is missing` when the token lacks it). */
function claimProblems(payload: unknown, issues: readonly z.core.$ZodIssue[]): { claim: string; problem: string }[] {
  const present = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {};
  return issues.map((issue) => {
    const claim = issue.path.map(String).join('.') || '(payload)';
    const top = String(issue.path[0] ?? '');
    return { claim, problem: top && !(top in present) ? 'is missing' : issue.message };
  });
}

/** The reason and claim of a jose refusal (signature, algorithm, audience, a required claim missing). */
function joseRefusal(err: unknown): Omit<Refusal, 'scope'> {
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    return { reason: 'claims', claims: [{ claim: err.claim, problem: err.reason === 'missing' ? 'is missing' : `failed its check (${err.message})` }] };
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return { reason: 'signature (another PROXY_TOKEN_SECRET?)' };
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return { reason: `algorithm (only ${TOKEN_ALGORITHM})` };
  return { reason: 'malformed' };
}

/** Builds the token service (HS256 with `jose`, algorithm pinned on verification). */
export function createTokenService(options: TokenServiceOptions): TokenService {
  const keys = tokenKeyRing(options.secret, options.acceptedSecrets);
  const nowSec = () => Math.floor(options.now() / 1000);
  const refused = ({ scope, reason, claims }: Refusal) => {
    const named = claims?.length ? `: ${claims.map((c) => `claim ${c.claim} ${c.problem}`).join('; ')}` : '';
    options.logger?.warn({ tokenRefused: { scope, reason, claims: claims?.map((c) => c.claim) } }, `${scope} token refused (${reason})${named}`);
  };
  const verified = new BoundedMap<string, { scope: TokenScope; claims: Readonly<{ exp: number }> }>(VERIFIED_CACHE_SIZE);

  async function sign(scope: TokenScope, claims: Record<string, unknown>, ttlSec: number, sub?: string) {
    const iat = nowSec();
    const jwt = new SignJWT({ ...claims, scope })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT', kid: keys.current.kid })
      .setAudience(options.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSec)
      .setJti(randomBytes(16).toString('base64url'));
    if (sub) jwt.setSubject(sub);
    return jwt.sign(await keys.current.key);
  }

  /** Bound numbers are normalised at minting, so routes compare digits with digits. */
  function bindNumber(value: string | undefined, field: string): string | undefined {
    if (value === undefined) return undefined;
    try {
      return normalisePhone(value, options.defaultCountry).digits;
    } catch {
      throw new ProxyError('INVALID_INPUT', 'The token input is not valid.', {
        fields: [{ path: field, message: 'is not a valid phone number' }],
      });
    }
  }

  /**
   * What minting does to a bound field, done again to a verified token's (another language may have minted
   * it): `payee` defaults to the configured payee, a bound number is normalised to digits. A number that is
   * not one refuses the token, naming the claim.
   */
  function bindClaims(scope: TokenScope, claims: Record<string, unknown>): Record<string, unknown> {
    if (scope === 'payment' && claims.payee === undefined) claims.payee = options.payeeName;
    const field = scope === 'payment' ? 'msisdn' : scope === 'otp' ? 'recipient' : undefined;
    if (field && typeof claims[field] === 'string') {
      try {
        claims[field] = normalisePhone(claims[field], options.defaultCountry).digits;
      } catch {
        refused({ scope, reason: 'claims', claims: [{ claim: field, problem: 'is not a valid phone number' }] });
        throw new ProxyError('TOKEN_INVALID', 'The token of this page is not valid.');
      }
    }
    return claims;
  }

  const service: TokenService = {
    async otp(input) {
      const { expiresIn, recipient, ...rest } = parseInput(otpTokenInput, input);
      const bound = bindNumber(recipient, 'recipient');
      return sign('otp', { ...rest, ...(bound ? { recipient: bound } : {}) }, expiresIn ?? DEFAULT_TOKEN_TTL_SEC);
    },

    async payment(input) {
      const { expiresIn, msisdn, payee, ...rest } = parseInput(paymentTokenInput, input);
      const bound = bindNumber(msisdn, 'msisdn');
      return sign(
        'payment',
        { ...rest, payee: payee ?? options.payeeName, ...(bound ? { msisdn: bound } : {}) },
        expiresIn ?? DEFAULT_TOKEN_TTL_SEC,
      );
    },

    async checkout(input) {
      const { expiresIn, ...rest } = parseInput(checkoutTokenInput, input);
      return sign('checkout', rest, expiresIn ?? DEFAULT_TOKEN_TTL_SEC);
    },

    async proof({ recipient, purpose }) {
      return sign('otp-proof', { purpose }, PROOF_TTL_SEC, recipient);
    },

    async verify(token, scope) {
      const digest = hash('sha256', token, 'base64url');
      const known = verified.get(digest);
      if (known) {
        if (known.claims.exp <= nowSec()) {
          verified.delete(digest);
          throw new ProxyError('TOKEN_EXPIRED', 'This page has expired. Reload it to continue.');
        }
        if (known.scope !== scope) {
          refused({ scope, reason: 'wrong scope', claims: [{ claim: 'scope', problem: `is ${known.scope}` }] });
          throw new ProxyError('TOKEN_INVALID', 'The token of this page is not valid.');
        }
        return known.claims as ClaimsByScope[typeof scope];
      }
      let payload: unknown;
      try {
        payload = await verifyWithKeys(keys, token, {
          algorithms: [TOKEN_ALGORITHM],
          audience: options.audience,
          currentDate: new Date(options.now()),
          requiredClaims: ['exp', 'jti', 'aud'],
        });
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) {
          throw new ProxyError('TOKEN_EXPIRED', 'This page has expired. Reload it to continue.');
        }
        refused({ scope, ...joseRefusal(err) });
        throw new ProxyError('TOKEN_INVALID', 'The token of this page is not valid.');
      }
      const parsed = CLAIM_SCHEMAS[scope].safeParse(payload);
      if (!parsed.success) {
        refused({ scope, reason: 'claims', claims: claimProblems(payload, parsed.error.issues) });
        throw new ProxyError('TOKEN_INVALID', 'The token of this page is not valid.');
      }
      const claims = bindClaims(scope, parsed.data as Record<string, unknown>);
      // Proofs are single-use and checked once: only element tokens are worth remembering.
      if (scope !== 'otp-proof') verified.set(digest, { scope, claims: Object.freeze(claims) as { exp: number } });
      return claims as unknown as ClaimsByScope[typeof scope];
    },

    async verifyOtpProof(proof, expected) {
      try {
        return await service.redeemOtpProof(proof, expected);
      } catch (err) {
        if (err instanceof ProxyError && (err.code === 'TOKEN_INVALID' || err.code === 'PROOF_USED')) {
          throw new ProxyError('TOKEN_INVALID', 'This proof is not valid or was already used.');
        }
        throw err;
      }
    },

    async redeemOtpProof(proof, expected) {
      const invalid = (reason: 'invalid' | 'expired' | 'purpose') =>
        new ProxyError('TOKEN_INVALID', reason === 'expired' ? 'This proof has expired.' : 'This proof is not valid.', { reason }, 400);
      let claims: OtpProofClaims;
      try {
        claims = await service.verify(proof, 'otp-proof');
      } catch (err) {
        throw invalid(err instanceof ProxyError && err.code === 'TOKEN_EXPIRED' ? 'expired' : 'invalid');
      }
      if (claims.purpose !== expected.purpose) throw invalid('purpose');
      const ttlMs = Math.max(claims.exp * 1000 - options.now(), 0) + 60_000;
      const first = await options.store.setIfAbsent(`proof:${claims.jti}`, '1', ttlMs).catch(() => {
        // Single use cannot be checked: refuse rather than risk accepting a replay.
        throw new ProxyError('UPSTREAM_UNAVAILABLE', 'Proofs cannot be checked right now. Try again in a moment.', {
          retryable: true,
        });
      });
      if (!first) throw new ProxyError('PROOF_USED', 'This proof was already redeemed.');
      return { recipient: claims.sub, purpose: claims.purpose };
    },
  };
  return service;
}
