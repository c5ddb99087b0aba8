// A try found void (not found past the grace) whose request lands after all, and whose send's answer comes
// back accepted: the provider's word that the payment exists, as a read finding it would be. Ignored, the
// order stayed free until a slow read found the number again, and a hosted checkout opened meanwhile could be
// paid beside the prompt (test/proof/late-accepted-answer.test.ts). It counts only while no later try took the
// number, and never for a try whose send never left (nothing of it exists).
import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../../src/proxy/order/events.js';
import { messagesOf } from '../../../src/proxy/order/messages.js';
import { transition } from '../../../src/proxy/order/transition.js';
import { ENV, NOW, order, paymentTry } from './fixtures.js';

const accepted = (ordinal: number, sendId: string): OrderEvent => ({
  type: 'sent',
  ordinal,
  sendId,
  msisdn: '233240000001',
  result: { kind: 'accepted', referenceId: 'R-late', amount: 12.5, charge: 0.13, totalAmount: 12.63 },
});
// As the store keeps it: a final try's number masked.
const foundVoid = paymentTry({ phase: 'void', voidReason: 'not-found', referenceId: null, sentAt: NOW - 120_000, msisdn: '+233 24 *** **01' });

describe('a send accepted after its try was found void', () => {
  it('revives the try: pending, holding the order, reported PENDING', () => {
    const before = order({ tries: [foundVoid] });
    const step = transition(before, accepted(1, 's1'), ENV);
    // Live again, it holds the number its request went to (its rules compare it again).
    expect(step.order.tries[0]).toMatchObject({ phase: 'pending', referenceId: 'R-late', totalAmount: 12.63, msisdn: '233240000001' });
    expect(messagesOf(before, step.order, ENV).map((m) => m.id)).toEqual(['payment:O-1:PENDING']);
    const checkout = transition(step.order, { type: 'checkout', jti: 'c', terms: { amount: 12.5, title: 'Order', description: 'An order' }, createId: 'c9', seen: { freeNumber: 1, sessionsListed: true } }, ENV);
    expect(checkout.reply).toMatchObject({ kind: 'refuse', code: 'ORDER_IN_OTHER_PAYMENT' });
  });

  it('changes nothing once a later try took its number (that try learns from its own send and reads)', () => {
    const later = paymentTry({ ordinal: 2, sendId: 's2', phase: 'pending', referenceId: 'R2', sentAt: NOW - 1_000 });
    const before = order({ tries: [foundVoid, later] });
    expect(transition(before, accepted(1, 's1'), ENV).order).toBe(before);
  });

  it('changes nothing for a try whose send never left', () => {
    const notSent = paymentTry({ phase: 'void', voidReason: 'not-sent', referenceId: null, sentAt: null });
    const before = order({ tries: [notSent] });
    expect(transition(before, accepted(1, 's1'), ENV).order).toBe(before);
  });
});
