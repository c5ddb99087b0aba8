import { z } from 'zod';

/** A string that must be present: the message says so plainly when it is missing. */
export const required = (min = 1) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
    .min(min, 'is required');

/**
 * A token secret must have at least this many different byte values. 32 identical bytes (or a short
 * pattern repeated) are long enough but guessable; 48 random bytes in base64url have about 40. The rule is
 * simple on purpose: it stops the mistakes (`aaaa…`, `changeme×4`), it does not measure entropy.
 */
export const MIN_DISTINCT_SECRET_BYTES = 12;

/** The hint of a bad server key: the way docs/php.md and the other guides make one (24 random bytes, 192 bits). */
const MAKE_SERVER_KEY = `make one with: node -e "console.log('sk_' + require('crypto').randomBytes(24).toString('base64url'))"`;

/** A token secret: at least 32 bytes, with some variety. */
export function tokenSecretSchema() {
  return required()
    .refine((s) => Buffer.byteLength(s, 'utf8') >= 32, 'must be at least 32 bytes long')
    .refine(
      (s) => distinctBytes(s) >= MIN_DISTINCT_SECRET_BYTES,
      `has too little variety to be a secret (fewer than ${MIN_DISTINCT_SECRET_BYTES} different characters); make one with: node -e "console.log(require('crypto').randomBytes(48).toString('base64url'))"`,
    );
}

function distinctBytes(s: string): number {
  return new Set(Buffer.from(s, 'utf8')).size;
}

/** The server API's key: at least 32 bytes, with some variety, never sent to a browser. */
export function serverKeySchema() {
  return required()
    .refine((s) => Buffer.byteLength(s, 'utf8') >= 32, `must be at least 32 bytes long; ${MAKE_SERVER_KEY}`)
    .refine((s) => distinctBytes(s) >= MIN_DISTINCT_SECRET_BYTES, `has too little variety to be a key (fewer than ${MIN_DISTINCT_SECRET_BYTES} different characters); ${MAKE_SERVER_KEY}`);
}
