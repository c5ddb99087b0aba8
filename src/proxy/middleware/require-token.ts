import type { NextFunction, Request, Response } from 'express';
import type { ProxyContext } from '../context.js';
import { answerOrPass, ProxyError } from '../errors.js';
import type { TokenScope } from '../tokens/claims.js';
import type { ClaimsByScope } from '../tokens/service.js';

/** Element scopes a route may require (a proof is never a bearer token). */
export type ElementScope = Exclude<TokenScope, 'otp-proof'>;

/** A route's work once its token is verified: the claims come typed for the route's scope. */
export type ScopedHandler<S extends ElementScope> = (req: Request, res: Response, claims: ClaimsByScope[S]) => Promise<void>;

const BEARER = /^Bearer\s+([A-Za-z0-9_\-.]+)\s*$/i;

/**
 * The one Express handler of a route that needs an element token of `scope`: verifies
 * `Authorization: Bearer <token>` (TOKEN_INVALID, TOKEN_EXPIRED), then runs `handler` with the claims.
 * Refusals, the token's or the handler's (a ProxyError thrown), are answered on the spot, as
 * {@link answering} does; anything else goes to the error handler. One handler rather than a token
 * middleware and a route: each is a hop through Express's route dispatch on every call.
 */
export function withToken<S extends ElementScope>(ctx: ProxyContext, scope: S, handler: ScopedHandler<S>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const match = BEARER.exec(req.headers.authorization ?? '');
      if (!match?.[1]) throw new ProxyError('TOKEN_INVALID', 'A token is required.');
      const claims = await ctx.tokens.verify(match[1], scope);
      await handler(req, res, claims);
    } catch (err) {
      answerOrPass(err, res, next);
    }
  };
}
