import { createHash } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTVerifyOptions } from 'jose';

/**
 * The token keys of one proxy: `PROXY_TOKEN_SECRET`, which signs, and the others it accepts
 * (`PROXY_TOKEN_ACCEPTED_SECRETS`), which only verify. A rolling rotation then loses no token: every
 * instance first accepts the new secret, then signs with it and accepts the old one, until the old one's
 * last token has expired (docs/tokens.md, Rotating the secret).
 */
export interface TokenKey {
  /** The `kid` header of the tokens this key signs: derived from the secret, the same on every instance. */
  kid: string;
  /** Imported once: given raw bytes, jose imports a WebCrypto key on every sign and verify. */
  key: Promise<CryptoKey>;
}

/**
 * A secret's key id: the first 12 characters of the base64url SHA-256 of its bytes. Every instance with the
 * same secret computes the same id with nothing to configure. It tells no more about the secret than the
 * token's own signature does (both are functions of it an attacker could test guesses against).
 */
export function keyIdOf(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url').slice(0, 12);
}

function importKey(secret: string): TokenKey {
  const key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return { kid: keyIdOf(secret), key };
}

/** The signing key and the verifying keys, current first. */
export interface TokenKeyRing {
  current: TokenKey;
  /** Every key that verifies: the current one, then the accepted ones in the order configured. */
  all: readonly TokenKey[];
  /**
   * The keys to try on a token, in order: the one its `kid` names first (a token the proxy minted), then the
   * rest (a token minted by hand names none, or one of its own: docs/tokens.md lets it). A malformed token
   * gets the current key alone, which refuses it for what it is.
   */
  candidates(token: string): readonly TokenKey[];
}

export function tokenKeyRing(secret: string, accepted: readonly string[] = []): TokenKeyRing {
  const current = importKey(secret);
  const all = [current, ...accepted.filter((s) => s !== secret).map(importKey)];
  return {
    current,
    all,
    candidates(token) {
      if (all.length === 1) return all;
      let kid: unknown;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        return [current];
      }
      const named = all.find((k) => k.kid === kid);
      return named ? [named, ...all.filter((k) => k !== named)] : all;
    },
  };
}

/**
 * The payload of a token whose signature one of the keys accepts: the key its `kid` names first, then the
 * others (a token minted by hand names none). Only a wrong signature moves on to the next key: any other
 * refusal (expired, a claim) comes from a signature that was right, and is final. Throws jose's error.
 */
export async function verifyWithKeys(ring: TokenKeyRing, token: string, options: JWTVerifyOptions): Promise<unknown> {
  const candidates = ring.candidates(token);
  for (const [i, candidate] of candidates.entries()) {
    try {
      return (await jwtVerify(token, await candidate.key, options)).payload;
    } catch (err) {
      if (!(err instanceof joseErrors.JWSSignatureVerificationFailed) || i === candidates.length - 1) throw err;
    }
  }
  throw new Error('no token key'); // unreachable: the current key is always a candidate
}
