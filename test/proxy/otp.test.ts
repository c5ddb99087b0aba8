import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

describe('OTP routes', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('sends a code and verifies it into a proof', async () => {
    const token = await h.mintOtp();
    const sent = await h.post('/otp/send', { recipient: '024 000 0001' }, { token });
    expect(sent.status, sent.text).toBe(200);
    const code = h.lastCode('233240000001');
    const verified = await h.post('/otp/verify', { recipient: '0240000001', code }, { token });
    expect(verified.status, verified.text).toBe(200);
    expect(await h.proxy.verifyOtpProof(verified.body.proof, { purpose: 'sign-in' })).toEqual({ recipient: '233240000001', purpose: 'sign-in' });
  });
});
