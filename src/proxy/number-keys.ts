import { createHmac } from 'node:crypto';

/**
 * What the store keeps of a phone number where a rule only compares numbers (the per-number rate limits,
 * the live OTP code of a number): a keyed hash of its digits, never the number. The key is derived from
 * `PROXY_TOKEN_SECRET`, which the store never holds, so a Redis dump, a key listing or `MONITOR` shows no
 * number, and the few billion numbers of a country cannot be hashed and matched without the secret.
 */
export interface NumberKeys {
  /** The hash under the signing secret: what is written and counted. */
  of(digits: string): string;
  /** The hash under every configured secret, the signing one first: what is looked up while a rotation is rolled out. */
  all(digits: string): string[];
}

/** Separates this use of the secret from its others (token signatures, key ids). */
const LABEL = 'merchant-elements phone number key v1';

const hasher = (secret: string) => {
  const key = createHmac('sha256', secret).update(LABEL).digest();
  // 128 bits: no two numbers of a store collide in practice, and the key stays short.
  return (digits: string) => `h${createHmac('sha256', key).update(digits).digest('base64url').slice(0, 22)}`;
};

export function numberKeys(secret: string, accepted: readonly string[] = []): NumberKeys {
  const current = hasher(secret);
  const others = accepted.filter((s) => s !== secret).map(hasher);
  return {
    of: current,
    all: (digits) => [current(digits), ...others.map((hash) => hash(digits))],
  };
}

const cache = new WeakMap<object, NumberKeys>();

/** The number keys of a resolved configuration, made once per configuration. */
export function numberKeysOf(config: { tokenSecret: string; acceptedTokenSecrets?: readonly string[] }): NumberKeys {
  let keys = cache.get(config);
  if (!keys) {
    keys = numberKeys(config.tokenSecret, config.acceptedTokenSecrets ?? []);
    cache.set(config, keys);
  }
  return keys;
}
