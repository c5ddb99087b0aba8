// "Not found" proves a try (or a session being created) absent only as of when the provider answered the read,
// which may be as early as when the read started. A request still on its way can land up to the grace after
// its send, so only a read that started past the grace can rule it out for good. A read started before the
// grace and answered after it says nothing about a landing in between: were it taken as the second "not
// found" past the grace, the try would be void (a new try, a new session, another way to pay) while its
// request could still land and be paid.
import { describe, expect, it } from 'vitest';
import { transition } from '../../../src/proxy/order/transition.js';
import { ENV, NOW, order, paymentTry, session } from './fixtures.js';

const GRACE = ENV.graceMs;

describe('the grace of an unknown outcome, counted to the start of the read that did not find it', () => {
  it('keeps a try unknown when the second "not found" comes from a read started before the grace ended', () => {
    const sentAt = NOW - GRACE - 2_000;
    const unknown = order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'lost', referenceId: null, sentAt, notFound: { reads: 1, since: sentAt + 500 } })] });
    const early = transition(unknown, { type: 'payment-read', reference: 'O-1', startedAt: sentAt + GRACE - 1, result: { kind: 'not-found', canSee: true } }, ENV);
    expect(early.order.tries[0]).toMatchObject({ phase: 'unknown', notFound: { reads: 2 } });

    const late = transition(early.order, { type: 'payment-read', reference: 'O-1', startedAt: sentAt + GRACE, result: { kind: 'not-found', canSee: true } }, ENV);
    expect(late.order.tries[0]).toMatchObject({ phase: 'void', voidReason: 'not-found' });
  });

  it('keeps a session unknown when the second complete listing without it started before the grace ended', () => {
    const startedAt = NOW - GRACE - 2_000;
    const unknown = order({ sessions: [session({ phase: 'unknown', checkoutId: null, checkoutUrl: null, startedAt, notFound: { reads: 1, since: startedAt + 500 } })] });
    const listing = (from: number) => ({ type: 'sessions-listed' as const, startedAt: from, complete: true, jti: 'r', createId: 'c9', sessions: [] });
    const early = transition(unknown, listing(startedAt + GRACE - 1), ENV);
    expect(early.order.sessions[0]).toMatchObject({ phase: 'unknown', notFound: { reads: 2 } });

    const late = transition(early.order, listing(startedAt + GRACE), ENV);
    expect(late.order.sessions[0]).toMatchObject({ phase: 'void', voidReason: 'not-found' });
  });
});

// A process may stall past its lease between claiming a send (its stamp) and sending it: the request is out
// at the latest when its answer comes back, and can land until the grace after that (the model's `ledger` era:
// a 0400 without words taken for a refusal by reads made ms after its late send; it landed, and was paid).
describe('the grace of an answer that left the outcome unknown, counted from that answer', () => {
  const notFound = (startedAt: number) => ({ type: 'payment-read' as const, reference: 'O-1', startedAt, result: { kind: 'not-found' as const, canSee: true } });

  it('takes a 0400 without words sent past its lease for a refusal only by two reads after it, the second past the grace after it', () => {
    const sentAt = NOW - 3 * GRACE;
    const stalled = order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'lease', referenceId: null, sentAt, notFound: { reads: 1, since: sentAt + GRACE } })] });
    const answered = transition(stalled, { type: 'sent', ordinal: 1, sendId: 's1', msisdn: '233240000001', result: { kind: 'refused-generic' } }, ENV).order;
    expect(answered.tries[0]).toMatchObject({ phase: 'unknown', unknownReason: 'refused', sentAt: NOW, notFound: undefined });
    const once = transition(answered, notFound(NOW + 10), { ...ENV, now: NOW + 20 }).order;
    expect(transition(once, notFound(NOW + 20), { ...ENV, now: NOW + 30 }).order.tries[0]).toMatchObject({ phase: 'unknown', notFound: { reads: 2 } });
    expect(transition(once, notFound(NOW + GRACE), { ...ENV, now: NOW + GRACE }).order.tries[0]).toMatchObject({ phase: 'refused', failureCode: 'PAYMENT_FAILED' });
  });

  it('voids a send unanswered past its lease, or a creation, only by reads past the grace after its answer', () => {
    const sentAt = NOW - 3 * GRACE;
    const stalled = order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'lease', referenceId: null, sentAt, notFound: { reads: 1, since: sentAt + GRACE } })] });
    const answered = transition(stalled, { type: 'sent', ordinal: 1, sendId: 's1', msisdn: '233240000001', result: { kind: 'unknown' } }, ENV).order;
    expect(answered.tries[0]).toMatchObject({ phase: 'unknown', unknownReason: 'lease', sentAt: NOW, notFound: undefined });
    expect(transition(answered, notFound(NOW + 10), ENV).order.tries[0]).toMatchObject({ phase: 'unknown', notFound: { reads: 1 } });

    const creating = order({ sessions: [session({ phase: 'unknown', checkoutId: null, checkoutUrl: null, startedAt: sentAt, notFound: { reads: 1, since: sentAt + GRACE } })] });
    const created = transition(creating, { type: 'created', ordinal: 1, createId: 'c1', result: { kind: 'unknown' } }, ENV).order;
    expect(created.sessions[0]).toMatchObject({ phase: 'unknown', startedAt: NOW, notFound: undefined });
  });
});

describe('the operator’s "absent" before the grace after the send', () => {
  const absent = (target: { reference: string } | { sessionOrdinal: number }, checked: string | null = null) => ({ type: 'resolve-absent' as const, target, checked });

  it('is refused for a try whose outcome is unknown, with the time from which it is taken', () => {
    const sentAt = NOW - GRACE + 1;
    const unknown = order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'lost', referenceId: null, sentAt })] });
    const early = transition(unknown, absent({ reference: 'O-1' }), ENV);
    expect(early.order).toBe(unknown);
    expect(early.reply).toMatchObject({ kind: 'refuse', code: 'PAYMENT_UNCONFIRMED', details: { reference: 'O-1', notBefore: new Date(sentAt + GRACE).toISOString() } });
    expect(transition(unknown, absent({ reference: 'O-1' }), { ...ENV, now: sentAt + GRACE }).order.tries[0]).toMatchObject({ phase: 'void', voidReason: 'operator' });
  });

  it('is refused for a session whose creation is unknown, and taken for one the provider answered', () => {
    const startedAt = NOW - GRACE + 1;
    const unknown = order({ sessions: [session({ phase: 'unknown', checkoutId: null, checkoutUrl: null, startedAt })] });
    expect(transition(unknown, absent({ sessionOrdinal: 1 }), ENV).reply).toMatchObject({ kind: 'refuse', code: 'PAYMENT_UNCONFIRMED', details: { session: 1 } });
    const open = order({ sessions: [session({ startedAt })] });
    expect(transition(open, absent({ sessionOrdinal: 1 }, open.sessions[0]!.checkoutId), ENV).order.sessions[0]).toMatchObject({ phase: 'void', voidReason: 'operator' });
  });

  it('is refused, nothing changed, for a try or session the provider answered for since the word was checked', () => {
    const startedAt = NOW - GRACE - 1;
    // Checked while the creation was unknown (no checkoutId to read by); its answer came before the word.
    const opened = order({ sessions: [session({ startedAt })] });
    const step = transition(opened, absent({ sessionOrdinal: 1 }, null), ENV);
    expect(step.order).toBe(opened);
    expect(step.reply).toMatchObject({ kind: 'refuse', code: 'PAYMENT_UNCONFIRMED', details: { session: 1 } });
    // Checked by referenceNo only; a callback named its referenceId meanwhile.
    const hinted = order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'lost', referenceId: null, hintedReferenceId: 'R7', sentAt: startedAt })] });
    expect(transition(hinted, absent({ reference: 'O-1' }, null), ENV)).toMatchObject({ order: hinted, reply: { kind: 'refuse', code: 'PAYMENT_UNCONFIRMED', details: { reference: 'O-1' } } });
    expect(transition(hinted, absent({ reference: 'O-1' }, 'R7'), ENV).order.tries[0]).toMatchObject({ phase: 'void', voidReason: 'operator' });
  });
});
