import { SignJWT, decodeJwt } from 'jose';
import { DEFAULT_LIMITS, type LimitName, type LimitPolicy } from '../../src/proxy/config.js';
import { MOUNT, startHarness, type Harness } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';
import { CANARY, CANARY_SANDBOX_CREDENTIALS } from './fuzz-canary.js';
import type { ProxyFuzzWorld } from './fuzz-proxy-routes.js';

/** Every limit so high that none is reached: the fuzz is about input, not quotas. */
export const UNREACHABLE_LIMITS = Object.fromEntries(
  Object.keys(DEFAULT_LIMITS).map((name) => [name, { points: 1_000_000_000, durationSec: 1 }]),
) as Record<LimitName, LimitPolicy>;

/** A proxy (canary credentials, the given limits) in front of a sandbox with credit that never runs out. */
export function startCanaryHarness(limits?: Record<LimitName, LimitPolicy>): Promise<Harness> {
  return startHarness({
    sandbox: {
      ...CANARY_SANDBOX_CREDENTIALS,
      initialCredit: 1e12,
      initialIntlCredit: 1e12,
    },
    provider: (sandbox) => ({
      env: 'sandbox',
      messagingBaseUrl: sandbox.url,
      paymentBaseUrl: sandbox.paymentUrl,
      messaging: { apiKey: CANARY.apiKey, apiSecret: CANARY.apiSecret },
      payment: { username: CANARY.username, password: CANARY.password },
      checkout: { apiKey: CANARY.checkoutKey },
    }),
    config: {
      tokenSecret: CANARY.tokenSecret,
      serverKey: CANARY.serverKey,
      // Signed webhooks to a closed loopback port: every state change waits in the outbox for replay.
      webhooks: { url: 'http://127.0.0.1:9/webhooks', secret: CANARY.webhookSecret },
      allowedOrigins: ['https://shop.example'],
      relay: { minIntervalMs: 50, maxIntervalMs: 500, deadlineMs: 120_000, heartbeatMs: 40 },
      ...(limits ? { limits } : {}),
    },
  });
}

/** Re-signs a real token's claims in the ways the proxy must refuse. */
async function refusedForms(token: string): Promise<string[]> {
  const claims = decodeJwt(token);
  const nowSec = Math.floor(Date.now() / 1000);
  const sign = (payload: Record<string, unknown>, secret: string = CANARY.tokenSecret, alg = 'HS256') =>
    new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
  const [, body] = token.split('.');
  return [
    await sign({ ...claims, iat: nowSec - 7200, exp: nowSec - 3600 }),
    await sign(claims, 'another-secret-that-is-long-enough-to-sign-with'),
    await sign({ ...claims, aud: 'someone-else' }),
    await sign(claims, CANARY.tokenSecret, 'HS512'),
    await sign({ ...claims, exp: undefined }),
    `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${body}.`,
  ];
}

/**
 * Walks every flow once so the fuzz has real identifiers to aim at: OTPs sent (and one verified, its
 * proof kept as a token to refuse), payments started (one failing, one staying pending), checkout
 * sessions, and the callback ids the sandbox was given; `owners` are the tokens that may read the first
 * of each.
 */
export async function prepareWorld(h: Harness): Promise<ProxyFuzzWorld> {
  const otp = [await h.mintOtp(), await h.mintOtp({ recipient: '0240000001' }), await h.mintOtp({ purpose: 'checkout' })];
  const payment = [
    await h.mintPayment({ maxAttempts: 10 }),
    await h.mintPayment({ msisdn: '0260000004' }),
    await h.mintPayment({ msisdn: '0240000001', maxAttempts: 1 }),
  ];
  const checkout = [await h.mintCheckout(), await h.mintCheckout()];

  const must = async <T>(what: string, answer: Promise<{ status: number; body: T }>, status: number): Promise<T> => {
    const res = await answer;
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const sent = await must<{ otpId: string }>('otp send', h.post('/otp/send', { recipient: '0240000001' }, { token: otp[0] }), 200);
  const code = h.lastCode('233240000001');
  const verified = await must<{ proof: string }>('otp verify', h.post('/otp/verify', { recipient: '0240000001', code }, { token: otp[0] }), 200);
  const other = await must<{ otpId: string }>('otp send', h.post('/otp/send', { recipient: '0200000003' }, { token: otp[2] }), 200);
  // One token owns both attempts (the first fails, the second stays pending), so the status routes are
  // fuzzed with the token that may read them.
  const failing = await must<{ reference: string }>('payment', h.post('/payments', { msisdn: '0240000404' }, { token: payment[0] }), 202);
  await eventually(async () => ((await h.get(`/payments/${failing.reference}`, { token: payment[0] })).body?.status === 'FAILED' ? true : undefined));
  const pending = await must<{ reference: string }>('payment', h.post('/payments', { msisdn: '0260000004' }, { token: payment[0] }), 202);
  if (pending.reference === failing.reference) throw new Error('the second attempt did not start');
  // Proofs for the server API to redeem (the first redeem of each answers 200, every later one 409).
  const proofs = [verified.proof];
  for (const number of ['0241234567', '0551234567']) {
    await must('otp send', h.post('/otp/send', { recipient: number }, { token: otp[0] }), 200);
    const digits = `233${number.slice(1)}`;
    proofs.push((await must<{ proof: string }>('otp verify', h.post('/otp/verify', { recipient: number, code: h.lastCode(digits) }, { token: otp[0] }), 200)).proof);
  }
  const sessions = [
    await must<{ checkoutId: string }>('checkout', h.post('/checkouts', {}, { token: checkout[0] }), 201),
    await must<{ checkoutId: string }>('checkout', h.post('/checkouts', {}, { token: checkout[1] }), 201),
  ];

  return {
    mount: MOUNT,
    owners: { otp: otp[0]!, payment: payment[0]!, checkout: checkout[0]! },
    tokens: {
      otp,
      payment,
      checkout,
      refused: [verified.proof, ...(await refusedForms(otp[0]!)), ...(await refusedForms(payment[0]!)), ...(await refusedForms(checkout[0]!))],
    },
    otpIds: [sent.otpId, other.otpId],
    references: [failing.reference, pending.reference, failing.reference.replace(/-\d+$/, '')],
    checkoutIds: sessions.map((s) => s.checkoutId),
    callbackIds: [...h.sandbox.app.sandbox.payments.values()].map((p) => p.callbackId),
    serverKey: CANARY.serverKey,
    checkoutReferences: checkout.map((t) => String(decodeJwt(t).reference)),
    proofs,
    webhookIds: await eventually(async () => {
      const ids = (await h.proxy.webhooks.list()).map((d) => d.id);
      return ids.length >= 2 ? ids : undefined;
    }),
  };
}
