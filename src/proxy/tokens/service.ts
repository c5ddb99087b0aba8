import { randomBytes } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { z } from 'zod';
import { BoundedMap } from '../bounded-map.js';
import { ProxyError, parseInput } from '../errors.js';
import { normalisePhone } from '../phone.js';
import type { ProxyStore } from '../store/types.js';
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

const CLAIM_SCHEMAS: { [S in TokenScope]: z.ZodType<ClaimsByScope[S]> } = {
  otp: otpClaims,
  payment: paymentClaims,
  checkout: checkoutClaims,
  'otp-proof': otpProofClaims,
};

/**
 * How many verified element tokens the service remembers. A page sends its one token with every call
 * (send, verify, status reads, SSE reconnects), so a repeat skips the HMAC and the claim checks; the
 * entry is keyed by the whole token string, signature included, so only the very bytes verified before
 * hit it, and the expiry is checked again on every hit. About 1 kB each.
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
}

export interface TokenServiceOptions {
  secret: string;
  audience: string;
  payeeName: string;
  defaultCountry: string;
  store: ProxyStore;
  now: () => number;
}

/** Builds the token service (HS256 with `jose`, algorithm pinned on verification). */
export function createTokenService(options: TokenServiceOptions): TokenService {
  // Imported once: given raw bytes, jose imports a WebCrypto key on every sign and verify, which costs
  // about as much as the HMAC itself (seen by `npm run bench`).
  const key = crypto.subtle.importKey('raw', new TextEncoder().encode(options.secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  const nowSec = () => Math.floor(options.now() / 1000);
  const verified = new BoundedMap<string, { scope: TokenScope; claims: Readonly<{ exp: number }> }>(VERIFIED_CACHE_SIZE);

  async function sign(scope: TokenScope, claims: Record<string, unknown>, ttlSec: number, sub?: string) {
    const iat = nowSec();
    const jwt = new SignJWT({ ...claims, scope })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT' })
      .setAudience(options.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSec)
      .setJti(randomBytes(16).toString('base64url'));
    if (sub) jwt.setSubject(sub);
    return jwt.sign(await key);
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
      const known = verified.get(token);
      if (known) {
        if (known.claims.exp <= nowSec()) {
          verified.delete(token);
          throw new ProxyError('TOKEN_EXPIRED', 'This page has expired. Reload it to continue.');
        }
        if (known.scope !== scope) throw new ProxyError('TOKEN_INVALID', 'The token of this page is not valid.');
        return known.claims as ClaimsByScope[typeof scope];
      }
      let payload: unknown;
      try {
        ({ payload } = await jwtVerify(token, await key, {
          algorithms: [TOKEN_ALGORITHM],
          audience: options.audience,
          currentDate: new Date(options.now()),
          requiredClaims: ['exp', 'iat', 'jti', 'aud'],
        }));
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) {
          throw new ProxyError('TOKEN_EXPIRED', 'This page has expired. Reload it to continue.');
        }
        throw new ProxyError('TOKEN_INVALID', 'The token of this page is not valid.');
      }
      const claims = CLAIM_SCHEMAS[scope].safeParse(payload);
      if (!claims.success) throw new ProxyError('TOKEN_INVALID', 'The token of this page is not valid.');
      // Proofs are single-use and checked once: only element tokens are worth remembering.
      if (scope !== 'otp-proof') verified.set(token, { scope, claims: Object.freeze(claims.data) });
      return claims.data;
    },

    async verifyOtpProof(proof, expected) {
      const refused = () => new ProxyError('TOKEN_INVALID', 'This proof is not valid or was already used.');
      let claims: OtpProofClaims;
      try {
        claims = await service.verify(proof, 'otp-proof');
      } catch {
        throw refused();
      }
      if (claims.purpose !== expected.purpose) throw refused();
      const ttlMs = Math.max(claims.exp * 1000 - options.now(), 0) + 60_000;
      const first = await options.store.setIfAbsent(`proof:${claims.jti}`, '1', ttlMs).catch(() => {
        // Single use cannot be checked: refuse rather than risk accepting a replay.
        throw new ProxyError('UPSTREAM_UNAVAILABLE', 'Proofs cannot be checked right now. Try again in a moment.', {
          retryable: true,
        });
      });
      if (!first) throw refused();
      return { recipient: claims.sub, purpose: claims.purpose };
    },
  };
  return service;
}
