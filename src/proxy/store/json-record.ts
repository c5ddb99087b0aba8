import type { ProxyStore } from './types.js';

/** What `updateJson` did. */
export type UpdateResult<T> =
  | { outcome: 'missing' }
  | { outcome: 'unchanged'; value: T }
  | { outcome: 'updated'; previous: T; value: T };

/** Reads a JSON value; null when absent or unreadable. */
export async function readJson<T>(store: ProxyStore, key: string): Promise<T | null> {
  const raw = await store.get(key);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

/**
 * Changes a JSON value with compare-and-set, retrying when another request or instance changed it in
 * between: `change` sees the latest value and returns the next one, or null to leave it as it is.
 * This is how two instances on one Redis update one record without losing either update.
 */
export async function updateJson<T>(
  store: ProxyStore,
  key: string,
  change: (current: T) => T | null,
  ttlMs?: number,
): Promise<UpdateResult<T>> {
  for (let tries = 0; tries < 50; tries++) {
    const raw = await store.get(key);
    if (raw === null) return { outcome: 'missing' };
    const current = JSON.parse(raw) as T;
    const next = change(current);
    if (next === null) return { outcome: 'unchanged', value: current };
    if (await store.compareAndSet(key, raw, JSON.stringify(next), ttlMs)) {
      return { outcome: 'updated', previous: current, value: next };
    }
  }
  throw new Error(`Too much contention updating ${key.split(':', 2).join(':')}`);
}
