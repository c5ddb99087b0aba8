// A try the operator resolved absent (past the grace after its send) can still land later, as one nobody found
// can: a request may be on its way longer than any bound the proxy enforces (DESIGN: unknown blocks
// everything). The model checker (operator acting mid-run, seed 534681019, path 14157) found such a late
// completion never reported, on a provider that reads status by referenceId only: the operator's void was not
// read on, and the provider's callback naming its referenceId was dropped. Now both voids are read on for the
// window, a callback's referenceId is kept for either, and a copy's try of either kind is merged into a begun-again record.
import { describe, expect, it } from 'vitest';
import { mergeCopy } from '../../../src/proxy/order/merge-copy.js';
import { messagesOf } from '../../../src/proxy/order/messages.js';
import { transition } from '../../../src/proxy/order/transition.js';
import { isUnsettled, readsDue } from '../../../src/proxy/reconcile/reconcile-plan.js';
import { ENV, NOW, order, paymentTry, tx } from './fixtures.js';

const PLAN = { ...ENV, listsSessions: false, reconcileWindowMs: 24 * 3_600_000 };
const voided = paymentTry({ phase: 'void', voidReason: 'operator', referenceId: null, sentAt: NOW - 120_000 });

describe('a try the operator resolved absent', () => {
  it('is read on for the window where reads can see it, and its late completion reported', () => {
    const late = order({ tries: [voided] });
    expect(readsDue(late, PLAN)).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: null }]);
    expect(readsDue(late, { ...PLAN, now: NOW - 120_000 + PLAN.reconcileWindowMs })).toEqual([]);
    const step = transition(late, { type: 'payment-read', reference: 'O-1', startedAt: NOW, result: { kind: 'found', tx: tx('COMPLETED'), referenceId: 'R9' } }, ENV);
    expect(step.order.tries[0]).toMatchObject({ phase: 'completed', referenceId: 'R9' });
    expect(messagesOf(late, step.order, ENV).map((m) => m.id)).toEqual(['payment:O-1:COMPLETED']);
  });

  it('is read by the referenceId a callback names where status is read by referenceId only', () => {
    const env = { ...ENV, readsByReferenceNo: false };
    const late = order({ tries: [voided] });
    const plan = { ...PLAN, readsByReferenceNo: false };
    expect(readsDue(late, plan)).toEqual([]);
    expect(isUnsettled(late, plan)).toBe(false);
    const hinted = transition(late, { type: 'hinted', reference: 'O-1', referenceId: 'R9' }, env).order;
    expect(readsDue(hinted, plan)).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: 'R9' }]);
    expect(isUnsettled(hinted, plan)).toBe(true);
  });

  it('joins a record begun again after a loss, from the copy of the process that held it', () => {
    const begunAgain = order({ tries: [] });
    expect(mergeCopy(begunAgain, order({ tries: [voided] })).tries).toEqual([voided]);
  });
});
