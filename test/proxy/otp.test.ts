import { afterEach, describe, expect, it } from 'vitest';
import { otpSendResponse } from '../../src/protocol/index.js';
import type { OtpSendCheck } from '../../src/proxy/context.js';
import { MemoryStore } from '../../src/proxy/store/index.js';
import { numberKeys } from '../../src/proxy/number-keys.js';
import { startHarness, startRedis, TEST_SECRET, type Harness, type HarnessOptions } from './helpers.js';
import { eventually } from './sse-client.js';

const KWAME = '233240000001'; // SMS delivered
const AMA = '233240000002'; // SMS undelivered
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Limits that let a test send freely, so it can isolate the one policy it checks. */
const LOOSE = {
  otpSendPerToken: { points: 1000, durationSec: 3600 },
  otpSendPerIp: { points: 1000, durationSec: 3600 },
  otpSendPerNumberShort: { points: 1000, durationSec: 600 },
  otpSendPerNumberDay: { points: 1000, durationSec: 86_400 },
  otpSendCooldown: { points: 1000, durationSec: 60 },
  otpSendPerPrefix: { points: 1000, durationSec: 3600 },
};

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function start(options: HarnessOptions = {}): Promise<Harness> {
  h = await startHarness(options);
  return h;
}

function expectRateLimited(res: { status: number; body: { error: string; details: { retryAfter: number } }; headers: Headers }, maxWait: number) {
  expect(res.status).toBe(429);
  expect(res.body.error).toBe('RATE_LIMITED');
  expect(res.body.details.retryAfter).toBeGreaterThan(0);
  expect(res.body.details.retryAfter).toBeLessThanOrEqual(maxWait);
  expect(res.headers.get('retry-after')).toBe(String(res.body.details.retryAfter));
}

describe('POST /otp/send', () => {
  it("sends the merchant's template from the merchant's sender and answers the protocol's shape", async () => {
    await start({ config: { otp: { sender: 'ShopCo', template: 'ShopCo code: {code} ({amount} {duration})', pinLength: 8 } } });
    const before = Date.now();
    const res = await h.post('/otp/send', { recipient: '024 000 0001' }, { token: await h.mintOtp() });
    expect(res.status, res.text).toBe(200);
    const body = otpSendResponse.parse(res.body);
    expect(body).toMatchObject({ recipient: '+233 24 *** **01', attemptsLeft: 5, pinLength: 8, pinType: 'NUMERIC' });
    const resendIn = Date.parse(body.resendAt) - before;
    expect(resendIn).toBeGreaterThan(55_000);
    expect(resendIn).toBeLessThan(65_000 + 5_000);
    expect(Date.parse(body.expiresAt) - before).toBeGreaterThan(4 * 60_000);
    const sms = h.sandbox.app.sandbox.outbox.filter((e) => e.kind === 'sms' && e.to === KWAME);
    expect(sms).toHaveLength(1);
    expect(sms[0]).toMatchObject({ from: 'ShopCo' });
    expect((sms[0] as { message: string }).message).toMatch(/^ShopCo code: \d{8} \(5 minutes\)$/);
    expect(res.text).not.toContain(h.lastCode(KWAME));
  });

  it('accepts the international forms of a number', async () => {
    await start({ config: { limits: LOOSE } });
    for (const recipient of ['+233 24 000 0001', '233240000001', '00233240000001']) {
      const res = await h.post('/otp/send', { recipient }, { token: await h.mintOtp() });
      expect(res.status, res.text).toBe(200);
    }
    expect(h.smsTo(KWAME)).toHaveLength(3);
  });

  it('lets the browser choose nothing but the number: unknown fields are refused', async () => {
    await start();
    const res = await h.post('/otp/send', { recipient: '0240000001', pinLength: 4, template: 'x {code}' }, { token: await h.mintOtp() });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_INPUT');
    expect(res.body.details.fields).toEqual([
      { path: 'pinLength', message: 'is not allowed' },
      { path: 'template', message: 'is not allowed' },
    ]);
    expect(h.smsTo(KWAME)).toHaveLength(0);
  });

  it('refuses a missing recipient and a number that is not one', async () => {
    await start();
    const token = await h.mintOtp();
    const missing = await h.post('/otp/send', {}, { token });
    expect(missing.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'recipient' }] } });
    const bad = await h.post('/otp/send', { recipient: '12345' }, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('INVALID_PHONE_NUMBER');
  });

  it('refuses a foreign number before any SMS', async () => {
    await start();
    const res = await h.post('/otp/send', { recipient: '+1 415 555 0123' }, { token: await h.mintOtp() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_PHONE_NUMBER', message: 'Only Ghanaian numbers can be used here.' });
    expect(h.sandbox.app.sandbox.outbox).toHaveLength(0);
  });

  it('refuses another number than the one the token is bound to', async () => {
    await start();
    const token = await h.mintOtp({ recipient: '0240000001' });
    const res = await h.post('/otp/send', { recipient: '0240000002' }, { token });
    expect(res.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'recipient' }] } });
    expect(h.smsTo(AMA)).toHaveLength(0);
    expect((await h.post('/otp/send', { recipient: '+233240000001' }, { token })).status).toBe(200);
  });

  it('refuses a send inside the 60 s cooldown, without an SMS', async () => {
    await start();
    expect((await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() })).status).toBe(200);
    const again = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() });
    expectRateLimited(again, 60);
    expect(h.smsTo(KWAME)).toHaveLength(1);
  });

  it('refuses the 4th send to a number in 10 minutes, without an SMS', async () => {
    await start({ config: { limits: { ...LOOSE, otpSendPerNumberShort: { points: 3, durationSec: 600 } } } });
    for (let i = 0; i < 3; i++) {
      expect((await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() })).status).toBe(200);
    }
    const fourth = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() });
    expectRateLimited(fourth, 600);
    expect(fourth.body.details.retryAfter).toBeGreaterThan(500);
    expect(h.smsTo(KWAME)).toHaveLength(3);
  });

  it('refuses the 6th send to a number in 24 hours', async () => {
    await start({ config: { limits: { ...LOOSE, otpSendPerNumberDay: { points: 5, durationSec: 86_400 } } } });
    for (let i = 0; i < 5; i++) {
      expect((await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() })).status).toBe(200);
    }
    expectRateLimited(await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() }), 86_400);
    expect(h.smsTo(KWAME)).toHaveLength(5);
  });

  it('allows 5 sends per token', async () => {
    await start({ config: { limits: { ...LOOSE, otpSendPerToken: { points: 5, durationSec: 86_400 } } } });
    const token = await h.mintOtp();
    for (let i = 0; i < 5; i++) {
      expect((await h.post('/otp/send', { recipient: `02400001${10 + i}` }, { token })).status).toBe(200);
    }
    expectRateLimited(await h.post('/otp/send', { recipient: '0240000120' }, { token }), 86_400);
    expect(h.smsTo('233240000120')).toHaveLength(0);
    expect((await h.post('/otp/send', { recipient: '0240000120' }, { token: await h.mintOtp() })).status).toBe(200);
  });

  it('caps sends per IP', async () => {
    await start({ config: { limits: { ...LOOSE, otpSendPerIp: { points: 2, durationSec: 3600 } } } });
    expect((await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() })).status).toBe(200);
    expect((await h.post('/otp/send', { recipient: '0200000003' }, { token: await h.mintOtp() })).status).toBe(200);
    const refused = await h.post('/otp/send', { recipient: '0260000004' }, { token: await h.mintOtp() });
    expectRateLimited(refused, 3600);
    // The element words a per-address refusal apart ("from this connection").
    expect(refused.body.details.scope).toBe('address');
    expect(h.smsTo('233260000004')).toHaveLength(0);
  });

  it('caps sends per number prefix (SMS pumping), other prefixes unaffected', async () => {
    await start({ config: { limits: { ...LOOSE, otpSendPerPrefix: { points: 2, durationSec: 3600 } } } });
    expect((await h.post('/otp/send', { recipient: '0245550001' }, { token: await h.mintOtp() })).status).toBe(200);
    expect((await h.post('/otp/send', { recipient: '0245550002' }, { token: await h.mintOtp() })).status).toBe(200);
    expectRateLimited(await h.post('/otp/send', { recipient: '0245550003' }, { token: await h.mintOtp() }), 3600);
    expect(h.smsTo('233245550003')).toHaveLength(0);
    expect((await h.post('/otp/send', { recipient: '0245560003' }, { token: await h.mintOtp() })).status).toBe(200);
  });

  it('does not eat other quotas with a refused send', async () => {
    await start({ config: { limits: { ...LOOSE, otpSendCooldown: { points: 1, durationSec: 60 }, otpSendPerToken: { points: 2, durationSec: 3600 } } } });
    const token = await h.mintOtp();
    expect((await h.post('/otp/send', { recipient: '0240000001' }, { token })).status).toBe(200);
    expect((await h.post('/otp/send', { recipient: '0240000001' }, { token })).status).toBe(429); // cooldown
    expect((await h.post('/otp/send', { recipient: '0200000003' }, { token })).status).toBe(200); // token's 2nd
  });

  describe('human check', () => {
    it('passes the number, IP, purpose and headers to the hook, and sends when it says true', async () => {
      const seen: OtpSendCheck[] = [];
      await start({ config: { hooks: { beforeOtpSend: (r) => (seen.push(r), true) } } });
      const res = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp({ purpose: 'login' }), headers: { 'x-turnstile': 'tok' } });
      expect(res.status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ recipient: KWAME, purpose: 'login', headers: { 'x-turnstile': 'tok' } });
      expect(seen[0]!.ip).toMatch(/127\.0\.0\.1/);
    });

    for (const [name, hook] of [
      ['answers false', () => false],
      ['throws', () => {
        throw new Error('captcha service down');
      }],
      ['rejects', async () => Promise.reject(new Error('timeout'))],
      ['answers something truthy but not true', () => 'yes' as unknown as boolean],
    ] as const) {
      it(`fails closed when the hook ${name}`, async () => {
        await start({ config: { hooks: { beforeOtpSend: hook } } });
        const res = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() });
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('HUMAN_CHECK_FAILED');
        expect(h.sandbox.app.sandbox.outbox).toHaveLength(0);
      });
    }

    it('runs before the country allowlist and the limits', async () => {
      await start({ config: { hooks: { beforeOtpSend: () => false } } });
      const res = await h.post('/otp/send', { recipient: '+14155550123' }, { token: await h.mintOtp() });
      expect(res.body.error).toBe('HUMAN_CHECK_FAILED');
    });
  });

  it('answers UPSTREAM_UNAVAILABLE (retryable) on a provider 503 and lets the person retry at once', async () => {
    await start();
    await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: '503', path: '/v1/external/generate/otp' }),
    });
    const token = await h.mintOtp();
    const failed = await h.post('/otp/send', { recipient: '0240000001' }, { token });
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ error: 'UPSTREAM_UNAVAILABLE', message: expect.any(String), details: { retryable: true } });
    expect((await h.post('/otp/send', { recipient: '0240000001' }, { token })).status).toBe(200);
  });
});

describe('OTP sends through a provider outage', () => {
  it('counts no refused send against the customer: after the outage, sign-ins are sent, not 429 (issue 35)', async () => {
    // The default limits; a breaker that opens after 4 failed calls and tries one again every 200 ms.
    await start({ config: { circuitBreaker: { threshold: 0.5, minimumCalls: 4, windowMs: 60_000, halfOpenAfterMs: 200, maxHalfOpenAfterMs: 200 } } });
    const outage = await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: '503', count: 1_000, path: '/v1/external/generate/otp' }),
    });
    expect(outage.status).toBe(201);

    // One customer tries again and again (past the 3 per number in 10 minutes, the 5 per token), and others
    // from the same address (past its 10 an hour) on numbers of one prefix: the provider answers 503, then
    // the open circuit refuses them before they reach it. Each one is told the service is unavailable.
    const token = await h.mintOtp();
    const others = await Promise.all(Array.from({ length: 8 }, () => h.mintOtp()));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.post('/otp/send', { recipient: '0240000001' }, { token })).status);
    for (const [i, other] of others.entries()) statuses.push((await h.post('/otp/send', { recipient: `024555000${i}` }, { token: other })).status);
    expect(statuses).toEqual(Array(14).fill(503));
    const reached = (await (await fetch(`${h.sandbox.url}/__sandbox/faults`)).json()) as { faults: { remaining: number }[] };
    expect(1_000 - reached.faults[0]!.remaining).toBeLessThan(14);

    // The provider is back: the same customer tries until the circuit's next trial (each try refused
    // meanwhile counted against nothing either), and the others get their codes.
    await fetch(`${h.sandbox.url}/__sandbox/faults`, { method: 'DELETE' });
    const again = await eventually(async () => {
      const res = await h.post('/otp/send', { recipient: '0240000001' }, { token });
      return res.status === 503 ? undefined : res;
    }, 60_000);
    expect(again.status, again.text).toBe(200);
    for (const [i, other] of others.entries()) {
      const res = await h.post('/otp/send', { recipient: `024555000${i}` }, { token: other });
      expect(res.status, res.text).toBe(200);
    }
    expect(h.smsTo(KWAME)).toHaveLength(1);
  });
});

describe('POST /otp/verify', () => {
  async function sendTo(recipient: string, token: string) {
    const res = await h.post('/otp/send', { recipient }, { token });
    expect(res.status, res.text).toBe(200);
    return res.body as { otpId: string };
  }

  it('verifies the right code into a single-use proof of the number and purpose', async () => {
    await start();
    const token = await h.mintOtp({ purpose: 'checkout' });
    await sendTo('0240000001', token);
    const res = await h.post('/otp/verify', { recipient: '+233 24 000 0001', code: h.lastCode(KWAME) }, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ verified: true, proof: expect.any(String) });
    expect(await h.proxy.verifyOtpProof(res.body.proof, { purpose: 'checkout' })).toEqual({ recipient: KWAME, purpose: 'checkout' });
    const reuse = await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode(KWAME) }, { token });
    expect(reuse.body.error).toBe('OTP_EXPIRED');
  });

  it('counts wrong codes down, then the code is dead even when right', async () => {
    await start();
    const token = await h.mintOtp();
    await sendTo('0240000001', token);
    const code = h.lastCode(KWAME);
    const wrong = code === '000000' ? '111111' : '000000';
    const left: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await h.post('/otp/verify', { recipient: '0240000001', code: wrong }, { token });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('OTP_INVALID');
      left.push(res.body.details.attemptsLeft);
    }
    expect(left).toEqual([4, 3, 2, 1, 0]);
    const right = await h.post('/otp/verify', { recipient: '0240000001', code }, { token });
    expect(right.status).toBe(423);
    expect(right.body).toMatchObject({ error: 'OTP_LOCKED', details: { reason: 'code' } });
  });

  it('keeps its own count when the provider gives no attemptsLeft or reason', async () => {
    // A provider that answers wrong codes with a bare 400 (no details): the proxy still counts.
    const bare: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (String(input).includes('/validate/otp') && res.status === 400) {
        return new Response(JSON.stringify({ error: 'BAD_CODE', message: 'Invalid code or recipient', details: {} }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        });
      }
      return res;
    };
    await start({ config: { fetch: bare } });
    const token = await h.mintOtp();
    await sendTo('0240000001', token);
    const wrong = h.lastCode(KWAME) === '000000' ? '111111' : '000000';
    const left: number[] = [];
    for (let i = 0; i < 5; i++) left.push((await h.post('/otp/verify', { recipient: '0240000001', code: wrong }, { token })).body.details.attemptsLeft);
    expect(left).toEqual([4, 3, 2, 1, 0]);
    const validations = () => h.sandbox.app.sandbox.requestCounts.get('otp.validate') ?? 0;
    const before = validations();
    const after = await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode(KWAME) }, { token });
    expect(after.body.error).toBe('OTP_LOCKED');
    expect(validations()).toBe(before);
  });

  it('checks the latest code sent: a resend starts a fresh count, and the first code stays readable for delivery', async () => {
    await start({ config: { limits: LOOSE } });
    const token = await h.mintOtp();
    const first = await sendTo('0240000001', token);
    const firstCode = h.lastCode(KWAME);
    const wrong = (code: string) => (code === '000000' ? '111111' : '000000');
    for (const left of [4, 3]) {
      const res = await h.post('/otp/verify', { recipient: '0240000001', code: wrong(firstCode) }, { token });
      expect(res.body).toMatchObject({ error: 'OTP_INVALID', details: { attemptsLeft: left } });
    }
    const second = await sendTo('0240000001', token);
    expect(second.otpId).not.toBe(first.otpId);
    const code = h.lastCode(KWAME);
    const miss = await h.post('/otp/verify', { recipient: '0240000001', code: wrong(code) }, { token });
    expect(miss.body).toMatchObject({ error: 'OTP_INVALID', details: { attemptsLeft: 4 } });
    const ok = await h.post('/otp/verify', { recipient: '0240000001', code }, { token });
    expect(ok.status, ok.text).toBe(200);
    expect((await h.get(`/otp/${first.otpId}/delivery`, { token })).status).toBe(200);
  });

  it('answers OTP_EXPIRED, not a 500, for a stored code it cannot read (a shared store written by another version)', async () => {
    const store = new MemoryStore();
    await start({ config: { store, limits: LOOSE } });
    const token = await h.mintOtp();
    // An id alone (the layout before the record moved under this key), and a record cut short.
    for (const unreadable of ['an-otp-id-of-an-older-layout', '{"otpId":"x","purpose":']) {
      await sendTo('0240000001', token);
      await store.set(`otp-latest:${numberKeys(TEST_SECRET).of(KWAME)}`, unreadable, 60_000);
      const res = await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode(KWAME) }, { token });
      expect(res.status, unreadable).toBe(410);
      expect(res.body.error).toBe('OTP_EXPIRED');
    }
  });

  it('keeps the number out of the live code\'s key, and verifies a code an instance of the previous version stored under the number', async () => {
    const store = new MemoryStore();
    await start({ config: { store, limits: LOOSE } });
    const token = await h.mintOtp();
    await sendTo('0240000001', token);
    const hashed = `otp-latest:${numberKeys(TEST_SECRET).of(KWAME)}`;
    const record = await store.get(hashed);
    expect(record).not.toContain(KWAME);
    await store.del(hashed);
    await store.set(`otp-latest:${KWAME}`, record!, 60_000);
    expect((await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode(KWAME) }, { token })).status).toBe(200);
    expect(await store.get(`otp-latest:${KWAME}`)).toBeNull();
  });

  it('answers OTP_EXPIRED once the code expired', async () => {
    await start({ config: { otp: { expiryMinutes: 1 } } });
    const token = await h.mintOtp();
    await sendTo('0240000001', token);
    await sleep(900); // one scaled minute in the sandbox is 600 ms
    const res = await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode(KWAME) }, { token });
    expect(res.status).toBe(410);
    expect(res.body.error).toBe('OTP_EXPIRED');
  });

  it('answers OTP_EXPIRED when no code was sent to the number, or for another purpose', async () => {
    await start();
    const res = await h.post('/otp/verify', { recipient: '0240000001', code: '123456' }, { token: await h.mintOtp() });
    expect(res.body.error).toBe('OTP_EXPIRED');
    await sendTo('0240000001', await h.mintOtp({ purpose: 'sign-in' }));
    const other = await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode(KWAME) }, { token: await h.mintOtp({ purpose: 'payout' }) });
    expect(other.body.error).toBe('OTP_EXPIRED');
  });

  it('locks the number after too many failed checks in the hour', async () => {
    await start({ config: { limits: { ...LOOSE, otpVerifyFailuresPerNumber: { points: 7, durationSec: 3600 } } } });
    const token = await h.mintOtp();
    const codes: string[] = [];
    const results: string[] = [];
    for (let round = 0; round < 2; round++) {
      await sendTo('0240000001', token);
      const code = h.lastCode(KWAME);
      codes.push(code);
      const wrong = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5 && results.length < 7; i++) {
        results.push((await h.post('/otp/verify', { recipient: '0240000001', code: wrong }, { token })).body.error);
      }
    }
    expect(results).toEqual(['OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_INVALID', 'OTP_LOCKED']);
    const locked = await h.post('/otp/verify', { recipient: '0240000001', code: codes[1] }, { token });
    expect(locked.status).toBe(423);
    expect(locked.body).toMatchObject({ error: 'OTP_LOCKED', details: { reason: 'number' } });
    expect(locked.body.details.retryAfter).toBeGreaterThan(3000);
    expect(locked.headers.get('retry-after')).toBe(String(locked.body.details.retryAfter));
    // No new code for a locked number: it could not be checked before the lock ends.
    const sent = h.smsTo(KWAME).length;
    const resend = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp() });
    expect(resend.status).toBe(423);
    expect(resend.body).toMatchObject({ error: 'OTP_LOCKED', details: { reason: 'number' } });
    expect(h.smsTo(KWAME)).toHaveLength(sent);
  });

  it('refuses another number than the bound one', async () => {
    await start();
    const res = await h.post('/otp/verify', { recipient: '0240000002', code: '123456' }, { token: await h.mintOtp({ recipient: '0240000001' }) });
    expect(res.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: 'recipient' }] } });
  });
});

describe('GET /otp/:otpId/delivery', () => {
  async function statusUntilFinal(otpId: string, token: string): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const res = await h.get(`/otp/${otpId}/delivery`, { token });
      expect(res.status, res.text).toBe(200);
      if (res.body.deliveryStatus !== 'ACCEPTED') return res.body.deliveryStatus;
      await sleep(50);
    }
    throw new Error('still ACCEPTED');
  }

  it("reads the code SMS's delivery receipt", async () => {
    await start({ config: { limits: LOOSE } });
    const token = await h.mintOtp();
    const delivered = (await h.post('/otp/send', { recipient: '0240000001' }, { token })).body.otpId;
    const undelivered = (await h.post('/otp/send', { recipient: '0240000002' }, { token })).body.otpId;
    expect(await statusUntilFinal(delivered, token)).toBe('DELIVERED');
    expect(await statusUntilFinal(undelivered, token)).toBe('UNDELIVERED');
  });

  it('answers NOT_FOUND for an unknown otpId, or with another token', async () => {
    await start();
    const token = await h.mintOtp();
    const unknown = await h.get('/otp/nope/delivery', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
    const otpId = (await h.post('/otp/send', { recipient: '0240000001' }, { token })).body.otpId;
    const other = await h.get(`/otp/${otpId}/delivery`, { token: await h.mintOtp() });
    expect(other.body.error).toBe('NOT_FOUND');
  });
});

describe('OTP on the Redis store', () => {
  it('sends and verifies with Redis, and fails closed (no SMS) once Redis is down', async () => {
    const redis = await startRedis();
    try {
      await start({ config: { redisUrl: redis.url } });
      const token = await h.mintOtp();
      expect((await h.post('/otp/send', { recipient: '0240000001' }, { token })).status).toBe(200);
      const again = await h.post('/otp/send', { recipient: '0240000001' }, { token });
      expect(again.body.error).toBe('RATE_LIMITED');
      const ok = await h.post('/otp/verify', { recipient: '0240000001', code: h.lastCode(KWAME) }, { token });
      expect(ok.status).toBe(200);
      expect(await h.proxy.verifyOtpProof(ok.body.proof, { purpose: 'sign-in' })).toMatchObject({ recipient: KWAME });

      await redis.stop();
      const down = await h.post('/otp/send', { recipient: '0200000003' }, { token: await h.mintOtp() });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ error: 'UPSTREAM_UNAVAILABLE', details: { retryable: true } });
      expect(h.smsTo('233200000003')).toHaveLength(0);
      expect(h.logs.entries().some((e) => e.msg === 'rate limit store failed: refusing the request')).toBe(true);
    } finally {
      await redis.stop();
    }
  });
});
