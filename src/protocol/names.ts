// What the elements' shared code and the proxy both name, apart from the paths (paths.ts): a module of its
// own, so that a page's shared chunk, which every element fetches, carries none of the paths one element calls.

/** Default mount path of the proxy router on the merchant's server. */
export const DEFAULT_PROXY_PATH = '/merchant-elements';

/** Server-sent event name carrying a status snapshot (payments and checkouts). */
export const STATUS_EVENT = 'status';
