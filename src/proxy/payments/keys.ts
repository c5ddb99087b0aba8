/**
 * Store keys and channels of payments, checkouts and the relay, in one place so two instances (and a
 * restarted one) agree on them.
 */
export const KEYS = {
  /** OrderRecord JSON: every attempt of an order reference. */
  order: (orderReference: string) => `pay:order:${orderReference}`,
  /** PaymentRecord JSON of one attempt. */
  payment: (reference: string) => `pay:rec:${reference}`,
  /** callbackId → attempt reference (the callback hint route looks it up). */
  callback: (callbackId: string) => `pay:cb:${callbackId}`,
  /** CheckoutOrder JSON: the sessions of one order reference (one live at a time). */
  checkoutOrder: (reference: string) => `co:order:${reference}`,
  /** CheckoutRecord JSON of one session. */
  checkout: (checkoutId: string) => `co:rec:${checkoutId}`,
  /** Which method holds an order reference: `mobile-money` or `checkout` (one order is paid one way). */
  orderMethod: (orderReference: string) => `ord:method:${orderReference}`,
  /** Set of attempt references whose payment prompt may still be waiting on a number. */
  inFlight: (msisdn: string) => `pay:inflight:${msisdn}`,
  /** Set of `payment:<reference>` / `checkout:<checkoutId>` the reconciler sweeps until they settle. */
  pending: 'relay:pending',
  /** Claim of one receipt per payment and channel. */
  receipt: (channel: 'sms' | 'email', reference: string) => `receipt:${channel}:${reference}`,
} as const;

export const CHANNELS = {
  /** A record changed: message `payment:<reference>` or `checkout:<checkoutId>`. */
  changed: 'relay:changed',
  /** Poll now (a callback hint): same message form. */
  wake: 'relay:wake',
} as const;

/** How long records, claims and indexes live in the store: well past any token and any deadline. */
export const RECORD_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A relay subject: what a poller, a watcher and a channel message name. */
export type Subject = `payment:${string}` | `checkout:${string}`;

export const subject = {
  payment: (reference: string): Subject => `payment:${reference}`,
  checkout: (checkoutId: string): Subject => `checkout:${checkoutId}`,
  /** Splits a subject; null when the message is not one. */
  parse(message: string): { kind: 'payment' | 'checkout'; id: string } | null {
    const match = /^(payment|checkout):(.+)$/s.exec(message);
    return match ? { kind: match[1] as 'payment' | 'checkout', id: match[2]! } : null;
  },
};
