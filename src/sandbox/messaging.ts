import { Router } from 'express';
import { balanceRouter } from './balance.js';
import { emailRouter } from './email.js';
import { otpRouter } from './otp.js';
import { smsRouter } from './sms.js';
import type { SandboxState } from './state.js';

/**
 * The messaging interface of `{base_url}`, mounted at the root: SMS (quick, bulk, resend, delivery
 * receipt), OTP (generate, validate), email and the account balance. Every route checks `x-api-key` /
 * `x-api-secret` before anything else and counts itself in `state.requestCounts`.
 */
export function messagingRouter(state: SandboxState): Router {
  const router = Router();
  router.use(smsRouter(state));
  router.use(otpRouter(state));
  router.use(emailRouter(state));
  router.use(balanceRouter(state));
  return router;
}
