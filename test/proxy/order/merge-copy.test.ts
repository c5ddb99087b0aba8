/**
 * mergeCopy: what a process's copy of an order knows that the store's record does not (the store lost it,
 * went back behind it, or another record of the order was begun after a loss), merged into it. Pure, so tested
 * on records; the version and sequences are the transition's (`restore`).
 */
import { describe, expect, it } from 'vitest';
import { mergeCopy } from '../../../src/proxy/order/merge-copy.js';
import { readsDue } from '../../../src/proxy/reconcile/reconcile-plan.js';
import { messagesOf } from '../../../src/proxy/order/messages.js';
import { transition } from '../../../src/proxy/order/transition.js';
import { ENV, NOW, order, paymentTry, session, tx } from './fixtures.js';

const PLAN = { now: NOW, listsSessions: false, reconcileWindowMs: 86_400_000, readsByReferenceNo: true };

describe('mergeCopy', () => {
  it('returns the stored record itself when it has everything the copy knows', () => {
    const stored = order({ id: 'b', tries: [paymentTry({ phase: 'completed' })] });
    const copy = order({ id: 'a', tries: [paymentTry({ phase: 'completed' })] });
    expect(mergeCopy(stored, copy)).toBe(stored);
  });

  it('joins a try that may be a charge and a session with a checkoutId after the stored ones, at the next version', () => {
    const stored = order({ id: 'b', v: 4, tries: [paymentTry({ reference: 'O-2', n: 2, phase: 'pending' })] });
    const copy = order({ id: 'a', v: 7, tries: [paymentTry({ phase: 'unknown' })], sessions: [session({ checkoutId: 'CO1' }), session({ ordinal: 2, checkoutId: null, phase: 'void' })] });
    const joined = transition(stored, { type: 'restore', copy }, ENV).order;
    expect(joined.v).toBe(5);
    expect(joined.tries.map((t) => [t.ordinal, t.reference, t.phase])).toEqual([[1, 'O-2', 'pending'], [2, 'O-1', 'unknown']]);
    expect(joined.sessions.map((s) => [s.ordinal, s.checkoutId])).toEqual([[1, 'CO1']]);
  });

  // The model checker's long run (seed 1060534075): the store flushed while a process held a try of its own
  // on its way; another process began the order again, and a customer's try there took the same number but
  // was never sent (the gateway down). The copy's try, completed at the provider, was left out because the
  // record had a try of that number, and its completion was never reported.
  it('joins a try the record only has a try never sent of, under its number', () => {
    const stored = order({ id: 'b', tries: [paymentTry({ phase: 'void', voidReason: 'not-sent', referenceId: null, msisdn: '233240000009', sendId: 's9', callbackId: 'cb9' })] });
    const copy = order({ id: 'a', tries: [paymentTry({ phase: 'sending', referenceId: null })] });
    const joined = mergeCopy(stored, copy);
    expect(joined.tries.map((t) => [t.ordinal, t.reference, t.phase])).toEqual([[1, 'O-1', 'void'], [2, 'O-1', 'sending']]);
  });

  // The model checker's long run (seed 3591714842681, run 962, the replay in order-model.test.ts): a try
  // void because nobody found it, its number taken again by a try refused in words. Every process whose copy
  // was a version behind joined the void try to the record again (the record's try of that number was another
  // send), and two processes joined each other's copies for ever, the record growing each turn.
  it('joins nothing from an older version of the same record whose number was taken again', () => {
    const lost = paymentTry({ phase: 'void', voidReason: 'not-found', referenceId: null, sendId: 'A', sentAt: NOW - 60_000 });
    const refused = paymentTry({ ordinal: 2, phase: 'refused', failureCode: 'INSUFFICIENT_FUNDS', referenceId: null, sendId: 'B' });
    const stored = order({ id: 'a', v: 5, tries: [lost, refused] });
    expect(mergeCopy(stored, order({ id: 'a', v: 4, tries: [lost] }))).toBe(stored);
    // Nor from another record holding the same sends in another order: joined once, joined for good.
    const other = order({ id: 'b', v: 2, tries: [{ ...refused, ordinal: 1 }, { ...lost, ordinal: 2 }] });
    const joined = mergeCopy(stored, other);
    expect(joined).toBe(stored);
    expect(mergeCopy(joined, stored)).toBe(joined);
  });

  it('leaves out a try that was never sent: no payment can exist for it', () => {
    const stored = order({ id: 'b' });
    const copy = order({ id: 'a', tries: [paymentTry({ phase: 'void', voidReason: 'not-sent', referenceId: null })] });
    expect(mergeCopy(stored, copy)).toBe(stored);
  });

  it('keeps a try void only because nobody found it, so that it is still read for its window in case it lands late', () => {
    // Sent, its answer lost, read as not found past the grace: void, and read on slowly for the reconcile
    // window (a request that lands later than the grace is still found and reported). Dropped by the join, it
    // would be read by nobody: a late landing that completed would never be reported.
    const lost = paymentTry({ phase: 'void', voidReason: 'not-found', referenceId: null, sentAt: NOW - 60_000 });
    const stored = order({ id: 'b', sessions: [session({ checkoutId: 'CO9' })] });
    const joined = mergeCopy(stored, order({ id: 'a', tries: [lost] }));
    expect(joined.tries).toMatchObject([{ reference: 'O-1', phase: 'void', voidReason: 'not-found' }]);
    expect(readsDue(joined, PLAN)).toContainEqual({ kind: 'payment', reference: 'O-1', referenceId: null });
  });

  // The model checker's long run (seed 1074932198, path 968:0:0): the record begun again after a flush by a
  // checkout had no payment terms; a copy's try joined it, and a read of its number found another shop's
  // payment under it (one provider account, no prefix). With no terms to compare, the read adopted it as a
  // completion of this order and reported it to the merchant. The join brings the copy's terms along.
  it('brings the copy’s terms with its tries, so that a read under their number adopts only what is ours', () => {
    const stored = order({ id: 'b', terms: undefined, sessions: [session({ checkoutId: 'CO9' })] });
    const copy = order({ id: 'a', tries: [paymentTry({ phase: 'unknown', referenceId: null })] });
    const joined = mergeCopy(stored, copy);
    expect(joined.terms).toEqual(copy.terms);
    expect(joined.checkoutTerms).toEqual(stored.checkoutTerms);
    const theirs = tx('COMPLETED', { amount: 99, totalAmount: 99, payee: 'Other Shop', narration: 'Theirs', msisdn: '233240000009' });
    const read = transition(joined, { type: 'payment-read', reference: 'O-1', startedAt: NOW, result: { kind: 'found', tx: theirs } }, ENV);
    expect(read.reply).toEqual({ kind: 'conflict', reference: 'O-1' });
    expect(read.order.tries.at(-1)).toMatchObject({ phase: 'unknown' });
  });

  it('brings the copy’s checkout terms with its sessions', () => {
    const stored = order({ id: 'b', checkoutTerms: undefined, tries: [paymentTry({ phase: 'pending', reference: 'O-2', n: 2 })] });
    const copy = order({ id: 'a', sessions: [session({ checkoutId: 'CO1' })] });
    expect(mergeCopy(stored, copy).checkoutTerms).toEqual(copy.checkoutTerms);
  });

  // The model checker's long run on 0a5fc68 (seed 1097727673, run 865): a refused try's number taken again by
  // the next try, still on its way when the store was emptied; an older copy, with the refusal only, was put
  // back first. The next try was left out because the record had a try of its number, the refused one.
  it('joins a later try under the number of a try the record has refused or void, unless it is that very send', () => {
    const refused = paymentTry({ phase: 'refused', failureCode: 'INSUFFICIENT_FUNDS', referenceId: null, sendId: 's1', msisdn: '233240000002' });
    const stored = order({ id: 'a', v: 4, tries: [refused] });
    const next = paymentTry({ ordinal: 2, phase: 'sending', referenceId: null, sendId: 's2' });
    const joined = mergeCopy(stored, order({ id: 'a', v: 4, tries: [refused, next] }));
    expect(joined.tries.map((t) => [t.ordinal, t.reference, t.phase, t.sendId])).toEqual([[1, 'O-1', 'refused', 's1'], [2, 'O-1', 'sending', 's2']]);
    // Its own reads: none while it is being sent, by its number once its outcome is unknown (beside them, the
    // provider's history is read again after a merge: the next number).
    const own = (o: typeof joined) => readsDue(o, PLAN).filter((r) => r.kind === 'payment');
    expect(own(joined)).toEqual([]);
    expect(own({ ...joined, tries: [refused, { ...joined.tries[1]!, phase: 'unknown' }] })).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: null }]);

    const voided = paymentTry({ phase: 'void', voidReason: 'not-found', referenceId: null, sendId: 's1', sentAt: NOW - 60_000 });
    expect(mergeCopy(order({ id: 'a', tries: [voided] }), order({ id: 'a', tries: [{ ...voided, phase: 'pending' }] }))).toMatchObject({ tries: [voided] });
    expect(mergeCopy(order({ id: 'a', tries: [voided] }), order({ id: 'a', tries: [{ ...next, ordinal: 1 }] })).tries.map((t) => t.sendId)).toEqual(['s1', 's2']);
    // A refused try is never a charge: not joined beside the record's own try of its number.
    expect(mergeCopy(order({ id: 'a', tries: [{ ...next, phase: 'pending' }] }), order({ id: 'a', tries: [refused] }))).toMatchObject({ tries: [{ sendId: 's2' }] });
  });

  it('takes the copy’s word on a try and a session where the store went back behind it, and keeps what was made since', () => {
    // The store restored from a snapshot at version 3: the try pending there, completed in the copy (version 5);
    // a session made after the rollback, by another process, stays.
    const pending = paymentTry({ phase: 'pending', seq: 2 });
    const stored = order({ id: 'a', v: 3, tries: [pending], sessions: [session({ checkoutId: 'CO7', createId: 'c7', phase: 'open' })] });
    const copy = order({ id: 'a', v: 5, tries: [{ ...pending, phase: 'completed', completedAt: '2026-11-28T10:00:00Z', seq: 3 }] });
    const step = transition(stored, { type: 'restore', copy }, ENV);
    expect(step.order.tries.map((t) => [t.ordinal, t.phase, t.seq])).toEqual([[1, 'completed', 4]]);
    expect(step.order.sessions.map((s) => s.checkoutId)).toEqual(['CO7']);
    expect(step.order.v).toBe(4);
    expect(step.order.history).toEqual({ payments: 'unread', sessions: 'unread' });
    expect(messagesOf(stored, step.order, ENV).map((m) => m.id)).toEqual(['payment:O-1:COMPLETED']);
    // Merged again, by this process or another holding the same copy: nothing more.
    expect(mergeCopy(step.order, copy)).toBe(step.order);
  });

  it('keeps the record’s word where the store is not behind the copy: another process moved the order on', () => {
    const pending = paymentTry({ phase: 'pending', sentAt: NOW - 120_000 });
    const voided = { ...pending, phase: 'void' as const, voidReason: 'not-found' as const };
    const stored = order({ id: 'a', v: 6, tries: [voided] });
    expect(mergeCopy(stored, order({ id: 'a', v: 5, tries: [pending] }))).toBe(stored);
  });

  it('puts back everything the copy knows that may exist where the store has nothing', () => {
    const copy = order({
      id: 'a',
      v: 3,
      tries: [paymentTry({ phase: 'void', voidReason: 'not-sent', sendId: 's0' }), paymentTry({ ordinal: 2, phase: 'sending', referenceId: null, seq: 1 })],
      sessions: [session({ checkoutId: null, phase: 'refused' })],
    });
    const base = { ...copy, tries: [], sessions: [] };
    const step = transition(base, { type: 'restore', copy }, ENV);
    expect(step.order.tries.map((t) => [t.ordinal, t.phase, t.seq])).toEqual([[1, 'sending', 2]]);
    expect(step.order.sessions).toEqual([]);
    expect(step.order.v).toBe(4);
    expect(transition(base, { type: 'restore', copy: order({ id: 'a' }) }, ENV).order).toBe(base);
  });

  it('takes the copy’s final word on a try or session the record still holds live, whatever the versions', () => {
    // Another process read the session expired and the try cancelled; the record (written on by others since,
    // at a higher version) still holds both live: the provider's final word is never taken back.
    const open = session({ checkoutId: 'CO1', createId: 'c1', phase: 'open' });
    const pending = paymentTry({ phase: 'pending' });
    const stored = order({ id: 'a', v: 9, tries: [pending], sessions: [open] });
    const copy = order({ id: 'a', v: 6, tries: [{ ...pending, phase: 'cancelled' }], sessions: [{ ...open, phase: 'expired', status: 'expired' }] });
    const merged = mergeCopy(stored, copy);
    expect(merged.tries.map((t) => t.phase)).toEqual(['cancelled']);
    expect(merged.sessions.map((s) => s.phase)).toEqual(['expired']);
    // Never the other way: a live word of the copy's over the record's final one.
    expect(mergeCopy(copy, { ...stored, v: 5 })).toBe(copy);
  });

  it('never takes back the provider’s final word the record holds, even where the store went back behind the copy', () => {
    // Rolled back, then read again: the try cancelled at v4; the copy, from before the rollback, at v5 with it
    // pending. The later read's word stands.
    const pending = paymentTry({ phase: 'pending' });
    const stored = order({ id: 'a', v: 4, tries: [{ ...pending, phase: 'cancelled' }] });
    expect(mergeCopy(stored, order({ id: 'a', v: 5, tries: [pending] }))).toBe(stored);
    // A completion the copy has still wins over it.
    expect(mergeCopy(stored, order({ id: 'a', v: 5, tries: [{ ...pending, phase: 'completed' }] })).tries[0]!.phase).toBe('completed');
  });
});

