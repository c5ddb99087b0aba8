import { mayLandLate, tryByReference, type Order } from './order-record.js';

/**
 * `stored` with what `copy` (another record of the same order, which a process held while the store lost
 * everything and another process began the order again) knows and it does not: sessions with a checkoutId and
 * tries that may be a charge, renumbered after its own, and its terms where `stored` has none. `stored` itself
 * when it has them all. A try void only
 * because nobody found it, or absent in the operator's word, is joined too: it is read on for its window in
 * case it lands late (left out, a late landing would be read by nobody); one never sent is not.
 */
export function joinLost(stored: Order, copy: Order): Order {
  const sessions = copy.sessions.filter((s) => s.checkoutId !== null && !stored.sessions.some((x) => x.checkoutId === s.checkoutId));
  // A try of the record never sent holds no number (order-record.ts), so it does not stand for a copy's try
  // of that number: the copy's may be a charge.
  const tries = copy.tries.filter((t) => (t.phase !== 'void' || mayLandLate(t)) && !tryByReference(stored, t.reference));
  if (sessions.length === 0 && tries.length === 0) return stored;
  // The terms come along where the record has none (begun again by the other way to pay): a try without the
  // order's terms would adopt whatever a read finds under its number, another shop's payment too.
  return {
    ...stored,
    terms: stored.terms ?? copy.terms,
    checkoutTerms: stored.checkoutTerms ?? copy.checkoutTerms,
    v: stored.v + 1,
    tries: [...stored.tries, ...tries.map((t, i) => ({ ...t, ordinal: stored.tries.length + i + 1 }))],
    sessions: [...stored.sessions, ...sessions.map((s, i) => ({ ...s, ordinal: stored.sessions.length + i + 1 }))],
  };
}
