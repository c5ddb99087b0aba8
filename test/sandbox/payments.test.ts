import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import { PROMPT_LIFETIME_SECONDS } from '../../src/sandbox/test-numbers.js';
import { finalStatus, initiate, paymentStatus, send, sleep, start } from './gateway-fixtures.js';

/** The inspection view's record of one payment. */
async function listed(sandbox: StartedSandbox, referenceId: string) {
  const { payments } = (await send(sandbox, 'GET', '/__sandbox/payments')).body as { payments: Record<string, unknown>[] };
  return payments.find((p) => p['referenceId'] === referenceId)!;
}

// A prompt nobody answers does not wait forever: each network closes it after its lifetime, and the payment
// ends FAILED then (a network reports a prompt that timed out as a failure, not as the customer's refusal).
describe('payment prompts expire per network', () => {
  let sandbox: StartedSandbox;
  beforeAll(async () => {
    sandbox = await start(); // a hundredth of real time: MTN's 120 s are 1.2 s
  });
  afterAll(() => sandbox.close());

  it('gives each network its own lifetime, and says until when in the inspection view', async () => {
    for (const [msisdn, network] of [
      ['233241234567', 'MTN'],
      ['233501234567', 'Telecel'],
      ['233271234567', 'AirtelTigo'],
    ] as const) {
      const { referenceId } = await initiate(sandbox, msisdn);
      const payment = await listed(sandbox, referenceId);
      const lifetime = Date.parse(payment['promptExpiresAt'] as string) - Date.parse(payment['createdAt'] as string);
      expect(lifetime, network).toBe(PROMPT_LIFETIME_SECONDS[network]! * 1000 * 0.01);
    }
    expect(new Set(Object.values(PROMPT_LIFETIME_SECONDS)).size, 'one lifetime a network').toBe(3);
  });

  it('233240000005 waits for the phone, then fails when its MTN prompt expires unanswered', async () => {
    const { referenceId, referenceNo } = await initiate(sandbox, '233240000005');
    await sleep(PROMPT_LIFETIME_SECONDS['MTN']! * 1000 * 0.01 * 0.5);
    expect((await paymentStatus(sandbox, referenceId)).body.data.status, 'still open half-way').toBe('PENDING');
    const data = await finalStatus(sandbox, referenceNo);
    expect(data).toMatchObject({ status: 'FAILED', completedAt: null });
    const payment = await listed(sandbox, referenceId);
    expect(payment).toMatchObject({ status: 'FAILED', failureCode: 'PROMPT_EXPIRED', settleAt: payment['promptExpiresAt'] });
    // Too late to approve: the phone page has nothing to answer any more.
    expect((await send(sandbox, 'POST', `/__sandbox/phone/payments/${referenceId}/approve`)).status).toBe(409);
  });

  it('233240000005 approved on the phone before the prompt expires completes', async () => {
    const { referenceId } = await initiate(sandbox, '233240000005');
    expect((await send(sandbox, 'POST', `/__sandbox/phone/payments/${referenceId}/approve`)).status).toBe(303);
    await sleep(PROMPT_LIFETIME_SECONDS['MTN']! * 1000 * 0.01 + 100);
    expect((await paymentStatus(sandbox, referenceId)).body.data.status).toBe('COMPLETED');
  });

  it('233260000004 never answers and never expires: PENDING past every lifetime, no expiry in the view', async () => {
    const { referenceId } = await initiate(sandbox, '233260000004');
    expect((await listed(sandbox, referenceId))['promptExpiresAt']).toBeNull();
    await sleep(Math.max(...Object.values(PROMPT_LIFETIME_SECONDS)) * 1000 * 0.01 + 200);
    expect((await paymentStatus(sandbox, referenceId)).body.data.status).toBe('PENDING');
  });

  it('leaves a payment that settles sooner alone: an ordinary number still completes after 5 s', async () => {
    const { referenceId } = await initiate(sandbox, '233241234567');
    expect((await finalStatus(sandbox, referenceId)).status).toBe('COMPLETED');
    expect((await listed(sandbox, referenceId))['failureCode']).toBeNull();
  });
});
