import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { ConfigError, resolveConfig } from '../../src/proxy/config.js';
import { ProxyError } from '../../src/proxy/errors.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { keyIdOf, tokenKeyRing } from '../../src/proxy/tokens/keys.js';
import { createTokenService } from '../../src/proxy/tokens/service.js';
import { captureLogger } from './helpers.js';

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
});
