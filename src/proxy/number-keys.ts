import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { keyIdOf } from './tokens/keys.js';

/**
 * What the store keeps of a phone number where a rule only compares numbers (the per-number rate limits,
 * the live OTP code of a number, the prompts waiting on a number, the number a token locks in an order's
 * terms): a keyed hash of its digits, never the number. The key is derived from a token secret, which the
 * store never holds, so a Redis dump, a key listing or `MONITOR` shows no number, and the few billion numbers
 * of a country cannot be hashed and matched without the secret.
 */
export interface NumberKeys {
  /** The hash under the signing secret: what is written and counted. */
  of(digits: string): string;
  /**
   * The hash under every configured secret, the signing one first (then the accepted, then the retired): what
   * is looked up while a rotation is rolled out.
   */
  all(digits: string): string[];
  /**
   * The number a token locks, as an order's record keeps it: the hash under the signing secret and that
   * secret's key id (`h…` `.` kid), so that a record outlives a rotation: it is compared under the secret that
   * made it for as long as that secret is configured (signing, accepted or retired).
   */
  lock(digits: string): string;
  /**
   * Whether `lock` (a {@link lock}, or a full number as records of format 1 keep it) is the number `digits`;
   * null when the lock's secret is configured no more, so nothing can tell.
   */
  holds(lock: string, digits: string): boolean | null;
}

/** Separates this use of the secret from its others (token signatures, key ids). */
const LABEL = 'merchant-elements phone number key v1';

/** A lock's shape: a hash and the key id of the secret it was made under. */
const LOCK = /^(h[\w-]{22})\.([\w-]{12})$/;

const hasher = (secret: string) => {
  const key = createHmac('sha256', secret).update(LABEL).digest();
  // 128 bits: no two numbers of a store collide in practice, and the key stays short.
  return (digits: string) => `h${createHmac('sha256', key).update(digits).digest('base64url').slice(0, 22)}`;
};

/** True when `value` is a {@link NumberKeys.lock}, not a number. */
export const isNumberLock = (value: string): boolean => LOCK.test(value);

/**
 * `secret` signs; `accepted` verify tokens; `retired` verify none, and only let hashes made under them be
 * compared until what was kept under them has expired (docs/tokens.md, Rotating the secret).
 */
export function numberKeys(secret: string, accepted: readonly string[] = [], retired: readonly string[] = []): NumberKeys {
  const secrets = [...new Set([secret, ...accepted, ...retired])];
  const hashers = secrets.map(hasher);
  const byKid = new Map(secrets.map((s, i) => [keyIdOf(s), hashers[i]!] as const));
  const current = hashers[0]!;
  const kid = keyIdOf(secret);
  return {
    of: current,
    all: (digits) => hashers.map((hash) => hash(digits)),
    lock: (digits) => `${current(digits)}.${kid}`,
    holds(lock, digits) {
      const parts = LOCK.exec(lock);
      if (!parts) return lock === digits;
      const hash = byKid.get(parts[2]!);
      return hash ? hash(digits) === parts[1] : null;
    },
  };
}

/**
 * `keys.holds`, saying once per secret, as a warning, that a lock was made under a token secret this instance
 * does not have: the order then refuses a later token (`ORDER_CHANGED`) and compares a found payment on the
 * rest of its terms, which the operator should hear of (a rotation's last step taken too soon).
 */
export function warnUnknownLocks(keys: NumberKeys, logger: Pick<Logger, 'warn'>): NumberKeys['holds'] {
  const told = new Set<string>();
  return (lock, digits) => {
    const held = keys.holds(lock, digits);
    const kid = held === null ? LOCK.exec(lock)?.[2] : undefined;
    if (kid !== undefined && !told.has(kid)) {
      told.add(kid);
      logger.warn(
        { keyId: kid },
        'an order keeps the number its token locked under a token secret this instance does not have: it cannot be told, so a later token for the order is refused (ORDER_CHANGED); keep the old secret in PROXY_TOKEN_RETIRED_SECRETS for seven days after a rotation (docs/tokens.md)',
      );
    }
    return held;
  };
}

const cache = new WeakMap<object, NumberKeys>();

/** The number keys of a resolved configuration, made once per configuration. */
export function numberKeysOf(config: { tokenSecret: string; acceptedTokenSecrets?: readonly string[]; retiredTokenSecrets?: readonly string[] }): NumberKeys {
  let keys = cache.get(config);
  if (!keys) {
    keys = numberKeys(config.tokenSecret, config.acceptedTokenSecrets ?? [], config.retiredTokenSecrets ?? []);
    cache.set(config, keys);
  }
  return keys;
}
