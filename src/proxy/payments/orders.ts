import type { ProxyStore } from '../store/types.js';
import { withAttempt, type AttemptPhase, type OrderRecord } from './attempts.js';
import { updateJson, type UpdateResult } from './json-record.js';
import { KEYS, RECORD_TTL_MS } from './keys.js';

/** Sets the phase of attempt `n` of an order (compare-and-set; a no-op when it already has it). */
export function setAttemptPhase(
  store: ProxyStore,
  orderReference: string,
  n: number,
  phase: AttemptPhase,
): Promise<UpdateResult<OrderRecord>> {
  return updateJson<OrderRecord>(
    store,
    KEYS.order(orderReference),
    (order) => {
      if (!order.attempts.some((a) => a.n === n && a.phase !== phase)) return null;
      const next = withAttempt(order, n, (a) => ({ ...a, phase }));
      // A refusal counts as an attempt even after its number is used again.
      return phase === 'refused' ? { ...next, refusals: next.refusals + 1 } : next;
    },
    RECORD_TTL_MS,
  );
}
