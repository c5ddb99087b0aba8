import { API_VERSION } from '../../src/provider/schemas/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { CANARY, CANARY_SANDBOX_CREDENTIALS } from './fuzz-canary.js';

/** Identifiers that exist in the fuzzed sandbox, so path parameters can aim at them. */
export interface SandboxFuzzWorld {
  /** Every identifier of one sent SMS (any of them names it for a resend). */
  messageIds: string[];
  sequenceNos: string[];
  /** referenceId and referenceNo of a payment. */
  references: string[];
  checkoutIds: string[];
}

/** Credential headers that pass, per interface. */
export const GOOD = {
  messaging: [
    ['x-api-key', CANARY.apiKey],
    ['x-api-secret', CANARY.apiSecret],
  ] as [string, string][],
  version: ['x-api-version', API_VERSION] as [string, string],
  gateway: `Basic ${Buffer.from(`${CANARY.username}:${CANARY.password}`).toString('base64')}`,
  checkout: `Bearer ${CANARY.checkoutKey}`,
};

/** A sandbox with canary credentials, a hundredth of real time, and credit and email quota that never run out. */
export function startFuzzSandbox(): Promise<StartedSandbox> {
  return startSandbox({
    ...CANARY_SANDBOX_CREDENTIALS,
    timeScale: 0.01,
    initialCredit: 1e12,
    initialIntlCredit: 1e12,
    emailRatePerMinute: 1_000_000_000,
  });
}

/** Sends one SMS, starts one payment and opens three checkout sessions; returns their identifiers. */
export async function prepareSandboxWorld(sandbox: StartedSandbox): Promise<SandboxFuzzWorld> {
  const call = async (path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, any>;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const messaging = { ...Object.fromEntries(GOOD.messaging), [GOOD.version[0]]: GOOD.version[1] };
  const sms = await call('/v1/external/sms/quick', { to: '233240000001', from: 'FUZZ', type: 'Quick', message: 'hello', isGlobal: false }, messaging);
  const sent = sms.data.batches[0].messages[0];
  const payment = await call(
    '/gateway/v1/payment',
    { amount: 12.5, referenceNo: 'FUZZ-REF-1', payee: 'Shop', narration: 'Order', msisdn: '233260000004', callbackId: 'cb-1', payer: 'Ama' },
    { authorization: GOOD.gateway },
  );
  const checkoutIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const session = await call(
      '/v1/checkout/initialize',
      { title: 'Order', reference: `FUZZ-CO-${i}`, amount: 25, description: 'An order', returnUrl: 'https://shop.example/return' },
      { authorization: GOOD.checkout },
    );
    checkoutIds.push(session.checkoutId);
  }
  return {
    messageIds: [sent.sequenceNo, sent.transactionId, sms.transactionId],
    sequenceNos: [sent.sequenceNo],
    references: [payment.data.referenceId, 'FUZZ-REF-1'],
    checkoutIds,
  };
}
