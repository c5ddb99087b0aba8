/** Default mount path of the proxy router on the merchant's server. */
export const DEFAULT_PROXY_PATH = '/merchant-elements';

/** Paths of the browser-to-proxy protocol, relative to the mount path. */
export const PROXY_PATHS = {
  otpSend: '/otp/send',
  otpVerify: '/otp/verify',
  otpDelivery: (otpId: string) => `/otp/${encodeURIComponent(otpId)}/delivery`,
  accountLookup: '/accounts/lookup',
  /** GET with a payment token: the token's order as a page should show it (`OrderView`). */
  order: '/order',
  payments: '/payments',
  payment: (reference: string) => `/payments/${encodeURIComponent(reference)}`,
  paymentEvents: (reference: string) => `/payments/${encodeURIComponent(reference)}/events`,
  checkouts: '/checkouts',
  checkout: (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}`,
  checkoutEvents: (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}/events`,
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
