/**
 * The record as the store keeps it (DESIGN: phone numbers at rest): a try's number while the try is live, and
 * masked once it is final; a receipt still goes to the payer, a late completion included.
 */
import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../../src/proxy/order/events.js';
import { messagesOf, type PaymentPayload } from '../../../src/proxy/order/messages.js';
import { atRest, type Order } from '../../../src/proxy/order/order-record.js';
import { transition } from '../../../src/proxy/order/transition.js';
import { ENV, order, paymentTry, tx } from './fixtures.js';

const NUMBER = '233240000001';
const MASKED = '+233 24 *** **01';
const read = (status: 'PENDING' | 'COMPLETED' | 'CANCELLED'): OrderEvent => ({ type: 'payment-read', reference: 'O-1', startedAt: ENV.now, result: { kind: 'found', tx: tx(status, { msisdn: NUMBER }) } });
/** What the store holds after `o`, read back. */
const stored = (o: Order) => JSON.parse(JSON.stringify(atRest(o, null))) as Order;
const receipts = (before: Order, after: Order) => messagesOf(before, after, ENV).map((m) => (m.payload as PaymentPayload).receipt);

describe('the record at rest', () => {
  it("keeps a live try's number and masks a final one's; the same object when there is nothing to mask", () => {
    const live = order({ tries: [paymentTry({ phase: 'pending', msisdn: NUMBER })] });
    expect(atRest(live, null)).toBe(live);
    for (const phase of ['completed', 'failed', 'cancelled', 'refused', 'void'] as const) {
      const ended = order({ tries: [paymentTry({ ordinal: 1, phase: 'void', voidReason: 'not-found', msisdn: '233200000003' }), paymentTry({ ordinal: 2, n: 2, reference: 'O-2', phase, msisdn: NUMBER })] });
      const masked = atRest(ended, null);
      expect(masked.tries.map((t) => t.msisdn), phase).toEqual(['+233 20 *** **03', MASKED]);
      expect(atRest(masked, null)).toBe(masked);
    }
  });

  it('sends the completion its receipt with the full number, and stores the try masked', () => {
    const pending = stored(order({ tries: [paymentTry({ phase: 'pending', msisdn: NUMBER })] }));
    const completed = transition(pending, read('COMPLETED'), ENV).order;
    expect(receipts(pending, completed)).toEqual([{ msisdn: NUMBER, payee: 'Shop', narration: 'Order' }]);
    expect(stored(completed).tries[0]).toMatchObject({ phase: 'completed', msisdn: MASKED });
  });

  it('changes nothing when a final try is read again as it is, and takes the provider’s number back for a late completion', () => {
    const cancelled = stored(transition(stored(order({ tries: [paymentTry({ phase: 'pending', msisdn: NUMBER })] })), read('CANCELLED'), ENV).order);
    expect(cancelled.tries[0]).toMatchObject({ phase: 'cancelled', msisdn: MASKED });
    // Read again CANCELLED: the masked number is not a change (no write on every recheck).
    expect(transition(cancelled, read('CANCELLED'), ENV).order).toBe(cancelled);
    // Completed after all: the receipt goes to the number the provider charged.
    const late = transition(cancelled, read('COMPLETED'), ENV).order;
    expect(receipts(cancelled, late)).toEqual([{ msisdn: NUMBER, payee: 'Shop', narration: 'Order' }]);
    expect(stored(late).tries[0]).toMatchObject({ phase: 'completed', msisdn: MASKED });
  });

  it('leaves the number out of a receipt decided from a record that holds it only masked (put back after a loss)', () => {
    const before = order({ tries: [] });
    const copy = stored(order({ tries: [paymentTry({ phase: 'completed', msisdn: NUMBER })] }));
    expect(receipts(before, copy)).toEqual([{ payee: 'Shop', narration: 'Order' }]);
  });
});
