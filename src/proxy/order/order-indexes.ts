import type { SideWrite } from '../store/types.js';
import { isUnsettled, type PlanEnv } from '../reconcile/reconcile-plan.js';
import { ORDER_KEYS, RECORD_TTL_MS } from './keys.js';
import { isLiveTry, type Order } from './order-record.js';

/**
 * The indexes an order's change implies (all of them when `before` is null: a restored order): its callback
 * ids, its sessions' ids, the numbers its live tries wait on (under `numberKey`'s keyed hash: no number in a
 * key's name), and its place in the reconciler's set.
 */
export function indexWrites(before: Order | null, after: Order, env: PlanEnv, numberKey: (digits: string) => string): SideWrite[] {
  const writes: SideWrite[] = [];
  for (const t of after.tries) {
    const old = before?.tries.find((x) => x.ordinal === t.ordinal);
    if (!old) writes.push({ op: 'set', key: ORDER_KEYS.callback(t.callbackId), value: t.reference, ttlMs: RECORD_TTL_MS });
    const wasLive = old ? isLiveTry(old) : false;
    const live = isLiveTry(t);
    if (wasLive && old && (!live || old.msisdn !== t.msisdn)) writes.push({ op: 'removeFromSet', key: ORDER_KEYS.inFlight(numberKey(old.msisdn)), member: t.reference });
    if (live && (!wasLive || old?.msisdn !== t.msisdn)) writes.push({ op: 'addToSet', key: ORDER_KEYS.inFlight(numberKey(t.msisdn)), member: t.reference, ttlMs: RECORD_TTL_MS });
  }
  for (const s of after.sessions) {
    const old = before?.sessions.find((x) => x.ordinal === s.ordinal);
    if (s.checkoutId !== null && old?.checkoutId !== s.checkoutId) {
      writes.push({ op: 'set', key: ORDER_KEYS.checkout(s.checkoutId), value: after.ref, ttlMs: RECORD_TTL_MS });
    }
  }
  if (isUnsettled(after, env)) writes.push({ op: 'addToSet', key: ORDER_KEYS.pending, member: after.ref });
  return writes;
}
