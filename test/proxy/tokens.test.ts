import { randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ProxyError } from '../../src/proxy/errors.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { createTokenService, type TokenService, VERIFIED_CACHE_SIZE } from '../../src/proxy/tokens/service.js';
import { keyIdOf } from '../../src/proxy/tokens/keys.js';
import { startHarness, TEST_SECRET, type Harness } from './helpers.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token signed by us with whatever header, claims and key a forger would choose. */
async function forge(
  claims: Record<string, unknown>,
  { secret = TEST_SECRET, alg = 'HS256' }: { secret?: string; alg?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: randomBytes(8).toString('hex'), iat: now, exp: now + 600, aud: 'merchant-elements', ...claims })
    .setProtectedHeader({ alg, typ: 'JWT' })
    .sign(new TextEncoder().encode(secret));
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ProxyError);
    return (err as ProxyError).code;
  }
  throw new Error('expected a refusal');
}

describe('token service', () => {
  let clock = Date.now();
  const store = new MemoryStore();
  const tokens: TokenService = createTokenService({
    secret: TEST_SECRET,
    audience: 'merchant-elements',
    payeeName: 'Test Shop',
    defaultCountry: 'GH',
    store,
    now: () => clock,
  });

  it('mints HS256 JWTs with scope, aud, exp (15 min by default), iat and a random jti', async () => {
    const token = await tokens.otp({ purpose: 'sign-in' });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT', kid: keyIdOf(TEST_SECRET) });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ scope: 'otp', purpose: 'sign-in', aud: 'merchant-elements' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(900);
    expect(decodeJwt(await tokens.otp({ purpose: 'sign-in' })).jti).not.toBe(claims.jti);
  });

  it('binds payment fields, defaults payee and maxAttempts, normalises the number', async () => {
    const token = await tokens.payment({ amount: 12.5, referenceNo: 'ORDER-1', narration: 'Order 1', msisdn: '024 000 0001', expiresIn: 60 });
    const claims = await tokens.verify(token, 'payment');
    expect(claims).toMatchObject({
      scope: 'payment', amount: 12.5, referenceNo: 'ORDER-1', narration: 'Order 1', payee: 'Test Shop', msisdn: '233240000001', maxAttempts: 3,
    });
    expect(claims.exp - claims.iat!).toBe(60);
  });

  it('binds checkout fields', async () => {
    const claims = await tokens.verify(
      await tokens.checkout({ title: 'T', reference: 'R-1', amount: 5, description: 'D', returnUrl: 'https://shop.example/r' }),
      'checkout',
    );
    expect(claims).toMatchObject({ scope: 'checkout', title: 'T', reference: 'R-1', amount: 5, returnUrl: 'https://shop.example/r' });
  });

  it('mints money amounts that are whole pesewas only, up to GHS 1,000,000,000 (finding 14)', async () => {
    // 0.1 + 0.2 and a huge amount used to pass zod's multipleOf(0.01) by its float margin.
    for (const amount of [0.1 + 0.2, 90071992547409.94, 12.345, 1_000_000_000.01, 0, -5, 0.001]) {
      await expect(tokens.payment({ amount, referenceNo: 'A', narration: 'n' }), String(amount)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        details: { fields: expect.arrayContaining([expect.objectContaining({ path: 'amount' })]) },
      });
      await expect(
        tokens.checkout({ title: 'T', reference: 'R', amount, description: 'D', returnUrl: 'https://shop.example/r' }),
        String(amount),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    for (const amount of [0.01, 0.07, 0.3, 12.5, 42.1, 19.99, 1_000_000_000]) {
      await expect(tokens.payment({ amount, referenceNo: 'A', narration: 'n' }), String(amount)).resolves.toEqual(expect.any(String));
    }
  });

  it('refuses bad minting input with INVALID_INPUT naming the field', async () => {
    await expect(tokens.payment({ amount: 12.345, referenceNo: 'A', narration: 'n' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { fields: [{ path: 'amount' }] },
    });
    await expect(tokens.payment({ amount: 1, referenceNo: 'A B', narration: 'n' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(tokens.otp({ purpose: 'x', recipient: 'not a number' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { fields: [{ path: 'recipient' }] },
    });
    await expect(tokens.otp({ purpose: 'x', extra: 1 } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('refuses a token of another scope', async () => {
    expect(await refusal(tokens.verify(await tokens.otp({ purpose: 'p' }), 'payment'))).toBe('TOKEN_INVALID');
  });

  it('says TOKEN_EXPIRED once exp has passed', async () => {
    const token = await tokens.otp({ purpose: 'p', expiresIn: 30 });
    clock += 31_000;
    try {
      expect(await refusal(tokens.verify(token, 'otp'))).toBe('TOKEN_EXPIRED');
    } finally {
      clock -= 31_000;
    }
  });

  describe('verified tokens remembered', () => {
    it('checks the signature of a token once, then answers its repeats from memory', async () => {
      const token = await tokens.payment({ amount: 5, referenceNo: 'CACHED-1', narration: 'n' });
      const hmac = vi.spyOn(crypto.subtle, 'verify');
      try {
        const first = await tokens.verify(token, 'payment');
        const again = await tokens.verify(token, 'payment');
        expect(again).toEqual(first);
        expect(hmac).toHaveBeenCalledTimes(1);
        expect(Object.isFrozen(again)).toBe(true);
      } finally {
        hmac.mockRestore();
      }
    });

    it('still expires a remembered token, and keeps refusing it', async () => {
      const token = await tokens.otp({ purpose: 'p', expiresIn: 30 });
      await tokens.verify(token, 'otp');
      clock += 30_000;
      try {
        expect(await refusal(tokens.verify(token, 'otp'))).toBe('TOKEN_EXPIRED');
        expect(await refusal(tokens.verify(token, 'otp'))).toBe('TOKEN_EXPIRED');
      } finally {
        clock -= 30_000;
      }
    });

    it('refuses a remembered token for another scope, and a copy with another signature', async () => {
      const token = await tokens.otp({ purpose: 'p' });
      await tokens.verify(token, 'otp');
      expect(await refusal(tokens.verify(token, 'payment'))).toBe('TOKEN_INVALID');
      const [header, payload, signature] = token.split('.');
      const flipped = `${signature![0] === 'A' ? 'B' : 'A'}${signature!.slice(1)}`;
      expect(await refusal(tokens.verify(`${header}.${payload}.${flipped}`, 'otp'))).toBe('TOKEN_INVALID');
      const forged = await forge({ scope: 'otp', purpose: 'p' }, { secret: 'another secret of at least thirty-two chars' });
      expect(await refusal(tokens.verify(forged, 'otp'))).toBe('TOKEN_INVALID');
    });

    it('forgets the oldest token when full, and verifies it again in full', async () => {
      const first = await tokens.checkout({ title: 'T', reference: 'R-0', amount: 5, description: 'D', returnUrl: 'https://shop.example/r' });
      await tokens.verify(first, 'checkout');
      const others = await Promise.all(Array.from({ length: VERIFIED_CACHE_SIZE }, (_, i) => forge({ scope: 'otp', purpose: `p${i}` })));
      for (const other of others) await tokens.verify(other, 'otp');
      const hmac = vi.spyOn(crypto.subtle, 'verify');
      try {
        await tokens.verify(others.at(-1)!, 'otp');
        expect(hmac).toHaveBeenCalledTimes(0);
        expect(await tokens.verify(first, 'checkout')).toMatchObject({ reference: 'R-0' });
        expect(hmac).toHaveBeenCalledTimes(1);
      } finally {
        hmac.mockRestore();
      }
    });
  });

  describe('verifyOtpProof', () => {
    it('accepts a proof once, then refuses the replay', async () => {
      const proof = await tokens.proof({ recipient: '233240000001', purpose: 'sign-in' });
      expect(decodeJwt(proof)).toMatchObject({ scope: 'otp-proof', sub: '233240000001', purpose: 'sign-in' });
      expect(await tokens.verifyOtpProof(proof, { purpose: 'sign-in' })).toEqual({ recipient: '233240000001', purpose: 'sign-in' });
      expect(await refusal(tokens.verifyOtpProof(proof, { purpose: 'sign-in' }))).toBe('TOKEN_INVALID');
    });

    it('refuses a proof of another purpose', async () => {
      const proof = await tokens.proof({ recipient: '233240000001', purpose: 'sign-in' });
      expect(await refusal(tokens.verifyOtpProof(proof, { purpose: 'payout' }))).toBe('TOKEN_INVALID');
    });

    it('refuses an element token as a proof, and a proof after 10 minutes', async () => {
      expect(await refusal(tokens.verifyOtpProof(await tokens.otp({ purpose: 'sign-in' }), { purpose: 'sign-in' }))).toBe('TOKEN_INVALID');
      const proof = await tokens.proof({ recipient: '233240000001', purpose: 'sign-in' });
      clock += 601_000;
      try {
        expect(await refusal(tokens.verifyOtpProof(proof, { purpose: 'sign-in' }))).toBe('TOKEN_INVALID');
      } finally {
        clock -= 601_000;
      }
    });
  });
});

describe('token tampering on the proxy routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const routes = [
    { name: 'POST /otp/send', scope: 'otp', call: (token: string) => h.post('/otp/send', { recipient: '0240000001' }, { token }) },
    { name: 'POST /otp/verify', scope: 'otp', call: (token: string) => h.post('/otp/verify', { recipient: '0240000001', code: '123456' }, { token }) },
    { name: 'GET /otp/:id/delivery', scope: 'otp', call: (token: string) => h.get('/otp/abc/delivery', { token }) },
    { name: 'POST /accounts/lookup', scope: 'payment', call: (token: string) => h.post('/accounts/lookup', { msisdn: '0240000001' }, { token }) },
  ] as const;

  const good = (scope: string) =>
    scope === 'otp' ? { scope: 'otp', purpose: 'sign-in' } : { scope: 'payment', amount: 1, referenceNo: 'R', narration: 'n', payee: 'p', maxAttempts: 3 };

  for (const route of routes) {
    describe(route.name, () => {
      const expectRefused = async (token: string, code = 'TOKEN_INVALID') => {
        const res = await route.call(token);
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ error: code });
      };

      it('is refused without a token, or with a malformed header', async () => {
        const res = await route.call('');
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('TOKEN_INVALID');
        await expectRefused('not-a-jwt');
      });

      it('is refused when re-signed with another secret', async () => {
        await expectRefused(await forge(good(route.scope), { secret: 'another-secret-of-at-least-32-bytes!!' }));
      });

      it('is refused when the payload was edited', async () => {
        const token = route.scope === 'otp' ? await h.mintOtp({ purpose: 'sign-in' }) : await h.mintPayment();
        const [header, payload, signature] = token.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
        const edited = route.scope === 'otp' ? { ...claims, purpose: 'admin' } : { ...claims, amount: 0.01 };
        await expectRefused(`${header}.${b64(edited)}.${signature}`);
      });

      it("is refused with alg 'none'", async () => {
        const now = Math.floor(Date.now() / 1000);
        const claims = { ...good(route.scope), jti: 'x', iat: now, exp: now + 600, aud: 'merchant-elements' };
        await expectRefused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`);
      });

      it('is refused with another algorithm (HS512, same secret)', async () => {
        await expectRefused(await forge(good(route.scope), { alg: 'HS512' }));
      });

      it('is refused when expired, with TOKEN_EXPIRED', async () => {
        const past = Math.floor(Date.now() / 1000) - 120;
        await expectRefused(await forge({ ...good(route.scope), iat: past - 900, exp: past }), 'TOKEN_EXPIRED');
      });

      it('is refused for another audience', async () => {
        await expectRefused(await forge({ ...good(route.scope), aud: 'someone-else' }));
      });

      it('is refused with a token of another scope, or a proof', async () => {
        await expectRefused(route.scope === 'otp' ? await h.mintPayment() : await h.mintOtp());
        await expectRefused(await h.mintCheckout());
        await expectRefused(await forge({ scope: 'otp-proof', sub: '233240000001', purpose: 'sign-in' }));
      });

      it('is accepted with a genuine token (control)', async () => {
        const token = route.scope === 'otp' ? await h.mintOtp() : await h.mintPayment();
        const res = await route.call(token);
        expect(res.status).not.toBe(401);
      });
    });
  }

  it('refuses a replayed proof through the proxy', async () => {
    const token = await h.mintOtp({ purpose: 'sign-in' });
    expect((await h.post('/otp/send', { recipient: '0241234567' }, { token })).status).toBe(200);
    const res = await h.post('/otp/verify', { recipient: '0241234567', code: h.lastCode('233241234567') }, { token });
    expect(res.status).toBe(200);
    await expect(h.proxy.verifyOtpProof(res.body.proof, { purpose: 'sign-in' })).resolves.toEqual({
      recipient: '233241234567',
      purpose: 'sign-in',
    });
    await expect(h.proxy.verifyOtpProof(res.body.proof, { purpose: 'sign-in' })).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
  });
});

describe('verifyOtpProof without its store', () => {
  it('refuses (retryable) rather than accept a proof it cannot mark as used', async () => {
    const broken = new MemoryStore();
    broken.setIfAbsent = async () => {
      throw new Error('store down');
    };
    const tokens = createTokenService({
      secret: TEST_SECRET, audience: 'merchant-elements', payeeName: 'Shop', defaultCountry: 'GH', store: broken, now: Date.now,
    });
    const proof = await tokens.proof({ recipient: '233240000001', purpose: 'sign-in' });
    await expect(tokens.verifyOtpProof(proof, { purpose: 'sign-in' })).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      details: { retryable: true },
    });
  });
});
