// The paths `<checkout-button>` calls, relative to the mount path (see paths.ts).

export const checkoutsPath = '/checkouts';
export const checkoutPath = (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}`;
export const checkoutEventsPath = (checkoutId: string) => `/checkouts/${encodeURIComponent(checkoutId)}/events`;
