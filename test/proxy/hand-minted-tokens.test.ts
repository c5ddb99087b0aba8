import { createHash, createHmac, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, TEST_SECRET, type Harness } from './helpers.js';

/**
 * docs/tokens.md says another language may mint element tokens with the shared PROXY_TOKEN_SECRET. These
 * tokens are minted as such code would: plain jose SignJWT (or bare HMAC), only the claims the
 * specification requires, nothing the Node minting API adds.
 */
const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(TEST_SECRET));

const soon = () => Math.floor(Date.now() / 1000) + 600;
const jti = () => randomBytes(12).toString('base64url');

/** The PHP and Python snippets of docs/tokens.md, in JavaScript: base64url(header).base64url(claims).HMAC. */
function mintByHand(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', TEST_SECRET).update(input).digest('base64url')}`;
}

describe('tokens minted by hand (another language)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const refusals = () => h.logs.entries().filter((e) => typeof e.msg === 'string' && (e.msg as string).includes('token refused'));

  it('accepts a payment token with only the required claims: payee and maxAttempts take their defaults', async () => {
    const token = await sign({ scope: 'payment', aud: 'merchant-elements', exp: soon(), jti: jti(), amount: 12.5, referenceNo: 'HAND-1', narration: 'Order' });
    const lookup = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token });
    expect(lookup.status).toBe(200);
    const paid = await h.post('/payments', { msisdn: '0240000001' }, { token });
    expect(paid.status).toBe(202);
    expect(paid.body).toMatchObject({ orderReference: 'HAND-1', amount: 12.5, attemptsLeft: 2 });
    const sent = [...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo.startsWith('HAND-1-'));
    expect(sent).toMatchObject({ amount: 12.5 });
    expect(JSON.stringify(sent)).toContain('Test Shop');
  });

  it('accepts an OTP token built with bare HMAC, a local-form bound number normalised', async () => {
    const token = mintByHand({ scope: 'otp', aud: 'merchant-elements', exp: soon(), jti: jti(), purpose: 'sign-in', recipient: '024 000 0001' });
    expect((await h.post('/otp/send', { recipient: '+233240000001' }, { token })).status).toBe(200);
    expect((await h.post('/otp/send', { recipient: '0200000003' }, { token })).status).toBe(400);
  });

  it('accepts a checkout token with its required claims', async () => {
    const token = await sign({
      scope: 'checkout', aud: 'merchant-elements', exp: soon(), jti: jti(),
      title: 'Order', reference: 'HAND-CO-1', amount: 20, description: 'One', returnUrl: 'https://shop.example/r',
    });
    expect((await h.post('/checkouts', {}, { token })).status).toBe(201);
  });

  it('refuses a token without referenceNo (TOKEN_INVALID) and logs the claim by name', async () => {
    const token = await sign({ scope: 'payment', aud: 'merchant-elements', exp: soon(), jti: jti(), amount: 12.5, narration: 'Order' });
    const res = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('TOKEN_INVALID');
    const line = refusals().at(-1)!;
    expect(line.msg).toContain('claim referenceNo is missing');
    expect(line.tokenRefused).toMatchObject({ scope: 'payment', reason: 'claims', claims: ['referenceNo'] });
  });

  it('names each wrong claim: an amount in float trouble, a missing jti, a wrong audience, another secret', async () => {
    const base = { scope: 'payment', aud: 'merchant-elements', exp: soon(), jti: jti(), referenceNo: 'HAND-2', narration: 'Order' };
    const cases: [string, string][] = [
      [await sign({ ...base, amount: 0.1 + 0.2 }), 'claim amount must have at most two decimals'],
      [await sign({ ...base, amount: 5, jti: undefined }), 'claim jti is missing'],
      [await sign({ ...base, amount: 5, aud: 'someone-else' }), 'claim aud failed its check'],
      [await sign({ ...base, amount: 5, maxAttempts: 50 }), 'claim maxAttempts'],
      [await sign({ ...base, amount: 5, scope: 'otp' }), 'claim scope'],
      [await new SignJWT({ ...base, amount: 5 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(16) + 'another-secret-value')), 'signature'],
    ];
    for (const [token, named] of cases) {
      const res = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token });
      expect(res.body.error, named).toBe('TOKEN_INVALID');
      expect(refusals().at(-1)!.msg, named).toContain(named);
    }
    expect(h.logs.lines.some((l) => l.includes(TEST_SECRET))).toBe(false);
  });
});

describe('tokens minted by hand during a rotation of PROXY_TOKEN_SECRET (docs/tokens.md)', () => {
  const NEW = 'the-new-token-secret-0123456789-abcdefgh';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { tokenSecret: NEW, acceptedTokenSecrets: [TEST_SECRET] } });
  });
  afterAll(() => h.close());

  /** The key id as docs/tokens.md defines it: the first 12 characters of base64url(SHA-256(secret)). */
  const kidOf = (secret: string) => createHash('sha256').update(secret).digest('base64url').slice(0, 12);
  const otp = () => ({ scope: 'otp', aud: 'merchant-elements', exp: soon(), jti: jti(), purpose: 'sign-in' });

  it('accepts a token a backend still minting with the old secret signs, without kid or with one of its own', async () => {
    expect((await h.post('/otp/send', { recipient: '0240000022' }, { token: mintByHand(otp()) })).status).toBe(200);
    const ownKid = await new SignJWT(otp()).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'shop-2026' }).sign(new TextEncoder().encode(TEST_SECRET));
    expect((await h.post('/otp/send', { recipient: '0240000023' }, { token: ownKid })).status).toBe(200);
  });

  it('accepts a token minted with the new secret, named by its kid as the proxy computes it', async () => {
    const token = await new SignJWT(otp()).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: kidOf(NEW) }).sign(new TextEncoder().encode(NEW));
    expect((await h.post('/otp/send', { recipient: '0240000024' }, { token })).status).toBe(200);
    const minted = (await h.proxy.tokens.otp({ purpose: 'sign-in' })).split('.')[0]!;
    expect(JSON.parse(Buffer.from(minted, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT', kid: kidOf(NEW) });
  });

  it('refuses a token signed with neither secret, whatever kid it names', async () => {
    const token = await new SignJWT(otp()).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: kidOf(NEW) }).sign(new TextEncoder().encode('a-third-secret-nobody-configured-0123456789'));
    const res = await h.post('/otp/send', { recipient: '0240000025' }, { token });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('TOKEN_INVALID');
  });
});
