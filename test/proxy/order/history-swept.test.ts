/**
 * The reconciler's plan for an order put back with the provider's history to be read again (DESIGN: when the
 * store loses records): pure, so tested on records. The whole path, on the model's world:
 * test/proof/stale-copy-restored.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { cadence, isUnsettled, readsDue } from '../../../src/proxy/reconcile/reconcile-plan.js';
import { transition } from '../../../src/proxy/order/transition.js';
import { ENV, NOW, TERMS, order, paymentTry, session, tx } from './fixtures.js';

const PLAN = { now: NOW, listsSessions: true, reconcileWindowMs: 86_400_000, readsByReferenceNo: true };
const cancelled = paymentTry({ phase: 'cancelled', updatedAt: NOW - 1_000 });

describe('an order whose provider history is to be read again', () => {
  it('is read by the reconciler at the next number, quickly, until the probe says there is nothing more', () => {
    const putBack = order({ tries: [cancelled], history: { payments: 'unread', sessions: 'unread' }, updatedAt: NOW - 1_000 });
    // (The cancelled try is read again too: see final-rechecked.test.ts.)
    expect(readsDue(putBack, PLAN)).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: 'R1' }, { kind: 'list-sessions' }, { kind: 'probe-payment', n: 2 }]);
    expect(isUnsettled(putBack, PLAN)).toBe(true);
    expect(cadence(putBack, PLAN)).toBe('fast');

    // Number 2 found completed: adopted (and so reported), the history read.
    const found = transition(putBack, { type: 'payment-probed', n: 2, jti: 'reconciler', maxAttempts: 3, terms: TERMS, callbackId: 'cb2', result: { kind: 'found', tx: tx('COMPLETED', { reference: 'O-2' }) } }, ENV).order;
    expect(found.tries.map((t) => `${t.reference}:${t.phase}`)).toEqual(['O-1:cancelled', 'O-2:completed']);
    // The history read: the cancelled try is still read again now and then, and with it the next number.
    expect(readsDue(found, { ...PLAN, listsSessions: false })).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: 'R1' }, { kind: 'probe-payment', n: 3 }]);
    expect(cadence(found, { ...PLAN, listsSessions: false })).toBe('recheck');
  });

  it('reads no history it cannot, none of an order with nothing begun, and none past the reconcile window', () => {
    const unread = { payments: 'unread', sessions: 'unread' } as const;
    const refused = paymentTry({ phase: 'refused', failureCode: 'INSUFFICIENT_FUNDS' });
    expect(readsDue(order({ tries: [refused], history: unread, updatedAt: NOW - 1_000 }), { ...PLAN, listsSessions: false })).toEqual([{ kind: 'probe-payment', n: 1 }]);
    expect(readsDue(order({ sessions: [session({ phase: 'void', checkoutId: null })], history: { payments: 'unreadable', sessions: 'unread' }, updatedAt: NOW }), { ...PLAN, listsSessions: false })).toEqual([]);
    const nothing = order({ history: unread, updatedAt: NOW });
    expect(readsDue(nothing, PLAN)).toEqual([]);
    expect(isUnsettled(nothing, PLAN)).toBe(false);
    const old = order({ tries: [refused], history: unread, updatedAt: NOW - 86_400_000 });
    expect(readsDue(old, PLAN)).toEqual([]);
    expect(cadence(old, PLAN)).toBe('done');
  });
});
