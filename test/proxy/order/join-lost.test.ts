/**
 * joinLost: what a process's copy of an order knows that another record of it (begun again after a loss of
 * the store) does not, joined to it. Pure, so tested on records.
 */
import { describe, expect, it } from 'vitest';
import { joinLost } from '../../../src/proxy/order/join-lost.js';
import { readsDue } from '../../../src/proxy/reconcile/reconcile-plan.js';
import { NOW, order, paymentTry, session } from './fixtures.js';

const PLAN = { now: NOW, listsSessions: false, reconcileWindowMs: 86_400_000, readsByReferenceNo: true };

describe('joinLost', () => {
  it('returns the stored record itself when it has everything the copy knows', () => {
    const stored = order({ id: 'b', tries: [paymentTry({ phase: 'completed' })] });
    const copy = order({ id: 'a', tries: [paymentTry({ phase: 'completed' })] });
    expect(joinLost(stored, copy)).toBe(stored);
  });

  it('joins a try that may be a charge and a session with a checkoutId, renumbered after the stored ones, at the next version', () => {
    const stored = order({ id: 'b', v: 4, tries: [paymentTry({ reference: 'O-2', n: 2, phase: 'pending' })] });
    const copy = order({ id: 'a', v: 7, tries: [paymentTry({ phase: 'unknown' })], sessions: [session({ checkoutId: 'CO1' }), session({ ordinal: 2, checkoutId: null, phase: 'void' })] });
    const joined = joinLost(stored, copy);
    expect(joined.v).toBe(5);
    expect(joined.tries.map((t) => [t.ordinal, t.reference, t.phase])).toEqual([[1, 'O-2', 'pending'], [2, 'O-1', 'unknown']]);
    expect(joined.sessions.map((s) => [s.ordinal, s.checkoutId])).toEqual([[1, 'CO1']]);
  });

  // The model checker's long run (seed 1060534075): the store flushed while a process held a try of its own
  // on its way; another process began the order again, and a customer's try there took the same number but
  // was never sent (the gateway down). The copy's try, completed at the provider, was left out because the
  // record had a try of that number, and its completion was never reported.
  it('joins a try the record only has a try never sent of, under its number', () => {
    const stored = order({ id: 'b', tries: [paymentTry({ phase: 'void', voidReason: 'not-sent', referenceId: null, msisdn: '233240000009' })] });
    const copy = order({ id: 'a', tries: [paymentTry({ phase: 'sending', referenceId: null })] });
    const joined = joinLost(stored, copy);
    expect(joined.tries.map((t) => [t.ordinal, t.reference, t.phase])).toEqual([[1, 'O-1', 'void'], [2, 'O-1', 'sending']]);
  });

  it('leaves out a try that was never sent: no payment can exist for it', () => {
    const stored = order({ id: 'b' });
    const copy = order({ id: 'a', tries: [paymentTry({ phase: 'void', voidReason: 'not-sent', referenceId: null })] });
    expect(joinLost(stored, copy)).toBe(stored);
  });

  it('keeps a try void only because nobody found it, so that it is still read for its window in case it lands late', () => {
    // Sent, its answer lost, read as not found past the grace: void, and read on slowly for the reconcile
    // window (a request that lands later than the grace is still found and reported). Dropped by the join, it
    // would be read by nobody: a late landing that completed would never be reported.
    const lost = paymentTry({ phase: 'void', voidReason: 'not-found', referenceId: null, sentAt: NOW - 60_000 });
    const stored = order({ id: 'b', sessions: [session({ checkoutId: 'CO9' })] });
    const joined = joinLost(stored, order({ id: 'a', tries: [lost] }));
    expect(joined.tries).toMatchObject([{ reference: 'O-1', phase: 'void', voidReason: 'not-found' }]);
    expect(readsDue(joined, PLAN)).toContainEqual({ kind: 'payment', reference: 'O-1', referenceId: null });
  });
});
