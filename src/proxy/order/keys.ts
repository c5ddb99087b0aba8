/**
 * Store keys of orders and of the indexes built from them, in one place so every instance (and a restarted
 * one) agrees on them. Only `order` holds money state; every other key is an index that `indexWrites`
 * derives from orders, so a lost index is rebuilt from its order.
 */
export const ORDER_KEYS = {
  /** The order record (JSON): everything the money rules span. */
  order: (orderReference: string) => `ord:${orderReference}`,
  /** callbackId → attempt reference (the callback hint route looks it up). */
  callback: (callbackId: string) => `ord:cb:${callbackId}`,
  /** checkoutId → order reference (a session's routes and the server API find its order by it). */
  checkout: (checkoutId: string) => `ord:co:${checkoutId}`,
  /**
   * Set of attempt references whose prompt may still be waiting on a number (prompt limits per number), under
   * the number's keyed hash (`number-keys.ts`); releases before it named the set by the digits.
   */
  inFlight: (numberKey: string) => `ord:inflight:${numberKey}`,
  /** Set of order references the reconciler reads until their money settles. */
  pending: 'ord:pending',
  /** Which process reads the order on the reconciler's schedule (its id, with a TTL): one read per interval across the fleet. */
  readLease: (orderReference: string) => `ord:lease:${orderReference}`,
  /** Set of order references still not settled at the end of the reconcile window: for the operator. */
  unresolved: 'ord:unresolved',
  /** A random value every instance remembers: gone or changed, the store lost everything (a flush, a new Redis). */
  epoch: 'ord:epoch',
  /** Set for a while after a loss was noticed: no new order is begun while every instance puts its copies back. */
  recovering: 'ord:recovering',
  /** Claim of one receipt per payment and channel. */
  receipt: (channel: 'sms' | 'email', reference: string) => `receipt:${channel}:${reference}`,
} as const;

export const ORDER_CHANNELS = {
  /** A try or session changed: message `payment:<reference>` or `checkout:<checkoutId>` (event streams listen). */
  changed: 'ord:changed',
  /** Read this order now (a callback hint): message `<orderReference>`. */
  wake: 'ord:wake',
  /**
   * No messages: every process listens from its first look at the store, so that one finding the store
   * without an epoch can tell an emptied store under running processes from a new one.
   */
  presence: 'ord:presence',
} as const;

/** How long orders and their indexes live in the store: well past any token, deadline and reconcile window. */
export const RECORD_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** What a watcher listens to: one try (by its attempt reference) or one session (by its checkoutId). */
export type Subject = `payment:${string}` | `checkout:${string}`;
