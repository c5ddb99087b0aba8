import { z } from 'zod';
import { CHECKOUT_VIEW_STATUSES, DELIVERY_STATUSES, PAYMENT_VIEW_STATUSES, PIN_TYPES } from './codes.js';

/** Whatever a person typed as a phone number; the proxy normalises it (default country GH). */
const typedPhone = z.string().trim().min(1, 'is required').max(32, 'is too long');

// ---- OTP ---------------------------------------------------------------------------------------

export const otpSendRequest = z.strictObject({ recipient: typedPhone });
export type OtpSendRequest = z.infer<typeof otpSendRequest>;

export const otpSendResponse = z.object({
  otpId: z.string(),
  /** The number the code went to, masked (`233 24 *** **01`). */
  recipient: z.string(),
  expiresAt: z.iso.datetime(),
  /** When a resend will be accepted (the cooldown). */
  resendAt: z.iso.datetime(),
  /** Wrong codes allowed before this code is dead. */
  attemptsLeft: z.number().int().nonnegative(),
  pinLength: z.number().int().min(4).max(10),
  pinType: z.enum(PIN_TYPES),
});
export type OtpSendResponse = z.infer<typeof otpSendResponse>;

export const otpVerifyRequest = z.strictObject({
  recipient: typedPhone,
  code: z.string().trim().min(1, 'is required').max(10, 'is too long'),
});
export type OtpVerifyRequest = z.infer<typeof otpVerifyRequest>;

export const otpVerifyResponse = z.object({ verified: z.literal(true), proof: z.string() });
export type OtpVerifyResponse = z.infer<typeof otpVerifyResponse>;

export const otpDeliveryResponse = z.object({
  deliveryStatus: z.enum(DELIVERY_STATUSES),
});
export type OtpDeliveryResponse = z.infer<typeof otpDeliveryResponse>;

// ---- Payments ----------------------------------------------------------------------------------

export const accountLookupRequest = z.strictObject({ msisdn: typedPhone });
export type AccountLookupRequest = z.infer<typeof accountLookupRequest>;

/** A charge the provider may add, estimated from the shop's configuration before anything is sent. */
export const chargeEstimate = z.object({
  /** The estimated charge (the provider says the exact one when the payment is made). */
  charge: z.number(),
  /** The order's amount plus the estimated charge: what the customer will most likely approve. */
  totalAmount: z.number(),
});
export type ChargeEstimate = z.infer<typeof chargeEstimate>;

export const accountLookupResponse = z.object({
  /** Partly shown (`KWAME M.`) unless the merchant configured the full name. */
  accountName: z.string(),
  network: z.string(),
  /** Normalised number, digits only. */
  msisdn: z.string(),
  /** What the customer will approve on this number, when the shop's configuration knows the charge. */
  chargeEstimate: chargeEstimate.nullable().optional(),
});
export type AccountLookupResponse = z.infer<typeof accountLookupResponse>;

export const paymentCreateRequest = z.strictObject({ msisdn: typedPhone });
export type PaymentCreateRequest = z.infer<typeof paymentCreateRequest>;

export const paymentViewStatus = z.enum(PAYMENT_VIEW_STATUSES);

export const paymentSnapshot = z.object({
  /** This attempt's reference (the merchant's order reference plus `-N`). */
  reference: z.string(),
  /** The merchant's order reference from the token. */
  orderReference: z.string(),
  status: paymentViewStatus,
  amount: z.number(),
  charge: z.number(),
  totalAmount: z.number(),
  currency: z.string(),
  /**
   * Which try of the order this payment is (1-based), refused tries included. It can be more than the `-N`
   * of `reference`: a try the provider refused at once made no payment, so the next one takes its number.
   */
  attempt: z.number().int().positive(),
  /** Further tries the order still allows after this one (every token of the order shares them). */
  attemptsLeft: z.number().int().nonnegative(),
  /** Why a FAILED payment failed, as a protocol error code (`INSUFFICIENT_FUNDS`, `PAYMENT_FAILED`). */
  failureCode: z.string().optional(),
  /** The number the prompt went to, masked (`+233 26 *** **04`): what a second tab shows. */
  msisdn: z.string().optional(),
  /** When the payment request was sent (the prompt's age); null when the proxy found it upstream. */
  sentAt: z.iso.datetime().nullable().optional(),
  /** Until when the prompt can be approved on the phone, when the network's prompt lifetime is known. */
  promptExpiresAt: z.iso.datetime().nullable().optional(),
  updatedAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
});
export type PaymentSnapshot = z.infer<typeof paymentSnapshot>;


/**
 * GET `/order` with a payment token: where the token's order stands, so a page shows the truth from its first
 * paint (a second tab sees the live payment, a spent order offers no form).
 */
export const orderView = z.object({
  orderReference: z.string(),
  /** The order's payment: its completed attempt, else its current one, else its last ended one; null before any. */
  payment: paymentSnapshot.nullable(),
  /** Tries the order still allows (every token of the order shares them). */
  attemptsLeft: z.number().int().nonnegative(),
  /**
   * What a new try would meet now: `open` (a try may start), `payment` (the order's payment is live, unknown or
   * completed: show it), `exhausted` (no tries left), `other-method` (the hosted checkout holds the order).
   */
  next: z.enum(['open', 'payment', 'exhausted', 'other-method']),
  /** When the hosted checkout holds the order: its status. */
  otherMethod: z.object({ method: z.enum(['checkout', 'mobile-money']), status: z.string() }).nullable(),
  /** What the customer will approve before any number is chosen, when the configuration knows the charge. */
  chargeEstimate: chargeEstimate.nullable(),
});
export type OrderView = z.infer<typeof orderView>;

// ---- Checkout ----------------------------------------------------------------------------------

export const checkoutCreateRequest = z.strictObject({});
export type CheckoutCreateRequest = z.infer<typeof checkoutCreateRequest>;

/**
 * `POST /checkouts/start`'s form (`application/x-www-form-urlencoded`): the checkout token, in the hidden
 * field of `<checkout-button>`'s fallback form, where a browser without the element's script sends it.
 */
export const checkoutStartForm = z.strictObject({ token: z.string().min(1).max(4096) });
export type CheckoutStartForm = z.infer<typeof checkoutStartForm>;

export const checkoutCreateResponse = z.object({
  checkoutId: z.string(),
  checkoutUrl: z.string(),
  status: z.string(),
  expiresAt: z.iso.datetime(),
});
export type CheckoutCreateResponse = z.infer<typeof checkoutCreateResponse>;

export const checkoutSnapshot = z.object({
  checkoutId: z.string(),
  reference: z.string(),
  status: z.enum(CHECKOUT_VIEW_STATUSES),
  amount: z.number(),
  currency: z.string(),
  updatedAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
});
export type CheckoutSnapshot = z.infer<typeof checkoutSnapshot>;

// ---- Operators ---------------------------------------------------------------------------------

/** A circuit breaker's state: `closed` (calls go through), `open` (failing fast) or `half-open` (a trial goes through). */
const circuitState = z.enum(['closed', 'open', 'half-open']);

/** The circuit breaker of each of the provider's interfaces (each has its own). */
const circuits = z.object({ messaging: circuitState, payment: circuitState, checkout: circuitState });

/**
 * `GET /health`, liveness: answered 200 whenever the process answers at all (`ok` is then true), whatever
 * the store or the provider do, so a liveness probe never restarts a process that a restart cannot help.
 * The rest says what the process sees, for people: each interface's circuit, the store and whether it answers.
 */
export const healthResponse = z.object({
  ok: z.boolean(),
  upstream: z.object({
    circuits,
    store: z.enum(['memory', 'redis']),
    storeOk: z.boolean(),
  }),
});
export type HealthResponse = z.infer<typeof healthResponse>;

/** One provider interface as readiness saw it. */
const providerReadiness = z.object({
  ok: z.boolean(),
  /** The circuit of the calls someone waits on (`/health` reports the worse of it and the background one). */
  circuit: circuitState,
  /** When the interface was last called to check it; null when it was not (its circuit open, or not yet). */
  checkedAt: z.iso.datetime().nullable(),
});

/**
 * `GET /ready`, readiness: 200 when the store answers and each provider interface answered a cheap
 * authenticated read recently with its circuit not open; 503 otherwise, `reasons` saying what is wrong,
 * one sentence each.
 */
export const readinessResponse = z.object({
  ready: z.boolean(),
  reasons: z.array(z.string()),
  checks: z.object({
    /**
     * The store: `ok` when it took the readiness write and can keep money records in this mode; what it
     * says of its persistence, eviction, replication and Cluster mode, and notes on what is unknown or costs.
     */
    store: z.object({
      kind: z.enum(['memory', 'redis']),
      ok: z.boolean(),
      writable: z.boolean(),
      needsDurability: z.boolean(),
      persistence: z.string(),
      evictionPolicy: z.string(),
      replication: z.string(),
      cluster: z.string(),
      notes: z.array(z.string()),
    }),
    messaging: providerReadiness,
    payment: providerReadiness,
    checkout: providerReadiness,
  }),
});
export type ReadinessResponse = z.infer<typeof readinessResponse>;
