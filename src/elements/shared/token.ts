/**
 * Reads a JWT's payload without verifying it (the proxy verifies; the browser only reads what it displays
 * or keys storage by). Empty when the token is not a readable JWT. Decoded as Latin-1: the claims read here
 * (`referenceNo`, `amount`, `msisdn`, `recipient`, `exp`) are ASCII.
 */
export function tokenClaims(token: string): Record<string, unknown> {
  try {
    return JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return {};
  }
}

/** A numeric claim of the token (`amount`, `exp`); NaN when it is absent or the token is not readable. */
export const numberClaim = (token: string, name: string) => Number(tokenClaims(token)[name] ?? NaN);
