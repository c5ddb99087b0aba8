import { mayLandLate, tryByReference, type Order, type PaymentTry } from './order-record.js';

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
  const tries = copy.tries.filter((t) => (t.phase !== 'void' || mayLandLate(t)) && !knows(stored, t));
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

/**
 * True when `stored` has the copy's try `t`: the try holding its number there is `t`'s own send, or holds it
 * for a charge. A refused or void number is taken again by the next try, so a record whose try of that number
 * was refused or void does not know a later try of the copy's under it (the model checker's long run on
 * 0a5fc68: a pending try that had taken a refused try's number was left out of the older copy put back before
 * it, and its completion was never read or reported). A refused try of the copy's is never a charge.
 */
function knows(stored: Order, t: PaymentTry): boolean {
  // The record has this very send, wherever it stands there: joined again, every stale copy of a record whose
  // number was taken again added it once more (two processes then joined each other's copies for ever: the
  // model checker's long run hung on a record growing each turn).
  if (stored.tries.some((x) => sameSend(x, t))) return true;
  const held = tryByReference(stored, t.reference);
  if (!held) return false;
  return t.phase === 'refused' || (held.phase !== 'refused' && held.phase !== 'void');
}

/** The same send of the same number (a try never sent has no sendId: its callbackId, drawn with it, tells). */
function sameSend(x: PaymentTry, t: PaymentTry): boolean {
  return x.reference === t.reference && x.sendId === t.sendId && (t.sendId !== null || x.callbackId === t.callbackId);
}
