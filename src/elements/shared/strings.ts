// English words the elements share: error sentences by protocol code, phone entry, retry. Each element's
// table spreads these and adds its own; `LocalizeController.error(code, details)` falls back to `error`. An
// entry may be a function of the error's details (a wait in seconds, a masked number).
export const commonEn = {
  error: 'Something went wrong. Try again later.',
  NETWORK: 'No connection. Check your data and try again.',
  TOKEN_INVALID: 'This form has expired. Reload the page.',
  TOKEN_EXPIRED: 'This form has expired. Reload the page.',
  ORIGIN_NOT_ALLOWED: 'This page may not take payments. Contact the shop.',
  INVALID_INPUT: 'Check the number and try again.',
  PAYLOAD_TOO_LARGE: 'That is too long. Check the number.',
  /** `details.scope` `address`: the limit of the customer's network address (often shared by a carrier). */
  RATE_LIMITED: (d: { retryAfter?: number; scope?: string }) =>
    `Too many ${d.scope == 'address' ? 'requests from this connection' : 'attempts'}. Try again in ${wait(d.retryAfter ?? 60)}.`,
  ORDER_CHANGED: 'This order has changed. Reload the page to see what to pay.',
  /** `details.method` `checkout` or `mobile-money`, `details.status` its status. */
  ORDER_IN_OTHER_PAYMENT: (d: { method?: string; status?: string }): string =>
    /^completed$/i.test(d.status ?? '')
      ? 'This order is already paid.'
      : `This order is being paid ${d.method == 'checkout' ? 'on the checkout page' : 'by mobile money'}. Finish there, or start a new order.`,
  /** An earlier try of the order (either way) is not read final yet: nothing new may start until it is. */
  PAYMENT_UNCONFIRMED: 'An earlier payment is still being confirmed. Try again in a minute.',
  /** The provider has this order's reference with other terms: nothing here can pay it. */
  REFERENCE_CONFLICT: 'This order cannot be paid here. Contact the shop.',
  UPSTREAM_UNAVAILABLE: 'The service is busy. Try again soon.',
  INVALID_PHONE_NUMBER: 'Enter a Ghanaian mobile number, like 024 123 4567.',
  changeNumber: 'Use another number',
  tryAgain: 'Try again',
};

/** A wait of `s` seconds in words for a person: whole minutes (rounded up) from a minute on, else seconds. */
export const wait = (s: number) => (s >= 60 ? `${Math.ceil(s / 60)} min` : `${Math.max(1, Math.round(s))} s`);
