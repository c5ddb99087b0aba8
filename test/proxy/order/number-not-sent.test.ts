// A try not sent (void `not-sent`: it never reached the provider) takes the number of an earlier try that is
// void only because nobody found it. The earlier try's request may still land late (there, it was on its
// way past the grace); the model checker's long run (seed 1053646716, path 987:0) found such a late
// completion never read or reported: the try not sent had taken the number for good, so the reconciler
// stopped reading it, and a read of it would have gone to the try not sent. A try not sent holds no number
// at the provider.
import { describe, expect, it } from 'vitest';
import { messagesOf } from '../../../src/proxy/order/messages.js';
import { tryByReference, type Order, type PaymentTry } from '../../../src/proxy/order/order-record.js';
import { transition } from '../../../src/proxy/order/transition.js';
import { readsDue } from '../../../src/proxy/reconcile/reconcile-plan.js';
import { ENV, NOW, order, paymentTry, tx } from './fixtures.js';

const PLAN = { ...ENV, listsSessions: false, reconcileWindowMs: 24 * 3_600_000 };

/**
 * `late` (the earlier try, then the one that took its number) reads the earlier try for a late landing, and
 * takes the landing's completion there, reported under its key; the later try keeps its phase.
 */
function expectTheEarlierTryRead(late: Order): void {
  const [first, taker] = late.tries as [PaymentTry, PaymentTry];
  expect(tryByReference(late, 'O-1')).toBe(first);
  expect(readsDue(late, PLAN)).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: null }]);
  const landed = tx('COMPLETED', { msisdn: first.msisdn });
  const step = transition(late, { type: 'payment-read', reference: 'O-1', startedAt: NOW, result: { kind: 'found', tx: landed, referenceId: 'R9' } }, ENV);
  expect(step.order.tries[0]).toMatchObject({ phase: 'completed', referenceId: 'R9' });
  expect(step.order.tries[1]).toMatchObject({ phase: taker.phase });
  expect(messagesOf(late, step.order, ENV).map((m) => m.id)).toEqual(['payment:O-1:COMPLETED']);
}

describe('a number taken again by a try that was never sent', () => {
  const first = paymentTry({ ordinal: 1, phase: 'void', voidReason: 'not-found', referenceId: null, msisdn: '233200000003', sentAt: NOW - 120_000 });
  const notSent = paymentTry({ ordinal: 2, sendId: 's2', phase: 'void', voidReason: 'not-sent', referenceId: null, msisdn: '233240000002', sentAt: null });
  const late = order({ tries: [first, notSent] });

  it('stays the earlier try’s: read on for its window, its late completion taken and reported under its key', () => {
    expectTheEarlierTryRead(late);
  });

  it('is the later try’s once that try was sent', () => {
    const sent = order({ tries: [first, { ...notSent, phase: 'pending', voidReason: undefined, sentAt: NOW - 1_000, referenceId: 'R2' }] });
    expect(tryByReference(sent, 'O-1')).toBe(sent.tries[1]);
    expect(readsDue(sent, PLAN)).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: 'R2' }]);
  });
});

// The same with a try refused in words (insufficient funds): the provider made nothing of that request either.
// The `late` era's long run (seed 1122183213, the replay in order-model.test.ts) found an operator's "absent"
// try whose request landed late, under a number a refused try had taken again: read by nobody, its
// completion was never reported.
describe('a number taken again by a try refused in words', () => {
  const first = paymentTry({ ordinal: 1, phase: 'void', voidReason: 'operator', referenceId: null, msisdn: '233200000003', sentAt: NOW - 120_000 });
  const refused = paymentTry({ ordinal: 2, sendId: 's2', phase: 'refused', failureCode: 'INSUFFICIENT_FUNDS', referenceId: null, msisdn: '233240000002', sentAt: NOW - 60_000 });
  const late = order({ tries: [first, refused] });

  it('stays the earlier try’s while it may land: read on, its late completion taken and reported under its key', () => {
    expectTheEarlierTryRead(late);
  });

  it('is the refused try’s when no earlier try of the number was sent', () => {
    const alone = order({ tries: [{ ...refused, ordinal: 1 }] });
    expect(tryByReference(alone, 'O-1')).toBe(alone.tries[0]);
    expect(readsDue(alone, PLAN)).toEqual([]);
  });
});
