/**
 * The order's state machine, walked (STYLE: the table is the documentation, and the tests walk it): every
 * state of a try and of a session × every event, against `transition`. A change the table does not list, or a
 * listed change that does not happen, fails here.
 */
import { describe, expect, it } from 'vitest';
import { UNSEEN, type OrderEvent, type Seen, type TransitionEnv } from '../../../src/proxy/order/events.js';
import { numberKeys } from '../../../src/proxy/number-keys.js';
import { newOrder, nextNumber, recordValue, type Order } from '../../../src/proxy/order/order-record.js';
import {
  SESSION_EVENTS,
  SESSION_STATES,
  SESSION_TABLE,
  TRY_EVENTS,
  TRY_STATES,
  TRY_TABLE,
  type SessionEvent,
  type SessionState,
  type TryEvent,
  type TryState,
} from '../../../src/proxy/order/state-table.js';
import { transition } from '../../../src/proxy/order/transition.js';
import { ENV, LOCKING_ENV, NOW, NUMBER_KEYS, CHECKOUT_TERMS, TERMS, order, paymentTry, session, tx, upstreamSession } from './fixtures.js';

function tryFixture(state: TryState | 'none'): Order {
  const old = { sentAt: NOW - 10_000, notFound: { reads: 1, since: NOW - 5_000 } };
  switch (state) {
    case 'none':
      return order();
    case 'sending':
      return order({ tries: [paymentTry({ phase: 'sending', referenceId: null })] });
    case 'unknown':
      return order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'lost', referenceId: null, ...old })] });
    case 'unknown-0400':
      return order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'refused', referenceId: null, ...old })] });
    case 'refused':
      return order({ tries: [paymentTry({ phase: 'refused', failureCode: 'INSUFFICIENT_FUNDS', referenceId: null })] });
    case 'void':
      return order({ tries: [paymentTry({ phase: 'void', voidReason: 'not-found', referenceId: null, sentAt: NOW - 10_000 })] });
    default:
      return order({ tries: [paymentTry({ phase: state })] });
  }
}

const pay = (msisdn: string, seen: Seen = UNSEEN): OrderEvent => ({ type: 'pay', jti: 'j2', msisdn, maxAttempts: 3, terms: TERMS, sendId: 's2', callbackId: 'cb2', promptLifetimeMs: null, seen });
const read = (status: 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED', parts = {}): OrderEvent => ({
  type: 'payment-read',
  reference: 'O-1',
  startedAt: NOW,
  result: { kind: 'found', tx: tx(status, parts) },
});
const sent = (result: Extract<OrderEvent, { type: 'sent' }>['result']): OrderEvent => ({ type: 'sent', ordinal: 1, sendId: 's1', msisdn: '233240000001', result });
const at = (ms: number): TransitionEnv => ({ ...ENV, now: ms });

function tryEvent(name: TryEvent): { event: OrderEvent; env: TransitionEnv } {
  const plain = (event: OrderEvent) => ({ event, env: ENV });
  switch (name) {
    case 'pay':
      return plain(pay('233240000001'));
    case 'pay, another number':
      return plain(pay('233200000009'));
    case 'tick, lease over':
      return { event: { type: 'tick' }, env: at(NOW + 2_000) };
    case 'tick, deadline passed':
      return { event: { type: 'tick' }, env: at(NOW + 120_000) };
    case 'sent: accepted':
      return plain(sent({ kind: 'accepted', referenceId: 'R9', amount: 12.5, charge: 0.13, totalAmount: 12.63 }));
    case 'sent: refused in words':
      return plain(sent({ kind: 'refused', failureCode: 'INSUFFICIENT_FUNDS' }));
    case 'sent: 0400 without words':
      return plain(sent({ kind: 'refused-generic' }));
    case 'sent: no answer':
      return plain(sent({ kind: 'unknown' }));
    case 'sent: not sent':
      return plain(sent({ kind: 'not-sent' }));
    case 'read: PENDING':
    case 'read: COMPLETED':
    case 'read: FAILED':
    case 'read: CANCELLED':
      return plain(read(name.slice(6) as 'PENDING'));
    case 'read: other terms':
      return plain(read('PENDING', { amount: 99 }));
    case 'read: not found, seen, twice after grace':
      return plain({ type: 'payment-read', reference: 'O-1', startedAt: NOW, result: { kind: 'not-found', canSee: true } });
    case 'read: not found, unseen':
      return plain({ type: 'payment-read', reference: 'O-1', startedAt: NOW, result: { kind: 'not-found', canSee: false } });
    case 'operator: absent':
      return plain({ type: 'resolve-absent', target: { reference: 'O-1' }, checked: null });
    case 'checkout':
      return plain({ type: 'checkout', jti: 'j2', terms: CHECKOUT_TERMS, createId: 'c2', seen: UNSEEN });
  }
}

function tryStateOf(o: Order, creates: boolean): TryState | 'none' {
  const t = creates ? o.tries.at(-1) : o.tries.find((x) => x.ordinal === 1);
  if (!t) return 'none';
  return t.phase === 'unknown' && t.unknownReason === 'refused' ? 'unknown-0400' : t.phase;
}

function sessionFixture(state: SessionState | 'none'): Order {
  const idless = { checkoutId: null, checkoutUrl: null, expiresAt: null };
  switch (state) {
    case 'none':
      return order();
    case 'creating':
      return order({ sessions: [session({ phase: 'creating', ...idless })] });
    case 'unknown':
      return order({ sessions: [session({ phase: 'unknown', ...idless, startedAt: NOW - 10_000, notFound: { reads: 1, since: NOW - 5_000 } })] });
    case 'open':
      return order({ sessions: [session()] });
    case 'open-expired':
      return order({ sessions: [session({ expiresAt: new Date(NOW - 1_000).toISOString() })] });
    case 'refused':
    case 'void':
      return order({ sessions: [session({ phase: state, ...idless })] });
    default:
      return order({ sessions: [session({ phase: state, status: state })] });
  }
}

/** The operator's "absent" as the proxy checks it: by the id the try or session has (none where it has none). */
function checkedAsIs(o: Order, event: OrderEvent): OrderEvent {
  if (event.type !== 'resolve-absent') return event;
  const t = 'reference' in event.target ? o.tries.findLast((x) => x.reference === (event.target as { reference: string }).reference) : undefined;
  const s = 'sessionOrdinal' in event.target ? o.sessions.find((x) => x.ordinal === (event.target as { sessionOrdinal: number }).sessionOrdinal) : undefined;
  return { ...event, checked: t ? (t.referenceId ?? t.hintedReferenceId ?? null) : (s?.checkoutId ?? null) };
}

/** A customer's request as the flows apply it: after reading what the provider has (the next number free, the sessions listed). */
function providerRead(o: Order, event: OrderEvent): OrderEvent {
  if (event.type !== 'pay' && event.type !== 'checkout') return event;
  return { ...event, seen: { freeNumber: nextNumber(o), sessionsListed: true } };
}

function sessionEvent(name: SessionEvent): { event: OrderEvent; env: TransitionEnv } {
  const plain = (event: OrderEvent) => ({ event, env: ENV });
  const created = (result: Extract<OrderEvent, { type: 'created' }>['result']): OrderEvent => ({ type: 'created', ordinal: 1, createId: 'c1', result });
  switch (name) {
    case 'checkout':
      return plain({ type: 'checkout', jti: 'j2', terms: CHECKOUT_TERMS, createId: 'c2', seen: UNSEEN });
    case 'tick, lease over':
      return { event: { type: 'tick' }, env: at(NOW + 2_000) };
    case 'created':
      return plain(created({ kind: 'created', session: { ...upstreamSession('pending'), checkoutUrl: 'http://127.0.0.1/checkout/CO1' } }));
    case 'created: URL refused':
      return plain(created({ kind: 'unusable', checkoutId: 'CO1' }));
    case 'created: refused':
      return plain(created({ kind: 'refused' }));
    case 'created: no answer':
      return plain(created({ kind: 'unknown' }));
    case 'created: not sent':
      return plain(created({ kind: 'not-sent' }));
    case 'listed: ours':
      return plain({ type: 'sessions-listed', startedAt: NOW, complete: true, jti: 'r', createId: 'c9', sessions: [upstreamSession('pending', { checkoutId: 'CO9' })] });
    case 'listed: none, twice after grace':
      return plain({ type: 'sessions-listed', startedAt: NOW, complete: true, jti: 'r', createId: 'c9', sessions: [] });
    case 'operator: absent':
      return plain({ type: 'resolve-absent', target: { sessionOrdinal: 1 }, checked: null });
    case 'pay':
      return plain(pay('233240000001'));
    default:
      // A read that does not restate the expiry keeps the one the session has.
      return plain({ type: 'session-read', checkoutId: 'CO1', result: { kind: 'found', session: upstreamSession(name.slice(6) as 'pending', { expiresAt: null }) } });
  }
}

function sessionStateOf(o: Order, creates: boolean, now: number): SessionState | 'none' {
  const s = creates ? o.sessions.at(-1) : o.sessions.find((x) => x.ordinal === 1);
  if (!s) return 'none';
  if (s.phase === 'open' && s.expiresAt !== null && Date.parse(s.expiresAt) <= now) return 'open-expired';
  return s.phase;
}

describe('the order state machine', () => {
  it('lists each change of a try once, between known states and events', () => {
    const cells = TRY_TABLE.map((r) => `${r.from} × ${r.on}`);
    expect(new Set(cells).size).toBe(cells.length);
    for (const row of TRY_TABLE) {
      expect(TRY_STATES).toContain(row.from);
      expect(TRY_STATES).toContain(row.to);
      expect(TRY_EVENTS).toContain(row.on);
    }
  });

  for (const state of TRY_STATES) {
    it(`takes a try in ${state} through every event as the table says`, () => {
      for (const name of TRY_EVENTS) {
        const { event, env } = tryEvent(name);
        const before = tryFixture(state);
        const after = transition(before, providerRead(before, checkedAsIs(before, event)), env).order;
        const row = TRY_TABLE.find((r) => r.from === state && r.on === name);
        const creates = name === 'pay' || name === 'pay, another number';
        expect(`${state} × ${name} → ${tryStateOf(after, creates)}`).toBe(`${state} × ${name} → ${row ? row.to : state}`);
      }
    });
  }

  it('lists each change of a session once, between known states and events', () => {
    const cells = SESSION_TABLE.map((r) => `${r.from} × ${r.on}`);
    expect(new Set(cells).size).toBe(cells.length);
    for (const row of SESSION_TABLE) {
      expect(SESSION_STATES).toContain(row.from);
      expect(SESSION_STATES).toContain(row.to);
      expect(SESSION_EVENTS).toContain(row.on);
    }
  });

  for (const state of SESSION_STATES) {
    it(`takes a session in ${state} through every event as the table says`, () => {
      for (const name of SESSION_EVENTS) {
        const { event, env } = sessionEvent(name);
        const before = sessionFixture(state);
        const after = transition(before, providerRead(before, checkedAsIs(before, event)), env).order;
        const row = SESSION_TABLE.find((r) => r.from === state && r.on === name);
        expect(`${state} × ${name} → ${sessionStateOf(after, name === 'checkout', env.now)}`).toBe(`${state} × ${name} → ${row ? row.to : state}`);
      }
    });
  }
});

describe('the provider is the ledger: a new try or session only after this request read the provider', () => {
  const fresh = () => newOrder('id', 'O', NOW, { payments: true, sessions: true });
  const probed = (n: number, result: Extract<OrderEvent, { type: 'payment-probed' }>['result']): OrderEvent => ({
    type: 'payment-probed',
    n,
    jti: 'j2',
    maxAttempts: 3,
    terms: TERMS,
    callbackId: 'cb2',
    result,
  });

  it('reads the provider\u2019s next number, then its sessions, before the first send', () => {
    const first = transition(fresh(), pay('233240000001'), ENV);
    expect(first.reply).toEqual({ kind: 'probe-payment', n: 1, reference: 'O-1' });
    const second = transition(transition(first.order, probed(1, { kind: 'not-found' }), ENV).order, pay('233240000001', { freeNumber: 1, sessionsListed: false }), ENV);
    expect(second.reply).toEqual({ kind: 'probe-sessions', reference: 'O' });
    expect(second.order.tries).toEqual([]);
    expect(transition(second.order, pay('233240000001', { freeNumber: 1, sessionsListed: true }), ENV).reply).toMatchObject({ kind: 'send' });
  });

  // A Redis restarted from its last snapshot gave back a record that said the provider had been read and the
  // last try declined; the customer had paid another way since, and the next request sent a second charge.
  it('does not believe a record that says the provider was read: a stale one reads the number after its last try', () => {
    const stale = order({ tries: [paymentTry({ phase: 'cancelled' })] });
    expect(stale.history).toEqual({ payments: 'read', sessions: 'read' });
    expect(transition(stale, pay('233240000001'), ENV).reply).toEqual({ kind: 'probe-payment', n: 2, reference: 'O-2' });
    // A number read free by this request, but the record moved since (another try took it): read again.
    expect(transition(stale, pay('233240000001', { freeNumber: 1, sessionsListed: true }), ENV).reply).toEqual({ kind: 'probe-payment', n: 2, reference: 'O-2' });
    const adopted = transition(stale, probed(2, { kind: 'found', tx: tx('COMPLETED', { reference: 'O-2' }) }), ENV).order;
    expect(adopted.tries.map((t) => [t.reference, t.phase])).toEqual([
      ['O-1', 'cancelled'],
      ['O-2', 'completed'],
    ]);
    expect(transition(adopted, pay('233240000001'), ENV).reply).toEqual({ kind: 'payment', ordinal: 2 });
    expect(transition(adopted, { type: 'checkout', jti: 'c', terms: CHECKOUT_TERMS, createId: 'c9', seen: UNSEEN }, ENV).reply).toMatchObject({ code: 'ORDER_IN_OTHER_PAYMENT' });
  });

  it('takes a number the record holds as void, found after all, into that try', () => {
    const stale = order({ tries: [paymentTry({ phase: 'void', voidReason: 'not-found', referenceId: null })] });
    const found = transition(stale, probed(1, { kind: 'found', tx: tx('PENDING') }), ENV).order;
    expect(found.tries.map((t) => [t.ordinal, t.phase])).toEqual([[1, 'pending']]);
  });

  it('does not believe a record that says a checkout ended: a new session only after this request listed the sessions', () => {
    const stale = order({ sessions: [session({ phase: 'cancelled', status: 'cancelled' })] });
    const checkout = (seen: Seen): OrderEvent => ({ type: 'checkout', jti: 'j2', terms: CHECKOUT_TERMS, createId: 'c2', seen });
    expect(transition(stale, checkout(UNSEEN), ENV).reply).toEqual({ kind: 'probe-payment', n: 1, reference: 'O-1' });
    expect(transition(stale, checkout({ freeNumber: 1, sessionsListed: false }), ENV).reply).toEqual({ kind: 'probe-sessions', reference: 'O' });
    const listed = transition(
      stale,
      { type: 'sessions-listed', startedAt: NOW, complete: true, jti: 'r', createId: 'c9', sessions: [upstreamSession('completed', { checkoutId: 'CO2' })] },
      ENV,
    ).order;
    expect(transition(listed, checkout({ freeNumber: 1, sessionsListed: true }), ENV).reply).toEqual({ kind: 'session', ordinal: 2 });
    expect(transition(listed, pay('233240000001', { freeNumber: 1, sessionsListed: true }), ENV).reply).toMatchObject({ code: 'ORDER_IN_OTHER_PAYMENT' });
  });

  it('reads nothing the provider cannot show: status by referenceId only and no listing leave it to the record', () => {
    const blind = { ...ENV, readsByReferenceNo: false, listsSessions: false };
    expect(transition(order({ tries: [paymentTry({ phase: 'cancelled' })] }), pay('233240000001'), blind).reply).toMatchObject({ kind: 'send' });
  });

  it('sends mobile money when the sessions cannot be listed (the checkout interface down), as for a provider that lists none', () => {
    const probedOrder = transition(fresh(), probed(1, { kind: 'not-found' }), ENV).order;
    const unlisted = transition(probedOrder, { type: 'sessions-unlisted' }, ENV).order;
    expect(unlisted.history).toEqual({ payments: 'read', sessions: 'unreadable' });
    const sent = transition(unlisted, pay('233240000001', { freeNumber: 1, sessionsListed: true }), ENV);
    expect(sent.reply).toMatchObject({ kind: 'send' });
    expect(sent.order.tries.map((t) => t.phase)).toEqual(['sending']);
  });

  it('keeps a listing it has: an unlisted sessions read later changes nothing', () => {
    const read = order();
    expect(transition(read, { type: 'sessions-unlisted' }, ENV).order.history).toEqual({ payments: 'read', sessions: 'read' });
  });
});

describe('a status read', () => {
  // At ten thousand payments pending, every read wrote the order's record again (a new version, the same
  // face): most of the proxy's store commands and garbage under a flash sale (`npm run bench`, scale).
  it('that says what the try already says changes nothing, so nothing is written', () => {
    const first = transition(order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'lost', notFound: { reads: 1, since: NOW } })] }), read('PENDING'), ENV).order;
    expect(first.tries[0]).toMatchObject({ phase: 'pending', charge: 0.13, totalAmount: 12.63 });
    // As the store gives it back: the fields the read set to undefined are left out.
    const stored = JSON.parse(JSON.stringify(first)) as Order;
    expect(transition(stored, read('PENDING'), at(NOW + 10_000)).order).toBe(stored);
    expect(transition(first, read('PENDING'), at(NOW + 10_000)).order).toBe(first);
    // What a read brings still changes the try: another number, an amount, completion.
    expect(transition(stored, read('PENDING', { msisdn: '233240000009' }), ENV).order.tries[0]).toMatchObject({ msisdn: '233240000009' });
    expect(transition(stored, read('PENDING', { charge: 0.2 }), ENV).order.tries[0]).toMatchObject({ charge: 0.2 });
    expect(transition(stored, read('COMPLETED'), ENV).order.tries[0]).toMatchObject({ phase: 'completed' });
  });
});

describe('a refusal without words (0400)', () => {
  const notFound = (startedAt: number): OrderEvent => ({ type: 'payment-read', reference: 'O-1', startedAt, result: { kind: 'not-found', canSee: true } });
  // The gateway answered 0400 and processed the request anyway: its payment appeared 1.5 s later. One read
  // that did not find it yet was taken for a refusal (402), and the customer paid again by checkout.
  it('is a refusal only once not found twice, the second read started past the grace after its send', () => {
    const fresh = order({ tries: [paymentTry({ phase: 'unknown', unknownReason: 'refused', referenceId: null, sentAt: NOW - 500 })] });
    const once = transition(fresh, notFound(NOW), ENV).order;
    expect(once.tries[0]).toMatchObject({ phase: 'unknown', unknownReason: 'refused', notFound: { reads: 1 } });
    const twiceEarly = transition(once, notFound(NOW + 1_000), at(NOW + 1_000)).order;
    expect(twiceEarly.tries[0]).toMatchObject({ phase: 'unknown', notFound: { reads: 2 } });
    const past = transition(twiceEarly, notFound(NOW + 5_000), at(NOW + 5_000)).order;
    expect(past.tries[0]).toMatchObject({ phase: 'refused', failureCode: 'PAYMENT_FAILED' });
    expect(transition(once, read('PENDING'), ENV).order.tries[0]).toMatchObject({ phase: 'pending' });
  });
});

describe('the number a token locks, kept as a lock (DESIGN: phone numbers at rest)', () => {
  const NUMBER = '233240000001';
  const lockedTerms = { ...TERMS, msisdn: NUMBER };
  const payWith = (msisdn: string | null, parts: Partial<Extract<OrderEvent, { type: 'pay' }>> = {}): OrderEvent => ({ ...(pay(NUMBER) as Extract<OrderEvent, { type: 'pay' }>), terms: { ...TERMS, msisdn }, ...parts });
  const probedWith = (msisdn: string): OrderEvent => ({
    type: 'payment-probed',
    n: 2,
    jti: 'j2',
    maxAttempts: 3,
    terms: lockedTerms,
    callbackId: 'cb2',
    result: { kind: 'found', tx: tx('COMPLETED', { reference: 'O-2', msisdn }) },
  });
  /** An order paid once and declined, as a store of format 2 keeps it (the terms' number a lock), read back. */
  const stored = (numbers = LOCKING_ENV.numbers) => {
    const o = order({ terms: lockedTerms, tries: [paymentTry({ phase: 'cancelled', msisdn: NUMBER })] });
    return JSON.parse(recordValue(o, { numbers })) as Order;
  };

  it('is written as a lock where the store keeps one, in full where it does not, and compares alike', () => {
    expect(stored().terms?.msisdn).toBe(NUMBER_KEYS.lock(NUMBER));
    expect(stored().terms?.msisdn).not.toContain('240000001');
    expect(stored(ENV.numbers).terms?.msisdn).toBe(NUMBER);
    for (const [record, env] of [
      [stored(), ENV],
      [stored(ENV.numbers), LOCKING_ENV],
    ] as const) {
      // The same number again: not a change; the order goes on to read its next number.
      expect(transition(record, payWith(NUMBER), env).reply).toEqual({ kind: 'probe-payment', n: 2, reference: 'O-2' });
      for (const other of ['233240000002', null]) {
        expect(transition(record, payWith(other), env).reply).toMatchObject({ kind: 'refuse', code: 'ORDER_CHANGED', details: { changed: ['msisdn'] } });
      }
      // A payment found under the order's next reference is adopted with the locked number only.
      expect(transition(record, probedWith(NUMBER), env).order.tries.map((t) => t.phase)).toEqual(['cancelled', 'completed']);
      expect(transition(record, probedWith('233240000002'), env).reply).toEqual({ kind: 'conflict', reference: 'O-2' });
    }
  });

  it('is recognised under a retired secret; with its secret gone, a token is refused and a found payment compared on the rest', () => {
    const rotated = numberKeys('the-next-token-secret-0123456789-abcdef', [], ['fixture-token-secret-0123456789-abcdefgh']);
    const rotatedEnv = { ...LOCKING_ENV, numbers: { atRest: rotated.lock, holds: rotated.holds } };
    expect(transition(stored(), payWith(NUMBER), rotatedEnv).reply).toEqual({ kind: 'probe-payment', n: 2, reference: 'O-2' });
    expect(transition(stored(), probedWith('233240000002'), rotatedEnv).reply).toEqual({ kind: 'conflict', reference: 'O-2' });
    // The record's lock stays as it was made: a record is rewritten under a rotation without a change.
    expect(recordValue(stored(), rotatedEnv)).toBe(recordValue(stored(), LOCKING_ENV));

    const forgotten = numberKeys('the-next-token-secret-0123456789-abcdef');
    const goneEnv = { ...LOCKING_ENV, numbers: { atRest: forgotten.lock, holds: forgotten.holds } };
    expect(transition(stored(), payWith(NUMBER), goneEnv).reply).toMatchObject({ code: 'ORDER_CHANGED', details: { changed: ['msisdn'] } });
    // Refusing it would leave a payment the order made unreported: it is the order's, as if no number were locked.
    expect(transition(stored(), probedWith(NUMBER), goneEnv).order.tries.map((t) => t.phase)).toEqual(['cancelled', 'completed']);
    expect(transition(stored(), probedWith('233240000002'), goneEnv).order.tries.map((t) => t.phase)).toEqual(['cancelled', 'completed']);
  });
});
