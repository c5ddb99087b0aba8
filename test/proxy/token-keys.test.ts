import { decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_PATHS } from '../../src/protocol/index.js';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { ConfigError, resolveConfig } from '../../src/proxy/config.js';
import { ProxyError } from '../../src/proxy/errors.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { keyIdOf, tokenKeyRing } from '../../src/proxy/tokens/keys.js';
import { createTokenService } from '../../src/proxy/tokens/service.js';
import { serveSuite, SERVER_KEY, SHOP } from '../cli/serve-harness.js';
import { PIN_HEADER } from '../proof/round-robin-front.js';
import { captureLogger, startRedis, type TestRedis } from './helpers.js';
import { call, journeyAddress, journeyNumber, runTraffic, startRollingFleet } from './rolling-fleet.js';
import { numberKeys, numberKeysOf } from '../../src/proxy/number-keys.js';

const OLD = 'old-token-secret-0123456789-abcdefghij';
const NEW = 'new-token-secret-9876543210-ZYXWVUTSRQ';

/** One instance of a fleet sharing `store`: its secret, and the others it accepts. */
function instance(store: MemoryStore, secret: string, accepted: string[] = []) {
  const logs = captureLogger();
  const tokens = createTokenService({ secret, acceptedSecrets: accepted, audience: 'merchant-elements', payeeName: 'Shop', defaultCountry: 'GH', store, now: Date.now, logger: logs.logger });
  return { tokens, logs };
}

const codeOf = async (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'accepted',
    (err: unknown) => (err instanceof ProxyError ? err.code : String(err)),
  );

describe('token keys during a rotation', () => {
  it('names the signing key in a kid header, derived from the secret alone (the same on every instance)', async () => {
    const store = new MemoryStore();
    const a = instance(store, NEW, [OLD]);
    const b = instance(store, NEW);
    const token = await a.tokens.otp({ purpose: 'sign-in' });
    expect(decodeProtectedHeader(token).kid).toBe(keyIdOf(NEW));
    expect(decodeProtectedHeader(await b.tokens.otp({ purpose: 'sign-in' })).kid).toBe(keyIdOf(NEW));
    expect(keyIdOf(OLD)).not.toBe(keyIdOf(NEW));
    expect(keyIdOf(NEW)).not.toContain(NEW.slice(0, 6));
  });

  it('accepts a page token and an OTP proof minted by an instance on the old secret once it is accepted, and refuses them when it is removed', async () => {
    const store = new MemoryStore();
    const before = instance(store, OLD);
    const page = await before.tokens.payment({ amount: 12.5, referenceNo: 'ROT-1', narration: 'Order' });
    const proof = await before.tokens.proof({ recipient: '233240000001', purpose: 'sign-in' });

    const during = instance(store, NEW, [OLD]);
    expect(await during.tokens.verify(page, 'payment')).toMatchObject({ referenceNo: 'ROT-1', amount: 12.5 });
    expect(await during.tokens.redeemOtpProof(proof, { purpose: 'sign-in' })).toEqual({ recipient: '233240000001', purpose: 'sign-in' });
    // What the rotated instance mints, the old one refuses: hence the first step, where every instance accepts the new secret.
    const minted = await during.tokens.otp({ purpose: 'sign-in' });
    expect(await codeOf(before.tokens.verify(minted, 'otp'))).toBe('TOKEN_INVALID');
    expect(await codeOf(instance(store, OLD, [NEW]).tokens.verify(minted, 'otp'))).toBe('accepted');

    const after = instance(store, NEW);
    expect(await codeOf(after.tokens.verify(page, 'payment'))).toBe('TOKEN_INVALID');
    expect(after.logs.entries().at(-1)).toMatchObject({ tokenRefused: { scope: 'payment', reason: 'signature (another PROXY_TOKEN_SECRET?)' } });
    const otherProof = await before.tokens.proof({ recipient: '233240000001', purpose: 'sign-in' });
    expect(await codeOf(after.tokens.redeemOtpProof(otherProof, { purpose: 'sign-in' }))).toBe('TOKEN_INVALID');
  });

  it('keeps a refusal for what it is when the signature was right: an expired old-key token is TOKEN_EXPIRED, not tried against other keys', async () => {
    const store = new MemoryStore();
    const past = createTokenService({ secret: OLD, audience: 'merchant-elements', payeeName: 'Shop', defaultCountry: 'GH', store, now: () => Date.now() - 3_600_000 });
    const expired = await past.otp({ purpose: 'sign-in' });
    expect(await codeOf(instance(store, NEW, [OLD]).tokens.verify(expired, 'otp'))).toBe('TOKEN_EXPIRED');
  });

  it('tries the key a kid names first, then the others; a token without kid (minted by hand) tries the current key first', () => {
    const ring = tokenKeyRing(NEW, [OLD]);
    const header = (value: Record<string, unknown>) => `${Buffer.from(JSON.stringify(value)).toString('base64url')}.e30.sig`;
    expect(ring.candidates(header({ alg: 'HS256', kid: keyIdOf(OLD) })).map((k) => k.kid)).toEqual([keyIdOf(OLD), keyIdOf(NEW)]);
    expect(ring.candidates(header({ alg: 'HS256' })).map((k) => k.kid)).toEqual([keyIdOf(NEW), keyIdOf(OLD)]);
    expect(ring.candidates(header({ alg: 'HS256', kid: 'shop-key-3' })).map((k) => k.kid)).toEqual([keyIdOf(NEW), keyIdOf(OLD)]);
    expect(ring.candidates('not a token').map((k) => k.kid)).toEqual([keyIdOf(NEW)]);
  });

  it('reads PROXY_TOKEN_ACCEPTED_SECRETS separated by whitespace, each held to the rules of PROXY_TOKEN_SECRET', () => {
    const base = { PROVIDER_ENV: 'sandbox', PROXY_TOKEN_SECRET: NEW };
    expect(resolveConfig(configFromEnv({ ...base, PROXY_TOKEN_ACCEPTED_SECRETS: ` ${OLD}\n${NEW.toUpperCase()} ` })).acceptedTokenSecrets).toEqual([OLD, NEW.toUpperCase()]);
    expect(resolveConfig(configFromEnv(base)).acceptedTokenSecrets).toEqual([]);
    let problems: string[] = [];
    try {
      configFromEnv({ ...base, PROXY_TOKEN_ACCEPTED_SECRETS: `${OLD} short` });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems).toContain('PROXY_TOKEN_ACCEPTED_SECRETS: must be at least 32 bytes long');
    expect(problems.every((p) => p.startsWith('PROXY_TOKEN_ACCEPTED_SECRETS: ') && !p.includes(OLD))).toBe(true);
  });

  it('reads PROXY_TOKEN_RETIRED_SECRETS alike: they verify no token, and still tell a number locked under them', async () => {
    const base = { PROVIDER_ENV: 'sandbox', PROXY_TOKEN_SECRET: NEW };
    const config = resolveConfig(configFromEnv({ ...base, PROXY_TOKEN_RETIRED_SECRETS: `${OLD}\n` }));
    expect(config.retiredTokenSecrets).toEqual([OLD]);
    expect(config.acceptedTokenSecrets).toEqual([]);
    expect(numberKeysOf(config).holds(numberKeys(OLD).lock('233240000001'), '233240000001')).toBe(true);
    expect(() => configFromEnv({ ...base, PROXY_TOKEN_RETIRED_SECRETS: 'short' })).toThrow(/PROXY_TOKEN_RETIRED_SECRETS: must be at least 32 bytes long/);
  });
});

describe('a rolling rotation of PROXY_TOKEN_SECRET while pages are in use', () => {
  const suite = serveSuite();
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  it('loses no page: two instances behind a round-robin front go through the three steps, one restart at a time, while pages mint tokens, pay and sign in', async () => {
    redis = await startRedis();
    const envOf = (secret: string, accepted?: string) => ({
      ...suite.env(),
      REDIS_URL: redis!.url,
      TRUST_PROXY: 'loopback',
      PROXY_TOKEN_SECRET: secret,
      ...(accepted ? { PROXY_TOKEN_ACCEPTED_SECRETS: accepted } : {}),
    });
    const fleet = await startRollingFleet(suite, [envOf(OLD), envOf(OLD)]);
    const kids = new Set<string>();
    const server = { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' };
    /**
     * A page's call: with both instances in the front, each call of a journey goes to the other instance than
     * the one before (the token minted by one is used on the other); with one, to that one.
     */
    const via = (n: number, step: number, headers: Record<string, string>) => ({ ...headers, [PIN_HEADER]: String((n + step) % 2) });
    const page = (token: string, n: number) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: SHOP, 'x-forwarded-for': journeyAddress(n) });
    const mint = async (n: number, path: string, body: unknown) => {
      const { token } = await call(`${fleet.base}${path}`, { method: 'POST', headers: via(n, 0, server), body: JSON.stringify(body), expect: 201 });
      kids.add(String(decodeProtectedHeader(String(token)).kid));
      return String(token);
    };

    const journey = async (n: number) => {
      const msisdn = journeyNumber(n);
      if (n % 2 === 0) {
        // A payment page: its order, the payment, its status read until the customer approved it.
        const token = await mint(n, SERVER_PATHS.paymentToken, { amount: 5, referenceNo: `ROT-${n}`, narration: 'Order' });
        await call(`${fleet.base}/order`, { headers: via(n, 1, page(token, n)), expect: 200 });
        const paid = await call(`${fleet.base}/payments`, { method: 'POST', headers: via(n, 2, page(token, n)), body: JSON.stringify({ msisdn }), expect: 202 });
        for (let read = 3; ; read++) {
          const seen = await call(`${fleet.base}/payments/${String(paid.reference)}`, { headers: via(n, read, page(token, n)), expect: 200 });
          if (seen.status === 'COMPLETED') return;
          if (seen.status !== 'PENDING') throw new Error(`payment ${String(paid.reference)} ended ${String(seen.status)}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      // A sign-in page: the code sent, typed, and its proof redeemed by the shop's backend.
      const token = await mint(n, SERVER_PATHS.otpToken, { purpose: 'sign-in' });
      await call(`${fleet.base}/otp/send`, { method: 'POST', headers: via(n, 1, page(token, n)), body: JSON.stringify({ recipient: msisdn }), expect: 200 });
      const sms = suite.sandbox().app.sandbox.outbox.filter((e) => e.kind === 'sms' && e.to === msisdn).at(-1) as { message: string } | undefined;
      const code = sms?.message.match(/\b(\d{6})\b/)?.[1];
      if (!code) throw new Error(`no code sent to ${msisdn}`);
      const { proof } = await call(`${fleet.base}/otp/verify`, { method: 'POST', headers: via(n, 2, page(token, n)), body: JSON.stringify({ recipient: msisdn, code }), expect: 200 });
      const redeemed = await call(`${fleet.base}${SERVER_PATHS.redeemOtpProof}`, { method: 'POST', headers: via(n, 3, server), body: JSON.stringify({ proof, purpose: 'sign-in' }), expect: 200 });
      if (redeemed.msisdn !== msisdn) throw new Error(`proof redeemed for ${String(redeemed.msisdn)}`);
    };

    try {
      const traffic = runTraffic(journey, 2);
      await traffic.more(4);
      // Step 1: every instance accepts the new secret. Step 2: every instance signs with it, accepting the old.
      for (const env of [envOf(OLD, NEW), envOf(NEW, OLD)]) {
        for (const index of [0, 1]) {
          await fleet.restart(index, env);
          await traffic.more(4);
        }
      }
      // Step 3 once no page holds a token of the old secret: those running finish, the next are minted under the new.
      await traffic.stop();
      const after = runTraffic(journey, 2, 500);
      await after.more(2);
      for (const index of [0, 1]) {
        await fleet.restart(index, envOf(NEW));
        await after.more(4);
      }
      await after.stop();

      expect([...traffic.failures, ...after.failures]).toEqual([]);
      expect(traffic.completed() + after.completed()).toBeGreaterThanOrEqual(26);
      expect([...kids].sort()).toEqual([keyIdOf(OLD), keyIdOf(NEW)].sort());
    } finally {
      await fleet.close();
    }
  }, 600_000);
});
