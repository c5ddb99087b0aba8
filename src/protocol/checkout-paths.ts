// The paths `<checkout-button>` calls, relative to the mount path (see paths.ts).

export const checkoutsPath = '/checkouts';
export const checkoutPath = (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}`;
export const checkoutEventsPath = (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}/events`;
/** The fallback form's action (a plain HTML form posts the token here before, or without, the element's script). */
export const checkoutStartPath = '/checkouts/start';
