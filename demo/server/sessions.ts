import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** A visitor's session: their cart, and who they are once signed in. */
export interface Session {
  id: string;
  /** Product id → quantity. */
  cart: Map<string, number>;
  /** Set by a verified sign-in: the number the OTP proved (masked for display, and its digits). */
  customer?: { recipient: string; digits: string; signedInAt: Date };
}

/** Name of the session cookie. */
export const SESSION_COOKIE = 'makola_session';

const byRequest = new WeakMap<Request, Session>();

/** The visitor's session of a request that went through {@link sessions}. */
export function sessionOf(req: Request): Session {
  const session = byRequest.get(req);
  if (!session) throw new Error('The sessions middleware did not run for this request.');
  return session;
}

/**
 * Cookie sessions kept in memory (one demo process): an unguessable id in an HttpOnly, SameSite=Lax
 * cookie, so another site's forms cannot act as the visitor.
 */
export function sessions() {
  const store = new Map<string, Session>();
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = cookieOf(req, SESSION_COOKIE);
    let session = id ? store.get(id) : undefined;
    if (!session) {
      session = { id: randomBytes(18).toString('base64url'), cart: new Map() };
      store.set(session.id, session);
      res.cookie(SESSION_COOKIE, session.id, { httpOnly: true, sameSite: 'lax', path: '/' });
    }
    byRequest.set(req, session);
    next();
  };
}

/** One cookie of a request (Express parses none without cookie-parser). */
function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}
