import { secretForms } from './fuzz-checks.js';

/** Unique canary credentials of the fuzzed proxy and sandbox: no response may ever carry one of them. */
export const CANARY = {
  apiKey: 'fuzz-canary-messaging-key-8d1e4b',
  apiSecret: 'fuzz-canary-messaging-secret-2c7f9a',
  username: 'fuzz-canary-gateway-user-6b3d0e',
  password: 'fuzz-canary-gateway-password-1f8a5c',
  checkoutKey: 'fuzz-canary-checkout-key-9e2b7d',
  tokenSecret: 'fuzz-canary-token-secret-5a0c3f-longer-than-32-bytes',
  serverKey: 'fuzz-canary-server-key-7c4e1a-longer-than-32-bytes',
  webhookSecret: `whsec_${Buffer.from('fuzz-canary-webhook-secret-3e9d7b-32b').toString('base64')}`,
} as const;

/** The canaries and the forms they take on the wire (base64, base64url, Basic `user:password`). */
export const CANARY_FORMS = secretForms(Object.values(CANARY), [[CANARY.username, CANARY.password]]);

/** The sandbox's credential options set to the canaries. */
export const CANARY_SANDBOX_CREDENTIALS = {
  apiKey: CANARY.apiKey,
  apiSecret: CANARY.apiSecret,
  paymentUsername: CANARY.username,
  paymentPassword: CANARY.password,
  checkoutApiKey: CANARY.checkoutKey,
} as const;
