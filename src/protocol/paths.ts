import { accountLookupPath, orderPath, paymentEventsPath, paymentPath, paymentsPath } from './payment-paths.js';
import { checkoutEventsPath, checkoutPath, checkoutStartPath, checkoutsPath } from './checkout-paths.js';
import { otpDeliveryPath, otpSendPath, otpVerifyPath } from './otp-paths.js';

// The paths of the browser-to-proxy protocol are one export each, in a module per element (otp-paths.ts,
// payment-paths.ts, checkout-paths.ts), and the names the elements' shared code reads are in names.ts: an
// element's module imports only its own, so the CDN build puts them in that element's file, not in the
// chunk all three share (which takes every module all three import whole, every key of an object with it).
export * from './otp-paths.js';
export * from './payment-paths.js';
export * from './checkout-paths.js';
export { DEFAULT_PROXY_PATH, STATUS_EVENT } from './names.js';

/** Paths of the browser-to-proxy protocol, relative to the mount path. */
export const PROXY_PATHS = {
  otpSend: otpSendPath,
  otpVerify: otpVerifyPath,
  otpDelivery: otpDeliveryPath,
  accountLookup: accountLookupPath,
  order: orderPath,
  payments: paymentsPath,
  payment: paymentPath,
  paymentEvents: paymentEventsPath,
  checkouts: checkoutsPath,
  checkoutStart: checkoutStartPath,
  checkout: checkoutPath,
  checkoutEvents: checkoutEventsPath,
  paymentCallback: (callbackId: string) => `/callbacks/payments/${encodeURIComponent(callbackId)}`,
  health: '/health',
} as const;

/** Paths only operators call (apart from PROXY_PATHS, which the elements carry): readiness. */
export const OPERATOR_PATHS = {
  /** The store and each provider interface answer (a load balancer's probe). */
  ready: '/ready',
} as const;

/**
 * Paths of the server API (the merchant's backend calls them with `Authorization: Bearer <PROXY_SERVER_KEY>`,
 * never with an element token), relative to the mount path like the browser's.
 */
export const SERVER_PATHS = {
  /** Every server route starts with this prefix; the browser's origin rule does not apply under it. */
  prefix: '/server/',
  otpToken: '/server/tokens/otp',
  paymentToken: '/server/tokens/payment',
  checkoutToken: '/server/tokens/checkout',
  redeemOtpProof: '/server/otp-proofs/redeem',
  orderPayment: (reference: string) => `/server/orders/${encodeURIComponent(reference)}/payment`,
  payment: (attemptReference: string) => `/server/payments/${encodeURIComponent(attemptReference)}`,
  orderCheckout: (reference: string) => `/server/orders/${encodeURIComponent(reference)}/checkout`,
  checkout: (checkoutId: string) => `/server/checkouts/${encodeURIComponent(checkoutId)}`,
  /** Orders whose money state is not final, for the operator; and the provider's word on one of them. */
  unresolvedOrders: '/server/orders/unresolved',
  resolveOrder: (reference: string) => `/server/orders/${encodeURIComponent(reference)}/resolve`,
  webhooks: '/server/webhooks',
  webhookReplay: (id: string) => `/server/webhooks/${encodeURIComponent(id)}/replay`,
  /** Every dead (or delivered) webhook again; every pending one now (after the receiver's outage). */
  webhooksReplay: '/server/webhooks/replay',
  webhooksRetry: '/server/webhooks/retry',
} as const;

/**
 * Interval of SSE heartbeat comments, in milliseconds. The elements take a stream silent for three of them for
 * dead (a phone network drops a connection without closing it), so it bounds how soon a customer whose
 * connection came back sees the outcome: 20 s took 45 s; 5 s takes 15 s.
 */
export const SSE_HEARTBEAT_MS = 5_000;
