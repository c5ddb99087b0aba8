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
