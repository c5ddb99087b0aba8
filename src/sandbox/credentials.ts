import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in constant time (by their SHA-256 digests, so lengths leak nothing either). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** True when `header` is `Basic base64(username:password)` with exactly these credentials. */
export function basicAuthMatches(header: string | undefined, username: string, password: string): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const userOk = secretsEqual(decoded.slice(0, colon), username);
  const passOk = secretsEqual(decoded.slice(colon + 1), password);
  return userOk && passOk;
}

/** True when `header` is `Bearer <key>` with exactly this key. */
export function bearerMatches(header: string | undefined, key: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] !== undefined && secretsEqual(match[1], key);
}
