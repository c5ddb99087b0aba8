// English words the elements share: error sentences by protocol code, phone entry, retry. Each element's
// table spreads the groups it uses (the codes its routes answer, the controls it shows: these, phone-strings.ts,
// order-strings.ts, each a module of its own so that a CDN page carries only its element's) and adds its own;
// `LocalizeController.error(code, details)` falls back to `error`. An entry may be a function of the error's
// details (a wait in seconds, a masked number). One table per language for every element (translations/fr.ts).

/** What every element can meet. */
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
  UPSTREAM_UNAVAILABLE: 'The service is busy. Try again soon.',
};

/** A wait of `s` seconds in words for a person: whole minutes (rounded up) from a minute on, else seconds. */
export const wait = (s: number) => (s >= 60 ? `${Math.ceil(s / 60)} min` : `${Math.max(1, Math.round(s))} s`);
