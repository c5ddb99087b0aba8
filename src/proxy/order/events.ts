import type { CheckoutViewStatus, ProxyErrorCode } from '../../protocol/index.js';
import type { CheckoutTerms, NumberLocks, Order, PaymentTerms } from './order-record.js';
import type { References } from './references.js';
import type { ViewEnv } from './views.js';

/** A payment as the provider's status read describes it. */
export interface UpstreamPayment {
  reference: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
  amount: number;
  charge: number;
  totalAmount: number;
  payee: string;
  narration: string;
  msisdn: string;
  completedAt: string | null;
}

/** A checkout session as the provider describes it (status read or listing). */
export interface UpstreamSession {
  checkoutId: string;
  status: CheckoutViewStatus;
  amount: number;
  currency: string;
  expiresAt: string | null;
  completedAt: string | null;
  /** Present when the provider says it (initialisation, a listing that has it). */
  checkoutUrl?: string | null;
}

/** What one `POST /v1/payment` came to. */
export type SendResult =
  | { kind: 'accepted'; referenceId: string; amount: number; charge: number; totalAmount: number }
  /** Refused in words (an error code of its own, such as INSUFFICIENT_FUNDS): nothing was created. */
  | { kind: 'refused'; failureCode: string }
  /** Refused without words (`0400 Bad Request`): it may mean "this reference already exists". */
  | { kind: 'refused-generic' }
  /** No answer that says what happened (timeout, reset, 5xx, an unreadable answer): it may exist. */
  | { kind: 'unknown' }
  /** Certainly never processed (not sent, circuit open, credentials refused, rate limited). */
  | { kind: 'not-sent' };

/** What one `POST /v1/checkout/initialize` came to. */
export type CreateResult =
  | { kind: 'created'; session: UpstreamSession & { checkoutUrl: string } }
  /** Created, but its URL is not one a customer may be sent to: nobody can pay it. */
  | { kind: 'unusable'; checkoutId: string }
  | { kind: 'refused' }
  | { kind: 'unknown' }
  | { kind: 'not-sent' };

/**
 * What the request itself read of the provider before it asked for a new try or session (DESIGN: the provider
 * is the ledger). Carried by the event, never stored: a record can be stale, rolled back or restored, so what
 * it says was read once proves nothing now.
 */
export interface Seen {
  /** The reference number this request read and the provider had nothing under, or null. */
  freeNumber: number | null;
  /** True once this request listed the order's sessions and applied what it found (or, paying by mobile money, could not list them). */
  sessionsListed: boolean;
}

/** A request that has read nothing yet. */
export const UNSEEN: Seen = { freeNumber: null, sessionsListed: false };

/** Everything that changes an order. */
export type OrderEvent =
  /** `POST /payments`: a customer asks to pay by mobile money (ids made by the caller, so this stays pure). */
  | {
      type: 'pay';
      jti: string;
      msisdn: string;
      maxAttempts: number;
      terms: PaymentTerms;
      sendId: string;
      callbackId: string;
      /** How long the prompt can be approved, when the network's prompt lifetime is known. */
      promptLifetimeMs: number | null;
      seen: Seen;
    }
  /** `POST /checkouts`: a customer asks for the hosted checkout. */
  | { type: 'checkout'; jti: string; terms: CheckoutTerms; createId: string; seen: Seen }
  /**
   * The answer of a try's send. `msisdn`: the number the request went to (a try found void meanwhile holds it
   * only masked, and an acceptance makes it live again).
   */
  | { type: 'sent'; ordinal: number; sendId: string; msisdn: string; result: SendResult }
  | { type: 'created'; ordinal: number; createId: string; result: CreateResult }
  /** A status read of a reference (found, or not found by a read that can or cannot see it). */
  | {
      type: 'payment-read';
      reference: string;
      /** Epoch ms the read started: a "not found" older than the latest send says nothing about it. */
      startedAt: number;
      result: { kind: 'found'; tx: UpstreamPayment; referenceId?: string } | { kind: 'not-found'; canSee: boolean };
    }
  /** Before the first send of an order the store did not know: what the provider has under reference `n`. */
  | {
      type: 'payment-probed';
      n: number;
      jti: string;
      maxAttempts: number;
      terms: PaymentTerms;
      callbackId: string;
      result: { kind: 'found'; tx: UpstreamPayment } | { kind: 'not-found' };
    }
  | { type: 'session-read'; checkoutId: string; result: { kind: 'found'; session: UpstreamSession } | { kind: 'not-found' } }
  /**
   * The provider's sessions under the order's reference. `complete`: the whole list (a listing), so a session
   * of ours being created that is not in it does not exist; false: one session an operator named. `amount`:
   * what the asking token pays, for an order with no terms yet (its first look): another price is not ours.
   */
  | { type: 'sessions-listed'; startedAt: number; complete: boolean; jti: string; terms?: CheckoutTerms; amount?: number; createId: string; sessions: UpstreamSession[] }
  /**
   * The provider's sessions could not be listed before the order's first mobile-money try (the checkout
   * interface down): its history there is unreadable, as with a provider that lists none.
   */
  | { type: 'sessions-unlisted' }
  /** A callback named a referenceId for a try whose own is unknown: worth a read (by the reconciler). */
  | { type: 'hinted'; reference: string; referenceId: string }
  /** Time passed: leases end, deadlines pass. */
  | { type: 'tick' }
  /**
   * The operator's word, from the provider's own records: nothing exists for this try or session. `checked`:
   * the provider's id the proxy read it by before (a session's checkoutId, a try's referenceId), null when no
   * read could see it; taken only while the try or session still has that id.
   */
  | { type: 'resolve-absent'; target: { reference: string } | { sessionOrdinal: number }; checked: string | null }
  /** A process's copy of the order, merged into the record when the store lost or went back behind it (`mergeCopy`). */
  | { type: 'restore'; copy: Order };

/** What the caller must do after a transition. */
export type Reply =
  | { kind: 'none' }
  /** Answer with this try's snapshot. */
  | { kind: 'payment'; ordinal: number }
  /** Answer with this session (its URL). */
  | { kind: 'session'; ordinal: number }
  | { kind: 'refuse'; code: ProxyErrorCode; message: string; details: Record<string, unknown> }
  /** Another request's send or creation is under way: read again shortly. */
  | { kind: 'wait' }
  /** Read reference `n` upstream first (an order the store did not know). */
  | { kind: 'probe-payment'; n: number; reference: string }
  /** List the order's sessions upstream first. */
  | { kind: 'probe-sessions'; reference: string }
  /** Committed: send this try's `POST /v1/payment` now. */
  | { kind: 'send'; ordinal: number }
  /** Committed: create this session now. */
  | { kind: 'create'; ordinal: number }
  /** A read found a payment under our reference with terms that are not ours. */
  | { kind: 'conflict'; reference: string };

/** What a transition needs besides the order and the event: the clock and the rules' settings. */
export interface TransitionEnv extends ViewEnv {
  now: number;
  /** How long a send or creation under way is trusted to belong to a live request. */
  leaseMs: number;
  /** Not found for this long after its send (and twice in a row) is certainty that nothing exists. */
  graceMs: number;
  /** True when the provider lists checkout sessions by reference. */
  listsSessions: boolean;
  /** A pending try is shown TIMED_OUT this long after it started. */
  deadlineMs: number;
  references: References;
  /** How the number a token locks is kept and compared. */
  numbers: NumberLocks;
}

export interface Step<O> {
  order: O;
  reply: Reply;
}
