// The paths `<pay-by-mobile>` calls, relative to the mount path (see paths.ts).

export const accountLookupPath = '/accounts/lookup';
/** GET with a payment token: the token's order as a page should show it (`OrderView`). */
export const orderPath = '/order';
export const paymentsPath = '/payments';
export const paymentPath = (reference: string) => `/payments/${encodeURIComponent(reference)}`;
export const paymentEventsPath = (reference: string) => `/payments/${encodeURIComponent(reference)}/events`;
