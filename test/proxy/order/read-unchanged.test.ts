// A status read that says what a try already says must leave the order the very object it was (the reconciler
// then writes nothing), and a read that says anything new must change exactly what it did before the check
// was made field by field (building the new try and comparing it was most of a flash sale's old-generation
// garbage: `npx tsx bench/sections/scale-heap.ts`, the scale bench's peak). The oracle below is the former
// implementation, kept here to hold the new one to it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransitionEnv, UpstreamPayment } from '../../../src/proxy/order/events.js';
import type { Order, PaymentTry, TryPhase } from '../../../src/proxy/order/order-record.js';
import { paymentRead } from '../../../src/proxy/order/payment-transitions.js';

const cleared = { unknownReason: undefined, notFound: undefined };

/** The former `taken`: build the try the read makes, then compare every key. */
function oracle(t: PaymentTry, tx: UpstreamPayment, referenceId: string | undefined): PaymentTry {
  const phase = tx.status === 'PENDING' ? 'pending' : tx.status === 'COMPLETED' ? 'completed' : tx.status === 'FAILED' ? 'failed' : 'cancelled';
  if (t.phase === 'completed' && phase !== 'completed') return t;
  if ((t.phase === 'failed' || t.phase === 'cancelled') && phase !== 'completed') return t;
  const next: PaymentTry = {
    ...t,
    phase,
    msisdn: tx.msisdn,
    amount: tx.amount,
    charge: tx.charge,
    totalAmount: tx.totalAmount,
    completedAt: phase === 'completed' ? tx.completedAt ?? t.completedAt : null,
    referenceId: referenceId ?? t.referenceId,
    ...cleared,
  };
  delete next.voidReason;
  delete next.hintedReferenceId;
  if (phase === 'failed') next.failureCode = t.failureCode && t.phase !== 'refused' ? t.failureCode : 'PAYMENT_FAILED';
  else delete next.failureCode;
  const keys = new Set([...Object.keys(t), ...Object.keys(next)]) as Set<keyof PaymentTry>;
  for (const key of keys) if (t[key] !== next[key]) return next;
  return t;
}

/** Absent four times in five (most stored tries have none of these). */
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });
/** The try's own value four times in five: a read that agrees is the common case, and the one to get right. */
const mostly = <T>(same: T, other: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(same), weight: 4 }, { arbitrary: other, weight: 1 });
const phases: TryPhase[] = ['sending', 'unknown', 'pending', 'completed', 'failed', 'cancelled', 'refused', 'void'];
const numbers = fc.constantFrom('233241000001', '233241000002');
const money = fc.constantFrom(12.5, 12.63, 0.13, 10);
const when = fc.constantFrom(null, '2026-11-26T10:00:00Z', '2026-11-26T10:00:05Z');

const tryArb = fc.record({
  phase: fc.constantFrom(...phases),
  msisdn: numbers,
  amount: money,
  charge: money,
  totalAmount: money,
  completedAt: when,
  referenceId: fc.constantFrom(null, 'up-1', 'up-2'),
  unknownReason: maybe(fc.constantFrom('lost' as const, 'lease' as const, 'refused' as const)),
  notFound: maybe(fc.constant({ reads: 1, since: 1 })),
  voidReason: maybe(fc.constantFrom('not-sent' as const, 'not-found' as const)),
  hintedReferenceId: maybe(fc.constant('up-3')),
  failureCode: maybe(fc.constantFrom('PAYMENT_FAILED', 'INSUFFICIENT_FUNDS')),
});
const statusOf = (phase: TryPhase) => (phase === 'completed' ? 'COMPLETED' : phase === 'failed' ? 'FAILED' : phase === 'cancelled' ? 'CANCELLED' : 'PENDING');
const statuses = fc.constantFrom('PENDING' as const, 'COMPLETED' as const, 'FAILED' as const, 'CANCELLED' as const);
const caseArb = tryArb.chain((fields) =>
  fc.record({
    fields: fc.constant(fields),
    upstream: fc.record({
      status: mostly(statusOf(fields.phase), statuses),
      msisdn: mostly(fields.msisdn, numbers),
      amount: mostly(fields.amount, money),
      charge: mostly(fields.charge, money),
      totalAmount: mostly(fields.totalAmount, money),
      completedAt: mostly(fields.completedAt, when),
    }),
    referenceId: maybe(mostly(fields.referenceId ?? 'up-1', fc.constantFrom('up-1', 'up-2'))),
  }),
);

describe('a status read that changes nothing', () => {
  it('leaves the order the same object exactly when the former build-and-compare found no change, and otherwise makes the same try', () => {
    let unchanged = 0;
    fc.assert(
      fc.property(caseArb, ({ fields, upstream, referenceId }) => {
        // Optional fields absent or present with a value, as a stored record has them.
        const t = Object.fromEntries(
          Object.entries({ ordinal: 1, n: 1, reference: 'ORDER-1-1', jti: 'j', maxAttempts: 3, sendId: 's', sentAt: 1, callbackId: 'c', deadlineAt: 9, promptExpiresAt: null, ...fields }).filter(([, v]) => v !== undefined),
        ) as unknown as PaymentTry;
        const order = { id: 'o', v: 1, ref: 'ORDER-1', tries: [t], sessions: [], history: { payments: 'read', sessions: 'read' }, createdAt: 1, updatedAt: 1 } as unknown as Order;
        const tx: UpstreamPayment = { reference: 'ORDER-1-1', payee: 'Shop', narration: 'n', ...upstream };
        const step = paymentRead(order, { type: 'payment-read', reference: 'ORDER-1-1', startedAt: 2, result: { kind: 'found', tx, referenceId } }, { now: 5 } as unknown as TransitionEnv);
        const expected = oracle(t, tx, referenceId);
        unchanged += expected === t ? 1 : 0;
        if (expected === t) expect(step.order).toBe(order);
        else {
          expect(step.order).not.toBe(order);
          expect(step.order.tries[0]).toStrictEqual(expected);
        }
      }),
      { numRuns: 5_000 },
    );
    // Both sides were tried often enough to mean something.
    expect(unchanged).toBeGreaterThan(250);
    expect(unchanged).toBeLessThan(4_750);
  });
});
