import { tokenClaims } from '../shared/token.js';

/** A payment waiting for approval, kept in `sessionStorage` so that a reload resumes watching it. */
export interface PendingPayment {
  /** The attempt's reference. */
  reference: string;
  /** Epoch milliseconds when the element stops waiting (its countdown's end). */
  until: number;
}

// One entry per order: the token's `referenceNo`, so that a token minted again for the same order on reload
// finds it; the whole token when it cannot be read. Storage may be refused (private mode, sandboxed frame):
// then a reload starts over, and the proxy still refuses a second charge while one is pending.
const key = (token: string) => `merchant-elements:payment:${tokenClaims(token)['referenceNo'] ?? token}`;

/** The pending payment of a token's order, if one was saved. */
export function loadPending(token: string): PendingPayment | undefined {
  try {
    return JSON.parse(sessionStorage[key(token)]);
  } catch {
    return undefined;
  }
}

/** Saves (or with `undefined`, forgets) the pending payment of a token's order. */
export function savePending(token: string, pending?: PendingPayment) {
  try {
    if (pending) sessionStorage[key(token)] = JSON.stringify(pending);
    else delete sessionStorage[key(token)];
  } catch {
    // Refused: see above.
  }
}
