import type { NextFunction, Request, Response } from 'express';
import type { ProxyContext } from '../context.js';
import { ProxyError } from '../errors.js';
import type { TokenScope } from '../tokens/claims.js';
import type { ClaimsByScope } from '../tokens/service.js';

/** Element scopes a route may require (a proof is never a bearer token). */
export type ElementScope = Exclude<TokenScope, 'otp-proof'>;

/**
 * Verifies `Authorization: Bearer <token>` for one scope and puts the typed claims in
 * `res.locals.claims` (read them with {@link claimsOf}). Refuses with TOKEN_INVALID or TOKEN_EXPIRED.
 */
export function requireToken(ctx: ProxyContext, scope: ElementScope) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer\s+([A-Za-z0-9_\-.]+)\s*$/i.exec(header);
      if (!match?.[1]) throw new ProxyError('TOKEN_INVALID', 'A token is required.');
      res.locals.claims = await ctx.tokens.verify(match[1], scope);
      res.locals.scope = scope;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The claims `requireToken(ctx, scope)` verified for this request. */
export function claimsOf<S extends ElementScope>(res: Response, scope: S): ClaimsByScope[S] {
  if (res.locals.scope !== scope || !res.locals.claims) {
    throw new ProxyError('TOKEN_INVALID', 'A token is required.');
  }
  return res.locals.claims as ClaimsByScope[S];
}
