import type { SessionPhase, TryPhase } from './order-record.js';

/**
 * The order's state machine as data (DESIGN: the order's state machine): every change a try or a session
 * can go through, by event. `npm run docs` writes it into docs/design.md; test/proxy/order/transition.test.ts
 * walks every state × every event against `transition` and fails when a change happens that this table does
 * not list, or a listed one does not.
 */
export interface Row<P extends string, E extends string> {
  from: P | 'none';
  on: E;
  to: P | 'none';
  /** What else happens: the reply, the notification, the reads. */
  does: string;
}

/** A try whose unknown outcome comes from a refusal without words (`0400`), read to tell "exists" from "invalid". */
export type TryState = TryPhase | 'unknown-0400';

/** The events of a try, as the table and its walk name them. */
export const TRY_EVENTS = [
  'pay',
  'pay, another number',
  'tick, lease over',
  'tick, deadline passed',
  'sent: accepted',
  'sent: refused in words',
  'sent: 0400 without words',
  'sent: no answer',
  'sent: not sent',
  'read: PENDING',
  'read: COMPLETED',
  'read: FAILED',
  'read: CANCELLED',
  'read: other terms',
  'read: not found, seen, twice after grace',
  'read: not found, unseen',
  'operator: absent',
  'checkout',
] as const;
export type TryEvent = (typeof TRY_EVENTS)[number];

export const TRY_STATES: readonly (TryState | 'none')[] = ['none', 'sending', 'unknown', 'unknown-0400', 'pending', 'completed', 'failed', 'cancelled', 'refused', 'void'];

/**
 * A status read finding the try's payment, as the provider's word: the try takes its state (and the provider's
 * number and amounts), and the merchant is notified of it (a void or refused number found revives).
 */
const READ_STATES = [
  ['read: PENDING', 'pending', 'PENDING'],
  ['read: COMPLETED', 'completed', 'COMPLETED'],
  ['read: FAILED', 'failed', 'FAILED'],
  ['read: CANCELLED', 'cancelled', 'CANCELLED'],
] as const;
const readRows = (from: TryState, does: string, only?: readonly TryPhase[]): Row<TryState, TryEvent>[] =>
  READ_STATES.filter(([, to]) => !only || only.includes(to)).map(([on, to, status]) => ({ from, on, to, does: `${does}notify ${status}` }));

export const TRY_TABLE: readonly Row<TryState, TryEvent>[] = ([
  { from: 'none', on: 'pay', to: 'sending', does: 'claim the next number, once this request read the provider has nothing under it and listed the order\'s sessions (the provider is the ledger); send its one request' },
  { from: 'none', on: 'pay, another number', to: 'sending', does: 'as pay: the customer chooses the number' },
  { from: 'sending', on: 'pay', to: 'sending', does: 'wait for its outcome, then answer it' },
  { from: 'sending', on: 'pay, another number', to: 'sending', does: '409 PAYMENT_IN_PROGRESS naming the number (masked)' },
  { from: 'sending', on: 'tick, lease over', to: 'unknown', does: 'its request vanished: read it' },
  { from: 'sending', on: 'tick, deadline passed', to: 'unknown', does: 'its lease ended long before' },
  { from: 'sending', on: 'sent: accepted', to: 'pending', does: 'notify PENDING; read until settled' },
  { from: 'sending', on: 'sent: refused in words', to: 'refused', does: '402 with the reason; notify FAILED (the try\'s own key); the number is taken again' },
  { from: 'sending', on: 'sent: 0400 without words', to: 'unknown-0400', does: 'read: it may mean "already exists"' },
  { from: 'sending', on: 'sent: no answer', to: 'unknown', does: '202 PENDING; read by reference, never sent again' },
  { from: 'sending', on: 'sent: not sent', to: 'void', does: 'the provider\'s error to the customer; not counted' },
  { from: 'unknown', on: 'sent: accepted', to: 'pending', does: 'notify PENDING (a late answer of its own send)' },
  { from: 'unknown', on: 'sent: refused in words', to: 'refused', does: 'notify FAILED (the try\'s own key)' },
  { from: 'unknown', on: 'sent: 0400 without words', to: 'unknown-0400', does: 'a late answer: read to tell "exists" from "invalid"' },
  { from: 'unknown', on: 'read: not found, seen, twice after grace', to: 'void', does: 'nothing exists: the number is free; read slowly for the reconcile window in case it lands late' },
  { from: 'unknown', on: 'operator: absent', to: 'void', does: 'the provider\'s records have nothing (logged); read slowly for the reconcile window in case it lands late; before the grace after the send, or once a callback named a referenceId the check did not read by, 409 PAYMENT_UNCONFIRMED and nothing changes' },
  { from: 'unknown-0400', on: 'sent: accepted', to: 'pending', does: 'notify PENDING' },
  { from: 'unknown-0400', on: 'sent: refused in words', to: 'refused', does: 'notify FAILED (the try\'s own key)' },
  { from: 'unknown-0400', on: 'read: not found, seen, twice after grace', to: 'refused', does: 'it was refused, not a duplicate: notify FAILED' },
  { from: 'unknown-0400', on: 'operator: absent', to: 'void', does: 'the provider\'s records have nothing (logged); read slowly for the reconcile window; before the grace after the send, or once a callback named a referenceId the check did not read by, 409 PAYMENT_UNCONFIRMED and nothing changes' },
  { from: 'pending', on: 'tick, deadline passed', to: 'pending', does: 'TIMED_OUT to the page and the merchant (not final); read once a minute for 24 h' },
  { from: 'refused', on: 'pay', to: 'sending', does: 'the next try, on the same number, while tries are left' },
  { from: 'refused', on: 'pay, another number', to: 'sending', does: 'the next try, on the same number, while tries are left' },
  { from: 'void', on: 'pay', to: 'sending', does: 'the next try, on the same number (the provider refuses it if the lost one landed after all)' },
  { from: 'void', on: 'pay, another number', to: 'sending', does: 'the next try, on the same number' },
  { from: 'void', on: 'sent: accepted', to: 'pending', does: 'its request landed after all (found void, not one never sent): revived, notify PENDING, unless a later try took its number' },
  ...readRows('sending', ''),
  ...readRows('unknown', ''),
  ...readRows('unknown-0400', 'it existed: adopted (one key per charge), '),
  ...readRows('pending', '', ['completed', 'failed', 'cancelled']),
  ...readRows('failed', 'the provider\'s word wins: ', ['completed']),
  ...readRows('cancelled', 'the provider\'s word wins: ', ['completed']),
  ...readRows('refused', 'found after all: '),
  ...readRows('void', 'a late landing: '),
  ...(['failed', 'cancelled'] as const).flatMap((from) =>
    (['pay', 'pay, another number'] as const).map((on) => ({ from, on, to: 'sending' as const, does: 'the next try (next number), while tries are left' })),
  ),
] as Row<TryState, TryEvent>[]).sort((a, b) => TRY_STATES.indexOf(a.from) - TRY_STATES.indexOf(b.from));

/** Changes of a try that no row lists and that are no change at all to the money: said once, here. */
export const TRY_NOTES = [
  'A try in `sending`, `unknown` or `pending` blocks every new try, every new session and any change of method: a pay with the same number answers it, with another number 409 PAYMENT_IN_PROGRESS; a checkout gets 409 ORDER_IN_OTHER_PAYMENT.',
  'A completed try answers every later pay; a checkout gets 409 ORDER_IN_OTHER_PAYMENT.',
  'A read finding a payment with other terms under our reference changes no try: the order is in conflict (409 REFERENCE_CONFLICT, an error in the log).',
  'An unknown try no read can see (status by referenceId only, no referenceId) is shown UNKNOWN and waits for a callback (its referenceId read and checked) or the operator.',
];

export type SessionState = SessionPhase | 'open-expired';

export const SESSION_EVENTS = [
  'checkout',
  'tick, lease over',
  'created',
  'created: URL refused',
  'created: refused',
  'created: no answer',
  'created: not sent',
  'read: pending',
  'read: processing',
  'read: completed',
  'read: failed',
  'read: cancelled',
  'read: expired',
  'listed: ours',
  'listed: none, twice after grace',
  'operator: absent',
  'pay',
] as const;
export type SessionEvent = (typeof SESSION_EVENTS)[number];

export const SESSION_STATES: readonly (SessionState | 'none')[] = ['none', 'creating', 'unknown', 'open', 'open-expired', 'completed', 'failed', 'cancelled', 'expired', 'refused', 'void'];

const finalSession: Array<['read: completed' | 'read: failed' | 'read: cancelled' | 'read: expired', SessionState]> = [
  ['read: completed', 'completed'],
  ['read: failed', 'failed'],
  ['read: cancelled', 'cancelled'],
  ['read: expired', 'expired'],
];

export const SESSION_TABLE: readonly Row<SessionState, SessionEvent>[] = [
  { from: 'none', on: 'checkout', to: 'creating', does: 'claim a session, once this request listed the order\'s sessions and read the provider has nothing under the next number (the provider is the ledger); create it' },
  { from: 'none', on: 'listed: ours', to: 'open', does: 'a session the store did not know (it lost the order): adopted' },
  { from: 'creating', on: 'checkout', to: 'creating', does: 'wait for its outcome, then answer it' },
  { from: 'creating', on: 'tick, lease over', to: 'unknown', does: 'its request vanished: list the order\'s sessions' },
  { from: 'creating', on: 'created', to: 'open', does: '201 with its URL; notify pending; read until final' },
  { from: 'creating', on: 'created: URL refused', to: 'void', does: '502 UPSTREAM_ERROR: nobody is sent to it, so nobody can pay it (logged)' },
  { from: 'creating', on: 'created: refused', to: 'refused', does: '502 UPSTREAM_ERROR' },
  { from: 'creating', on: 'created: no answer', to: 'unknown', does: '503, retryable; list the order\'s sessions' },
  { from: 'creating', on: 'created: not sent', to: 'void', does: 'the provider\'s error to the customer' },
  { from: 'creating', on: 'listed: ours', to: 'creating', does: 'a creation still running is not taken for another\'s' },
  { from: 'unknown', on: 'checkout', to: 'unknown', does: '409 PAYMENT_UNCONFIRMED' },
  { from: 'unknown', on: 'created', to: 'open', does: 'a late answer of its own creation' },
  { from: 'unknown', on: 'created: URL refused', to: 'void', does: 'nobody can be sent to it' },
  { from: 'unknown', on: 'created: refused', to: 'refused', does: '' },
  { from: 'unknown', on: 'listed: ours', to: 'open', does: 'found: adopted with its id (and its URL when the listing has it)' },
  { from: 'unknown', on: 'listed: none, twice after grace', to: 'void', does: 'nothing exists' },
  { from: 'unknown', on: 'operator: absent', to: 'void', does: 'the provider\'s records have nothing (logged); before the grace after the creation started, 409 PAYMENT_UNCONFIRMED and nothing changes' },
  { from: 'open', on: 'checkout', to: 'open', does: 'its URL again (one live session per order)' },
  { from: 'open', on: 'read: processing', to: 'open', does: 'notify processing' },
  ...finalSession.map(([on, to]) => ({ from: 'open' as const, on, to, does: `notify ${to}` })),
  { from: 'open', on: 'operator: absent', to: 'void', does: 'the provider\'s records have nothing (logged); opened since the check (its creation answered while the word was checked), 409 PAYMENT_UNCONFIRMED and nothing changes' },
  { from: 'open-expired', on: 'checkout', to: 'open-expired', does: '409 PAYMENT_UNCONFIRMED until a read says how it ended' },
  { from: 'open-expired', on: 'read: processing', to: 'open-expired', does: 'notify processing' },
  ...finalSession.map(([on, to]) => ({ from: 'open-expired' as const, on, to, does: `notify ${to}` })),
  { from: 'open-expired', on: 'operator: absent', to: 'void', does: 'the provider\'s records have nothing (logged)' },
  ...(['failed', 'cancelled', 'expired', 'refused', 'void'] as const).map((from) => ({ from, on: 'checkout' as const, to: 'creating' as const, does: 'a new session' })),
  ...(['failed', 'cancelled', 'expired'] as const).map((from) => ({ from, on: 'read: completed' as const, to: 'completed' as const, does: 'the provider\'s word wins: notify completed' })),
];

export const SESSION_NOTES = [
  'A session in `creating`, `unknown` or `open` (past its expiry too, until a read says how it ended) blocks every new try and any change of method: a pay gets 409 ORDER_IN_OTHER_PAYMENT.',
  'A completed session answers every later checkout; a pay gets 409 ORDER_IN_OTHER_PAYMENT.',
];
