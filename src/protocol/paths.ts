/** Default mount path of the proxy router on the merchant's server. */
export const DEFAULT_PROXY_PATH = '/merchant-elements';

// The paths of the browser-to-proxy protocol, relative to the mount path, one export each: an element's
// module carries only the paths it calls (a bundler drops the others, which it cannot do with an object's
// keys). PROXY_PATHS gathers them for the proxy and the protocol's documents.

export const otpSendPath = '/otp/send';
export const otpVerifyPath = '/otp/verify';
export const otpDeliveryPath = (otpId: string) => `/otp/${encodeURIComponent(otpId)}/delivery`;
export const accountLookupPath = '/accounts/lookup';
/** GET with a payment token: the token's order as a page should show it (`OrderView`). */
export const orderPath = '/order';
export const paymentsPath = '/payments';
export const paymentPath = (reference: string) => `/payments/${encodeURIComponent(reference)}`;
export const paymentEventsPath = (reference: string) => `/payments/${encodeURIComponent(reference)}/events`;
export const checkoutsPath = '/checkouts';
export const checkoutPath = (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}`;
export const checkoutEventsPath = (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}/events`;

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
} as const;

/** Server-sent event name carrying a status snapshot (payments and checkouts). */
export const STATUS_EVENT = 'status';
/** Interval of SSE heartbeat comments, in milliseconds. */
export const SSE_HEARTBEAT_MS = 20_000;
