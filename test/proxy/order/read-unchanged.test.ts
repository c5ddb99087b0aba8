// A status read that says what a try already says must leave the order the very object it was (the reconciler
// then writes nothing), and a read that says anything new must change the try. Deciding that field by field
// (`overlay`, rather than building the new try and comparing every key, which was most of a flash sale's
// old-generation garbage: the scale bench's peak) must agree with building and comparing, for every try.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransitionEnv, UpstreamPayment } from '../../../src/proxy/order/events.js';
import type { Order, PaymentTry, TryPhase } from '../../../src/proxy/order/order-record.js';
import { readFields } from '../../../src/proxy/order/found-payment.js';
import { paymentRead } from '../../../src/proxy/order/payment-transitions.js';
import { sessionRead, sessionsListed } from '../../../src/proxy/order/checkout-transitions.js';
import { sessionFields } from '../../../src/proxy/order/found-session.js';
import { overlay, type CheckoutTry, type SessionPhase } from '../../../src/proxy/order/order-record.js';
import type { UpstreamSession } from '../../../src/proxy/order/events.js';
import type { CheckoutViewStatus } from '../../../src/protocol/index.js';

/** Every key of either, compared: what the record would say differs. */
function sameRecord<T extends object>(a: T, b: T): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof T>;
  return [...keys].every((key) => a[key] === b[key]);
}

/** The record with its absent optional fields left out, as a stored record has them. */
const stored = <T>(fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;

/** What a read would make of a record, built whole: every field it sets over the record, absent ones left out. */
const rebuilt = <T extends object>(record: T, fields: object | null): T | null => (fields === null ? null : stored<T>({ ...record, ...fields } as Record<string, unknown>));

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
  it('leaves the order the same object exactly when the try it would build says the same, and otherwise takes that try', () => {
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
        const found = readFields(t, tx, referenceId);
        const built = rebuilt(t, found);
        const same = built === null || sameRecord(t, built);
        if (found) expect(overlay(t, found) === t).toBe(same);
        if (found && !same) expect(overlay(t, found)).toStrictEqual(built);
        unchanged += same ? 1 : 0;
        // A try never sent holds no number at the provider: no read is its.
        if (same || (t.phase === 'void' && t.voidReason === 'not-sent')) expect(step.order).toBe(order);
        else {
          expect(step.order).not.toBe(order);
          expect(step.order.tries[0]).toStrictEqual(built);
        }
      }),
      { numRuns: 5_000 },
    );
    // Both sides were tried often enough to mean something.
    expect(unchanged).toBeGreaterThan(250);
    expect(unchanged).toBeLessThan(4_750);
  });
});

const sessionPhases: SessionPhase[] = ['creating', 'unknown', 'open', 'completed', 'failed', 'cancelled', 'expired', 'refused', 'void'];
const viewStatuses: CheckoutViewStatus[] = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'expired'];
const viewOf = (phase: SessionPhase): CheckoutViewStatus => (phase === 'completed' || phase === 'failed' || phase === 'cancelled' || phase === 'expired' ? phase : 'pending');
const urls = fc.constantFrom(null, 'https://pay.example/c/1', 'https://pay.example/c/2');
const sessionArb = fc.record({
  phase: fc.constantFrom(...sessionPhases),
  checkoutId: fc.constantFrom('co-1', 'co-2'),
  checkoutUrl: urls,
  amount: money,
  currency: fc.constantFrom('GHS', 'XOF'),
  expiresAt: when,
  completedAt: when,
  voidReason: maybe(fc.constantFrom('not-sent' as const, 'not-found' as const)),
  notFound: maybe(fc.constant({ reads: 1, since: 1 })),
  adopted: maybe(fc.constant(true)),
});
const sessionCaseArb = sessionArb.chain((fields) =>
  fc.record({
    fields: fc.constant(fields),
    upstream: fc.record({
      // The view status is mostly what the phase says (an open session: pending, or now and then processing).
      status: mostly(viewOf(fields.phase), fc.constantFrom(...viewStatuses)),
      checkoutId: mostly(fields.checkoutId, fc.constantFrom('co-1', 'co-2')),
      amount: mostly(fields.amount, money),
      currency: mostly(fields.currency, fc.constantFrom('GHS', 'XOF')),
      expiresAt: mostly(fields.expiresAt, when),
      completedAt: mostly(fields.completedAt, when),
      checkoutUrl: maybe(mostly(fields.checkoutUrl, urls)),
    }),
    complete: fc.boolean(),
  }),
);

describe('a checkout session read that changes nothing', () => {
  it('leaves the order the same object exactly when the session it would build says the same, read by id or listed', () => {
    let unchanged = 0;
    fc.assert(
      fc.property(sessionCaseArb, ({ fields, upstream, complete }) => {
        const s = stored<CheckoutTry>({ ordinal: 1, jti: 'j', createId: 'c', startedAt: 1, seq: 1, updatedAt: 1, ...fields, status: viewOf(fields.phase) });
        const order = { id: 'o', v: 1, ref: 'ORDER-1', tries: [], sessions: [s], history: { payments: 'read', sessions: 'read' }, checkoutTerms: { amount: s.amount }, createdAt: 1, updatedAt: 1 } as unknown as Order;
        const u = stored<UpstreamSession>(upstream);
        const f = sessionFields(s, u);
        const built = rebuilt(s, f);
        const same = built === null || sameRecord(s, built);
        if (f) expect(overlay(s, f) === s).toBe(same);
        unchanged += same ? 1 : 0;

        // A read by id, and a listing, name the session by its own id.
        const named: UpstreamSession = { ...u, checkoutId: s.checkoutId! };
        const namedFields = sessionFields(s, named);
        const namedBuilt = rebuilt(s, namedFields);
        const read = sessionRead(order, { type: 'session-read', checkoutId: named.checkoutId, result: { kind: 'found', session: named } });
        if (namedBuilt === null || sameRecord(s, namedBuilt)) expect(read.order).toBe(order);
        else {
          expect(read.order).not.toBe(order);
          expect(read.order.sessions[0]).toStrictEqual(namedBuilt);
        }
        const listed = sessionsListed(order, { type: 'sessions-listed', startedAt: 2, complete, jti: 'r', createId: 'c2', sessions: [named] }, { now: 5, leaseMs: 10, graceMs: 10 } as unknown as TransitionEnv);
        // Of another amount it is not ours and is skipped; a complete listing without an unknown session of
        // ours is a "not found" read of it (a change).
        const after = named.amount === s.amount ? (namedBuilt ?? s) : s;
        const listedSame = sameRecord(s, after) && !(complete && after.phase === 'unknown');
        if (listedSame) expect(listed.order).toBe(order);
        else expect(listed.order).not.toBe(order);
      }),
      { numRuns: 5_000 },
    );
    expect(unchanged).toBeGreaterThan(250);
    expect(unchanged).toBeLessThan(4_750);
  });
});
