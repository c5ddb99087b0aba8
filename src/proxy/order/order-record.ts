import type { CheckoutViewStatus } from '../../protocol/index.js';
import { isNumberLock } from '../number-keys.js';
import { isMasked, maskPhone } from '../phone.js';

/**
 * Where one mobile-money try stands with the money (DESIGN: the order's state machine):
 * - `sending`: claimed; its one `POST /v1/payment` is on its way (a lease runs from `sentAt`);
 * - `unknown`: sent, and no answer says what came of it (lost, timed out, a sender that vanished, a refusal
 *   that may mean "already exists"): read until a read that can see it answers;
 * - `pending`: the provider has it and has not settled it;
 * - `completed`, `failed`, `cancelled`: as the provider's status read says (final);
 * - `refused`: the provider refused the request in words (no payment exists; the number is free again);
 * - `void`: no payment exists: never sent, or not found by a read that can see it for long enough.
 */
export type TryPhase = 'sending' | 'unknown' | 'pending' | 'completed' | 'failed' | 'cancelled' | 'refused' | 'void';

/** Phases whose money state is not final: they block every new try, session and change of method. */
export const LIVE_TRY_PHASES: readonly TryPhase[] = ['sending', 'unknown', 'pending'];

/** One mobile-money try of an order. */
export interface PaymentTry {
  /** Which try of the order this is (1-based; the place in `tries`). */
  ordinal: number;
  /** The reference number: the upstream `referenceNo` is `<prefix><order>-<n>`. */
  n: number;
  /** The upstream `referenceNo`. */
  reference: string;
  /** jti of the token that made it (or found it). */
  jti: string;
  /** `maxAttempts` of that token. */
  maxAttempts: number;
  /**
   * The paying number (digits): the one the provider has, once read. Stored masked once the try is final
   * (`atRest`): no rule compares it then, and a read that finds it changed takes the provider's again.
   */
  msisdn: string;
  phase: TryPhase;
  /** Why it is void: never sent, found by nobody, or the operator's word. */
  voidReason?: 'not-sent' | 'not-found' | 'operator';
  /** Why it is unknown: the answer was lost, the sender vanished, or a generic refusal to be read. */
  unknownReason?: 'lost' | 'lease' | 'refused';
  /** Identifies the send under way; a send's answer counts only for its own send. Null: found upstream. */
  sendId: string | null;
  /** Epoch ms the send started; null when found upstream (never sent by us). */
  sentAt: number | null;
  referenceId: string | null;
  /** A referenceId a callback named (never believed: read, and taken only when it answers this reference). */
  hintedReferenceId?: string;
  callbackId: string;
  amount: number;
  charge: number;
  totalAmount: number;
  completedAt: string | null;
  /** Why it failed, as a protocol code (`INSUFFICIENT_FUNDS`, `PAYMENT_FAILED`). */
  failureCode?: string;
  /** After this (epoch ms) a pending try is shown TIMED_OUT: the page stops waiting; reads go on. */
  deadlineAt: number;
  timedOut?: boolean;
  /** Until when the prompt can be approved (epoch ms), when the network's prompt lifetime is known. */
  promptExpiresAt: number | null;
  /** Reads that could see the payment and did not find it, in a row, since `since`. */
  notFound?: { reads: number; since: number };
  /** Found upstream by a read (after a loss, a duplicate, a probe) rather than made by this send. */
  adopted?: boolean;
  /** Sequence of what a watcher sees (the SSE id). */
  seq: number;
  updatedAt: number;
}

/**
 * Where one hosted-checkout session stands:
 * - `creating`: claimed; `POST /v1/checkout/initialize` is on its way (a lease runs from `startedAt`);
 * - `unknown`: created or not: the answer was lost (a session may exist whose id we do not know);
 * - `open`: the provider has it (pending or processing), paid or not yet read so;
 * - `completed`, `failed`, `cancelled`, `expired`: as the status read says (final);
 * - `refused`: the provider refused to create it (nothing exists);
 * - `void`: nothing anyone can pay exists (never sent, found by nobody, the operator's word, or a session whose
 *   URL we refused to give any customer).
 */
export type SessionPhase = 'creating' | 'unknown' | 'open' | 'completed' | 'failed' | 'cancelled' | 'expired' | 'refused' | 'void';

export const LIVE_SESSION_PHASES: readonly SessionPhase[] = ['creating', 'unknown', 'open'];

/** One hosted-checkout session of an order. */
export interface CheckoutTry {
  ordinal: number;
  jti: string;
  phase: SessionPhase;
  voidReason?: 'not-sent' | 'not-found' | 'operator' | 'unusable-url';
  createId: string;
  /** Epoch ms the creation started (or the session was found). */
  startedAt: number;
  checkoutId: string | null;
  checkoutUrl: string | null;
  /** The status as the relay speaks it (`pending`, `processing`, or a final one). */
  status: CheckoutViewStatus;
  amount: number;
  currency: string;
  /** ISO 8601, as the provider gave it. */
  expiresAt: string | null;
  completedAt: string | null;
  notFound?: { reads: number; since: number };
  adopted?: boolean;
  seq: number;
  updatedAt: number;
}

/** What the first mobile-money try of an order fixed: a token with other terms is refused (`ORDER_CHANGED`). */
export interface PaymentTerms {
  amount: number;
  currency: string;
  payee: string;
  narration: string;
  /**
   * The number the token locked, or null when the customer chooses it. Compared only (a later token's, a found
   * payment's: `NumberLocks.holds`), so kept as a lock (a keyed hash) where the store's format says so.
   */
  msisdn: string | null;
}

/** How a record keeps, and compares, the number a token locks (DESIGN: phone numbers at rest). */
export interface NumberLocks {
  /** What a locked number is written as (`NumberKeys.lock`), or null while the store's format keeps it in full (format 1). */
  atRest: ((digits: string) => string) | null;
  /** Whether a locked number as kept (a lock, or a full number) is `digits`; null when the lock's key is configured no more. */
  holds(kept: string, digits: string): boolean | null;
}

/** What the first checkout session of an order fixed. */
export interface CheckoutTerms {
  amount: number;
  title: string;
  description: string;
}

/** Whether the provider's history of the order was read before the first thing was sent. */
export type HistoryState = 'unread' | 'read' | 'unreadable';

/**
 * Everything the money rules of one order span (DESIGN: one order, one record, one transition): its terms,
 * every mobile-money try and every checkout session with its phase, and a version. Changed only by
 * `transition`, applied with one compare-and-set together with the notifications it decides.
 */
export interface Order {
  /** Random per creation: a record made anew after the store lost one has another. */
  id: string;
  /** Bumped by every change. */
  v: number;
  /** The merchant's order reference (without the shop prefix). */
  ref: string;
  terms?: PaymentTerms;
  checkoutTerms?: CheckoutTerms;
  tries: PaymentTry[];
  sessions: CheckoutTry[];
  /** Whether the provider was asked what it has for this order (references by number; sessions by reference). */
  history: { payments: HistoryState; sessions: HistoryState };
  /** A payment under one of this order's references whose terms are not ours. */
  conflict?: { reference: string; at: number };
  createdAt: number;
  updatedAt: number;
}

/** A new, empty order. `readable` says which histories the provider lets us read. */
export function newOrder(id: string, ref: string, now: number, readable: { payments: boolean; sessions: boolean }): Order {
  return {
    id,
    v: 0,
    ref,
    tries: [],
    sessions: [],
    history: { payments: readable.payments ? 'unread' : 'unreadable', sessions: readable.sessions ? 'unread' : 'unreadable' },
    createdAt: now,
    updatedAt: now,
  };
}

export const isLiveTry = (t: PaymentTry): boolean => LIVE_TRY_PHASES.includes(t.phase);
export const isLiveSession = (s: CheckoutTry): boolean => LIVE_SESSION_PHASES.includes(s.phase);

/**
 * The record as the store keeps it (DESIGN: phone numbers at rest): a final try's number masked, and the
 * number the terms lock as a lock where the store's format keeps one (`lock`). A live try's number is compared
 * (another number is refused while its prompt waits; the prompts waiting on a number are counted) and a final
 * one's is not; a receipt takes the number from the step that completes the try (`messagesOf` runs on the
 * step's order, before this), and a late completion's read brings the provider's number back. The terms'
 * number is only ever compared. The same object when nothing changes.
 */
export function atRest(order: Order, lock: NumberLocks['atRest']): Order {
  const locked = order.terms?.msisdn;
  const terms = lock && order.terms && locked && !isNumberLock(locked) ? { ...order.terms, msisdn: lock(locked) } : order.terms;
  if (terms === order.terms && order.tries.every((t) => isLiveTry(t) || isMasked(t.msisdn))) return order;
  return { ...order, terms, tries: order.tries.map((t) => (isLiveTry(t) || isMasked(t.msisdn) ? t : { ...t, msisdn: maskPhone(t.msisdn) })) };
}

/** The record's value in the store: the order {@link atRest}, as JSON. Every write and every comparison with a stored value uses it. */
export function recordValue(order: Order, env: { numbers: NumberLocks }): string {
  return JSON.stringify(atRest(order, env.numbers.atRest));
}

/** The order's live try: at most one exists (the transition never starts a second). */
export function liveTry(order: Order): PaymentTry | undefined {
  return order.tries.find(isLiveTry);
}

export function liveSession(order: Order): CheckoutTry | undefined {
  return order.sessions.find(isLiveSession);
}

export function completedTry(order: Order): PaymentTry | undefined {
  return order.tries.find((t) => t.phase === 'completed');
}

export function completedSession(order: Order): CheckoutTry | undefined {
  return order.sessions.find((s) => s.phase === 'completed');
}

/** Tries that count against `maxAttempts`: every one but the void (refusals count). */
export function triesUsed(order: Order): number {
  return order.tries.filter((t) => t.phase !== 'void').length;
}

/**
 * The latest try holding `reference` at the provider (a void or refused number is taken again by a later try).
 * A try never sent holds none: it did not reach the provider, so an earlier try of that number, void because
 * nobody found it, is still the one a late landing belongs to, and is still read for it. Nor does a try
 * refused in words while an earlier one of its number may still land: the provider made nothing of the
 * refused request, so a payment under that number is the earlier one's.
 */
export function tryByReference(order: Order, reference: string): PaymentTry | undefined {
  const sent = (t: PaymentTry) => t.reference === reference && !(t.phase === 'void' && t.voidReason === 'not-sent');
  return order.tries.findLast((t) => sent(t) && t.phase !== 'refused') ?? order.tries.findLast(sent);
}

/**
 * A void try whose request may still land: void only in someone's reading of the provider (not found by two
 * reads, or absent in the operator's word), never one not sent. A request can be on its way past any bound
 * the proxy enforces, so such a try is read on for the reconcile window (DESIGN: unknown blocks everything).
 */
export function mayLandLate(t: PaymentTry): boolean {
  return t.phase === 'void' && (t.voidReason === 'not-found' || t.voidReason === 'operator');
}

/** The reference number the next try takes: one past every number the provider has (or may have). */
export function nextNumber(order: Order): number {
  let top = 0;
  for (const t of order.tries) if (t.phase !== 'void' && t.phase !== 'refused') top = Math.max(top, t.n);
  return top + 1;
}

/**
 * `x` with `fields` set over it (a field given as undefined: removed), or `x` itself when it already says every
 * one of them. Nearly every read of a pending payment or an open session says what the record says: it is
 * answered field by field, without building a try or session (the flash sale's garbage), and nothing is written.
 */
export function overlay<T extends object>(x: T, fields: { [K in keyof T]?: T[K] | undefined }): T {
  const own = x as Record<string, unknown>;
  const given = fields as Record<string, unknown>;
  let same = true;
  for (const key in given) same &&= own[key] === given[key];
  if (same) return x;
  const next = { ...own };
  for (const key in given) {
    if (given[key] === undefined) delete next[key];
    else next[key] = given[key];
  }
  return next as T;
}

/** The order with try `ordinal` changed. */
export function withTry(order: Order, ordinal: number, change: (t: PaymentTry) => PaymentTry): Order {
  return { ...order, tries: order.tries.map((t) => (t.ordinal === ordinal ? change(t) : t)) };
}

/** The order with session `ordinal` changed. */
export function withSession(order: Order, ordinal: number, change: (s: CheckoutTry) => CheckoutTry): Order {
  const s = order.sessions.find((x) => x.ordinal === ordinal);
  const next = s && change(s);
  // A change that changes nothing leaves the order the same object: the step writes nothing.
  return !next || next === s ? order : { ...order, sessions: order.sessions.map((x) => (x === s ? next : x)) };
}
