import { isDeepStrictEqual } from 'node:util';
import { isLiveSession, isLiveTry, mayLandLate, tryByReference, type CheckoutTry, type Order, type PaymentTry } from './order-record.js';

/**
 * The one merge of what the store lost (DESIGN: when the store loses records): `stored` (the record the store
 * has; an empty one when it has none) with what a process's `copy` of the order knows and it does not. Pure and
 * idempotent: `stored` itself when the copy adds nothing, so merging the result again adds nothing.
 *
 * Tries are matched by their send (reference number and send id), sessions by their creation (create id or
 * checkoutId); what the copy has and the record has not joins after the record's own (`ordinal` is a place in
 * the list, the reference numbers stay). A matched try or session keeps the record's version, unless the store
 * went back behind the copy (the same record at a lower version: a snapshot, a lagging replica), or the copy
 * holds the provider's later word on it (`laterWord`). The provider's histories are to be read again wherever anything joined: a try or
 * session made after the copy is known only to the provider.
 */
export function mergeCopy(stored: Order, copy: Order): Order {
  const behind = stored.id === copy.id && stored.v < copy.v;
  const tries = mergeTries(stored, copy, behind);
  const sessions = mergeSessions(stored, copy, behind);
  if (tries === stored.tries && sessions === stored.sessions) return stored;
  const reread = (h: Order['history']['payments']) => (h === 'unreadable' ? h : 'unread');
  return {
    ...stored,
    // A try without the order's terms would adopt whatever a read finds under its number, another shop's too.
    terms: stored.terms ?? copy.terms,
    checkoutTerms: stored.checkoutTerms ?? copy.checkoutTerms,
    history: { payments: reread(stored.history.payments), sessions: reread(stored.history.sessions) },
    tries,
    sessions,
  };
}

function mergeTries(stored: Order, copy: Order, behind: boolean): PaymentTry[] {
  let changed = false;
  const tries = stored.tries.map((x) => {
    const theirs = copy.tries.find((t) => sameSend(x, t));
    if (!theirs || sameWord(theirs, x) || !((behind && !takesBack(isLiveTry(theirs), x.phase, theirs.phase)) || laterWord(isLiveTry(x), x.phase, theirs.phase))) return x;
    changed = true;
    return { ...theirs, ordinal: x.ordinal, callbackId: x.callbackId };
  });
  const joining = copy.tries.filter((t) => (t.phase !== 'void' || mayLandLate(t)) && !knows(stored, t));
  if (!changed && joining.length === 0) return stored.tries;
  return [...tries, ...joining.map((t, i) => ({ ...t, ordinal: tries.length + i + 1 }))];
}

function mergeSessions(stored: Order, copy: Order, behind: boolean): CheckoutTry[] {
  let changed = false;
  const sessions = stored.sessions.map((x) => {
    const theirs = copy.sessions.find((s) => sameCreation(x, s));
    const later = theirs?.checkoutId === x.checkoutId && laterWord(isLiveSession(x), x.phase, theirs.phase);
    if (!theirs || sameWord(theirs, x) || !((behind && !takesBack(isLiveSession(theirs), x.phase, theirs.phase)) || later)) return x;
    changed = true;
    return { ...theirs, ordinal: x.ordinal, createId: x.createId };
  });
  // A session without a checkoutId (its creation under way, or its answer lost) joins only a record holding
  // nothing live: beside a live try it would be a second live thing, and the listing finds it if it exists.
  const open = stored.tries.some(isLiveTry) || stored.sessions.some(isLiveSession);
  const joining = copy.sessions.filter((s) => !stored.sessions.some((x) => sameCreation(x, s)) && (s.checkoutId !== null ? true : !open && isLiveSession(s)));
  if (!changed && joining.length === 0) return stored.sessions;
  return [...sessions, ...joining.map((s, i) => ({ ...s, ordinal: sessions.length + i + 1 }))];
}

/**
 * True when `stored` has the copy's try `t`: its very send, or a try holding its number for a charge. A refused
 * or void number is taken again by the next try, so a record whose try of that number was refused or void does
 * not know a later try of the copy's under it; a refused try of the copy's is never a charge. A try of the
 * record never sent holds no number, so it does not stand for a copy's try of that number.
 */
function knows(stored: Order, t: PaymentTry): boolean {
  if (stored.tries.some((x) => sameSend(x, t))) return true;
  const held = tryByReference(stored, t.reference);
  if (!held) return false;
  return t.phase === 'refused' || (held.phase !== 'refused' && held.phase !== 'void');
}

/** The same send of the same number (a try never sent has no sendId: its callbackId, drawn with it, tells). */
function sameSend(x: PaymentTry, t: PaymentTry): boolean {
  return x.reference === t.reference && x.sendId === t.sendId && (t.sendId !== null || x.callbackId === t.callbackId);
}

function sameCreation(x: CheckoutTry, s: CheckoutTry): boolean {
  return x.createId === s.createId || (s.checkoutId !== null && x.checkoutId === s.checkoutId);
}

/**
 * True when the copy's phase is the provider's later word whatever the two histories: a final status it read
 * (or a refusal in words) over one the record still holds live, a completion over any other. Such a word is
 * never taken back, so taking it cannot make two processes take turns; a record left live beside it was a
 * second live thing in the order (a stale session open beside the try made after it ended).
 */
function laterWord(recordLive: boolean, record: string, copy: string): boolean {
  if (copy === 'completed') return record !== 'completed';
  return recordLive && ['failed', 'cancelled', 'expired', 'refused'].includes(copy);
}

/**
 * True when the copy's phase would take back the provider's final word the record holds (a live phase over a
 * final one, anything over a completion): the copy is older than that word even where the store went back
 * behind the copy's version (a read made after the rollback wrote it).
 */
function takesBack(copyLive: boolean, record: string, copy: string): boolean {
  if (record === 'completed') return copy !== 'completed';
  return copyLive && ['failed', 'cancelled', 'expired', 'refused'].includes(record);
}

/** The same word on a try or session, whatever its place and the stamps of when it was written. */
function sameWord<T extends { ordinal: number; seq: number; updatedAt: number }>(a: T, b: T): boolean {
  return isDeepStrictEqual({ ...a, ordinal: 0, seq: 0, updatedAt: 0 }, { ...b, ordinal: 0, seq: 0, updatedAt: 0 });
}
