import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { API_VERSION } from '../provider/schemas/index.js';
import { sendError } from './errors.js';
import type { SandboxState } from './state.js';

/** Route names counted in `state.requestCounts`, one per messaging endpoint. */
export type MessagingRouteName =
  | 'sms.quick'
  | 'sms.bulk'
  | 'sms.resend'
  | 'sms.receipt'
  | 'otp.generate'
  | 'otp.validate'
  | 'email.send'
  | 'account.balance';

/** Who called: the API key and what it may do. */
export interface MessagingCaller {
  apiKey: string;
  /** False for the limited keys (`keysWithoutBalancePermission`): the balance read answers 403. */
  canReadBalance: boolean;
}

/** How one messaging route checks its caller. */
export interface MessagingRouteRules {
  /**
   * Email: `x-api-version` must be present (400 `MISSING_API_VERSION` when absent) and the 401 message
   * names the invalid key or secret. Elsewhere an absent version is accepted and the 401 message is generic.
   */
  email?: boolean;
}

/** A messaging handler, called once the caller is authenticated and the version header accepted. */
export type MessagingHandler = (req: Request, res: Response, caller: MessagingCaller) => void;

/** Compares two strings in constant time (hashing first, so their lengths leak nothing either). */
export function constantTimeEquals(a: string, b: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Result of checking `x-api-key` / `x-api-secret`: the caller, or why it was refused. */
export type AuthResult =
  | { ok: true; caller: MessagingCaller }
  | { ok: false; reason: 'MISSING' | 'INVALID_KEY' | 'INVALID_SECRET' };

/**
 * Checks the messaging credentials: the full pair of the options (`apiKey` / `apiSecret`), or a limited
 * key (`keysWithoutBalancePermission`) with `limitedKeySecret`. Every comparison runs in constant time.
 */
export function authenticate(state: SandboxState, req: Request): AuthResult {
  const key = req.get('x-api-key');
  const secret = req.get('x-api-secret');
  if (!key || !secret) return { ok: false, reason: 'MISSING' };
  const { apiKey, apiSecret, keysWithoutBalancePermission, limitedKeySecret } = state.options;
  if (constantTimeEquals(key, apiKey)) {
    return constantTimeEquals(secret, apiSecret)
      ? { ok: true, caller: { apiKey: key, canReadBalance: true } }
      : { ok: false, reason: 'INVALID_SECRET' };
  }
  const limited = keysWithoutBalancePermission.some((k) => constantTimeEquals(key, k));
  if (!limited) return { ok: false, reason: 'INVALID_KEY' };
  return limitedKeySecret !== '' && constantTimeEquals(secret, limitedKeySecret)
    ? { ok: true, caller: { apiKey: key, canReadBalance: false } }
    : { ok: false, reason: 'INVALID_SECRET' };
}

const AUTH_MESSAGES = {
  MISSING: 'Missing API credentials: send the x-api-key and x-api-secret headers.',
  INVALID_KEY: 'Invalid API key: the x-api-key header does not match any key of this account.',
  INVALID_SECRET: 'Invalid API secret: the x-api-secret header does not match the API key.',
} as const;

/**
 * Builds an Express handler for one messaging route: counts the request under `name`, answers 401
 * `UNAUTHORIZED` for missing or wrong credentials, then checks `x-api-version` (an absent header is
 * refused on email only; a present value other than `2025-08-01` is refused everywhere with 400
 * `MISSING_API_VERSION`), and only then runs `handler` (which validates the body).
 */
export function messagingRoute(
  state: SandboxState,
  name: MessagingRouteName,
  rules: MessagingRouteRules,
  handler: MessagingHandler,
): RequestHandler {
  return (req, res) => {
    state.count(name);
    const auth = authenticate(state, req);
    if (!auth.ok) {
      const message =
        rules.email || auth.reason === 'MISSING' ? AUTH_MESSAGES[auth.reason] : 'Invalid API credentials.';
      sendError(res, 401, 'UNAUTHORIZED', message);
      return;
    }
    const version = req.get('x-api-version');
    if (version === undefined && rules.email) {
      sendError(res, 400, 'MISSING_API_VERSION', `The x-api-version header is required; send ${API_VERSION}.`, {
        allowed: [API_VERSION],
      });
      return;
    }
    if (version !== undefined && version !== API_VERSION) {
      sendError(
        res,
        400,
        'MISSING_API_VERSION',
        `Unsupported x-api-version "${version}"; the only allowed value is ${API_VERSION}.`,
        { allowed: [API_VERSION] },
      );
      return;
    }
    handler(req, res, auth.caller);
  };
}
