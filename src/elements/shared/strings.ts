// English words the elements share: error sentences by protocol code, phone entry, retry. Each element's
// table spreads these and adds its own; `LocalizeController.error(code)` falls back to `error`.
export const commonEn = {
  error: 'Something went wrong. Try again later.',
  NETWORK: 'No connection. Check your data and try again.',
  TOKEN_INVALID: 'This form has expired. Reload the page.',
  TOKEN_EXPIRED: 'This form has expired. Reload the page.',
  RATE_LIMITED: 'Too many attempts.',
  UPSTREAM_UNAVAILABLE: 'The service is busy. Try again soon.',
  INVALID_PHONE_NUMBER: 'This number is not valid.',
  phone: 'Phone number',
  changeNumber: 'Use another number',
  tryAgain: 'Try again',
  /** A countdown, already formatted as `m:ss`. */
  waitFor: (clock: string) => `Try again in ${clock}.`,
};
