import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { ConfigError, resolveConfig, type ProxyConfig } from '../../src/proxy/config.js';
import { createMerchantProxy } from '../../src/proxy/create-proxy.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { TEST_SECRET } from './helpers.js';

const valid = (): ProxyConfig => ({
  provider: {
    env: 'staging',
    messagingBaseUrl: 'https://api.example.test/',
    paymentBaseUrl: 'https://pay.example.test/gateway',
    messaging: { apiKey: 'k', apiSecret: 's' },
    payment: { username: 'u', password: 'p' },
    checkout: { apiKey: 'c' },
  },
  tokenSecret: TEST_SECRET,
  payeeName: 'Shop',
});

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveConfig', () => {
  it('fills DESIGN defaults and trims trailing slashes', () => {
    const config = resolveConfig(valid());
    expect(config.provider.messagingBaseUrl).toBe('https://api.example.test');
    expect(config.provider.checkoutBaseUrl).toBe('https://api.example.test');
    expect(config.audience).toBe('merchant-elements');
    expect(config.defaultCountry).toBe('GH');
    expect(config.accountNameDisplay).toBe('masked');
    expect(config.otp).toMatchObject({ pinLength: 6, pinType: 'NUMERIC', expiryMinutes: 5, maxRetries: 5 });
    expect(config.limits.otpSendPerNumberShort).toEqual({ points: 3, durationSec: 600 });
    expect(config.limits.otpSendCooldown).toEqual({ points: 1, durationSec: 60 });
    expect(config.relay).toEqual({
      minIntervalMs: 1_000,
      maxIntervalMs: 10_000,
      deadlineMs: 900_000,
      heartbeatMs: 5_000,
      reconcileWindowMs: 86_400_000,
      lateIntervalMs: 60_000,
      unknownGraceMs: 60_000,
      maxReadsInFlight: 32,
      sweepIntervalMs: 15_000,
      outboxBackoffMs: 1_000,
      outboxMaxBackoffMs: 600_000,
      outboxLeaseMs: 30_000,
      outboxMaxAgeMs: 86_400_000,
    });
  });

  it('lets one limit be overridden and keeps the others', () => {
    const config = resolveConfig({ ...valid(), limits: { otpSendPerIp: { points: 2, durationSec: 60 } } });
    expect(config.limits.otpSendPerIp).toEqual({ points: 2, durationSec: 60 });
    expect(config.limits.otpSendPerToken).toEqual({ points: 5, durationSec: 86_400 });
  });

  it('names each missing credential', () => {
    const config = valid();
    const provider = { ...config.provider, messaging: { apiKey: 'k' }, payment: {} } as unknown as ProxyConfig['provider'];
    const problems = problemsOf(() => resolveConfig({ ...config, provider }));
    expect(problems).toContain('provider.messaging.apiSecret: is required');
    expect(problems).toContain('provider.payment.username: is required');
    expect(problems).toContain('provider.payment.password: is required');
  });

  it('refuses a token secret shorter than 32 bytes, without quoting it', () => {
    const problems = problemsOf(() => resolveConfig({ ...valid(), tokenSecret: 'short-secret-value' }));
    expect(problems).toEqual(['tokenSecret: must be at least 32 bytes long']);
    expect(problems.join()).not.toContain('short-secret-value');
  });

  it('refuses a bad origin, naming it', () => {
    const problems = problemsOf(() =>
      resolveConfig({ ...valid(), allowedOrigins: ['https://shop.example', 'https://shop.example/path', 'nope'] }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^allowedOrigins\.1: "https:\/\/shop\.example\/path" is not an origin/);
    expect(problems[1]).toMatch(/^allowedOrigins\.2: "nope" is not an origin/);
  });

  it('refuses an unknown option, top level and nested', () => {
    const problems = problemsOf(() =>
      resolveConfig({ ...valid(), tokenSecrett: 'x', otp: { sender: 'Shop', pinLenght: 6 } } as unknown as ProxyConfig),
    );
    expect(problems).toContain("unknown option 'tokenSecrett'");
    expect(problems).toContain("unknown option 'pinLenght' in otp");
  });

  it('caps the OTP expiry at 10 minutes and requires {code} in the template', () => {
    const problems = problemsOf(() => resolveConfig({ ...valid(), otp: { expiryMinutes: 15, template: 'Hello' } }));
    expect(problems).toContain('otp.expiryMinutes: must be at most 10 (minutes)');
    expect(problems).toContain('otp.template: must contain the {code} placeholder');
  });

  it('bounds relay.heartbeatMs by what the elements live with: at most their 5 s heartbeat, at least 1 s in production', () => {
    expect(problemsOf(() => resolveConfig({ ...valid(), relay: { heartbeatMs: 20_000 } }))).toEqual([
      'relay.heartbeatMs: must be at most 5000 (ms): the elements take a stream silent for three of their 5000 ms heartbeats for dead',
    ]);
    const production = { ...valid(), provider: { ...valid().provider, env: 'production' as const } };
    expect(problemsOf(() => resolveConfig({ ...production, relay: { heartbeatMs: 200 } }))).toEqual(['relay.heartbeatMs: must be at least 1000 (ms) in production']);
    expect(problemsOf(() => createMerchantProxy({ ...production, store: new MemoryStore(), relay: { heartbeatMs: 0 } }))).toEqual(['relay.heartbeatMs: Too small: expected number to be >0']);
    expect(resolveConfig({ ...production, relay: { heartbeatMs: 5_000 } }).relay.heartbeatMs).toBe(5_000);
    expect(resolveConfig({ ...valid(), relay: { heartbeatMs: 50 } }).relay.heartbeatMs).toBe(50);
  });

  it('refuses a bad redis URL, a store that is not one and a logger that is not pino', () => {
    const problems = problemsOf(() =>
      resolveConfig({ ...valid(), redisUrl: 'http://x', store: {} as never, logger: {} as never }),
    );
    expect(problems).toEqual([
      'redisUrl: must be a redis:// or rediss:// URL',
      'store: must implement the ProxyStore interface',
      'logger: must be a pino logger',
    ]);
  });

  it('accepts an injected store', () => {
    const store = new MemoryStore();
    expect(resolveConfig({ ...valid(), store }).store).toBe(store);
  });

  it('is what createMerchantProxy checks first', () => {
    expect(() => createMerchantProxy({ ...valid(), tokenSecret: 'x' })).toThrow(ConfigError);
  });
});

describe('configFromEnv', () => {
  it('defaults everything to the local sandbox', () => {
    const config = configFromEnv({ PROXY_TOKEN_SECRET: TEST_SECRET });
    expect(config.provider).toEqual({
      env: 'sandbox',
      messagingBaseUrl: 'http://127.0.0.1:4010',
      paymentBaseUrl: 'http://127.0.0.1:4010/gateway',
      messaging: { apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
      payment: { username: 'test-user', password: 'test-password' },
      checkout: { apiKey: 'test-checkout-key' },
    });
    expect(resolveConfig(config).tokenSecret).toBe(TEST_SECRET);
  });

  it('uses SANDBOX_URL in the sandbox and makes up a token secret when none is given', () => {
    const config = configFromEnv({ SANDBOX_URL: 'http://127.0.0.1:5000/' });
    expect(config.provider.messagingBaseUrl).toBe('http://127.0.0.1:5000');
    expect(config.provider.paymentBaseUrl).toBe('http://127.0.0.1:5000/gateway');
    expect(Buffer.byteLength(config.tokenSecret as string)).toBeGreaterThanOrEqual(32);
  });

  it('reads every variable', () => {
    const config = configFromEnv({
      PROVIDER_ENV: 'production',
      MESSAGING_BASE_URL: 'https://m.example',
      PAYMENT_BASE_URL: 'https://p.example/gw',
      MESSAGING_API_KEY: 'mk',
      MESSAGING_API_SECRET: 'ms',
      PAYMENT_USERNAME: 'pu',
      PAYMENT_PASSWORD: 'pp',
      CHECKOUT_API_KEY: 'ck',
      PROXY_TOKEN_SECRET: TEST_SECRET,
      PROXY_ALLOWED_ORIGINS: 'https://a.example, https://b.example,',
      REDIS_URL: 'redis://127.0.0.1:6390',
      OTP_SENDER: 'Shop',
      OTP_TEMPLATE: 'Code {code}',
      DEFAULT_COUNTRY: 'gh',
      PAYEE_NAME: 'The Shop',
    });
    const resolved = resolveConfig(config);
    expect(resolved.provider).toMatchObject({
      env: 'production',
      messagingBaseUrl: 'https://m.example',
      paymentBaseUrl: 'https://p.example/gw',
      checkoutBaseUrl: 'https://m.example',
      messaging: { apiKey: 'mk', apiSecret: 'ms' },
      payment: { username: 'pu', password: 'pp' },
      checkout: { apiKey: 'ck' },
    });
    expect(resolved.allowedOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(resolved.redisUrl).toBe('redis://127.0.0.1:6390');
    expect(resolved.otp.sender).toBe('Shop');
    expect(resolved.otp.template).toBe('Code {code}');
    expect(resolved.defaultCountry).toBe('GH');
    expect(resolved.payeeName).toBe('The Shop');
  });

  it('reads what replicas must acknowledge, and names a bad value or a store without replicas under its variable', () => {
    const base = { PROXY_TOKEN_SECRET: TEST_SECRET, REDIS_URL: 'redis://127.0.0.1:6390' };
    const config = configFromEnv({ ...base, REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '500', REDIS_MAX_REPLICA_LAG_SECONDS: '5' });
    expect(resolveConfig(config).redisReplicas).toEqual({ acknowledge: 1, timeoutMs: 500, maxLagSeconds: 5 });
    expect(resolveConfig(configFromEnv(base)).redisReplicas).toEqual({ acknowledge: 0, timeoutMs: 1_000, maxLagSeconds: 10 });
    expect(problemsOf(() => configFromEnv({ ...base, REDIS_WAIT_REPLICAS: 'two', REDIS_WAIT_TIMEOUT_MS: '2000' }))).toEqual([
      expect.stringMatching(/^REDIS_WAIT_REPLICAS: /),
      'REDIS_WAIT_TIMEOUT_MS: must be at most 1500 (a commit behind a WAIT waits for it, under the 2 s command timeout)',
    ]);
    expect(problemsOf(() => configFromEnv({ PROXY_TOKEN_SECRET: TEST_SECRET, REDIS_WAIT_REPLICAS: '1' }))).toEqual([
      expect.stringMatching(/^REDIS_WAIT_REPLICAS: applies only with redisUrl or redisSentinel/),
    ]);
    expect(problemsOf(() => configFromEnv({ PROXY_TOKEN_SECRET: TEST_SECRET, ALLOW_MEMORY_STORE: 'yes' }))).toEqual([expect.stringMatching(/^ALLOW_MEMORY_STORE: /)]);
  });

  it('names each missing variable outside the sandbox', () => {
    const problems = problemsOf(() => configFromEnv({ PROVIDER_ENV: 'production', MESSAGING_API_KEY: 'mk' }));
    expect(problems).toEqual([
      'MESSAGING_BASE_URL: is required when PROVIDER_ENV is production',
      'PAYMENT_BASE_URL: is required when PROVIDER_ENV is production',
      'MESSAGING_API_SECRET: is required when PROVIDER_ENV is production',
      'PAYMENT_USERNAME: is required when PROVIDER_ENV is production',
      'PAYMENT_PASSWORD: is required when PROVIDER_ENV is production',
      'CHECKOUT_API_KEY: is required when PROVIDER_ENV is production',
      'PROXY_TOKEN_SECRET: is required when PROVIDER_ENV is production',
      'PAYEE_NAME: is required when PROVIDER_ENV is production',
    ]);
  });

  it('reports every problem at once, each under the variable that was set (issue 21, item 7)', () => {
    const problems = problemsOf(() =>
      configFromEnv({
        PROVIDER_ENV: 'production',
        MESSAGING_BASE_URL: 'https://m.example',
        PAYMENT_BASE_URL: 'not a url',
        MESSAGING_API_KEY: 'mk',
        MESSAGING_API_SECRET: 'ms',
        PAYMENT_USERNAME: 'pu',
        PAYMENT_PASSWORD: 'pp',
        PROXY_TOKEN_SECRET: 'Short-Secret-1234',
        PROXY_SERVER_KEY: 'Also-Short-key-987',
        PROXY_ALLOWED_ORIGINS: 'https://shop.example/, https://ok.example',
        REDIS_URL: 'http://redis:6379',
        REDIS_PREFIX: 'has spaces',
        DEFAULT_COUNTRY: 'Ghana',
        OTP_TEMPLATE: 'no placeholder',
        PAYEE_NAME: 'Shop',
        WEBHOOK_URL: 'https://shop.example/hooks',
      }),
    );
    expect(problems).toEqual([
      'CHECKOUT_API_KEY: is required when PROVIDER_ENV is production',
      'WEBHOOK_SECRET: is required when WEBHOOK_URL is set (signed webhooks need both)',
      'PAYMENT_BASE_URL: must be an http(s) URL',
      'PROXY_TOKEN_SECRET: must be at least 32 bytes long',
      `PROXY_SERVER_KEY: must be at least 32 bytes long; make one with: node -e "console.log('sk_' + require('crypto').randomBytes(24).toString('base64url'))"`,
      'PROXY_ALLOWED_ORIGINS: "https://shop.example/" is not an origin (scheme://host[:port], no path or trailing slash)',
      'REDIS_URL: must be a redis:// or rediss:// URL',
      'REDIS_PREFIX: must be 1 to 64 letters, digits and . _ : - (for example shop-a:prod:)',
      'OTP_TEMPLATE: must contain the {code} placeholder',
      'DEFAULT_COUNTRY: must be an ISO 3166 alpha-2 country code such as GH',
    ]);
    // Secrets are named, never quoted.
    expect(problems.join('\n')).not.toMatch(/Short-Secret-1234|Also-Short-key-987/);
  });

  it('reports a bad SANDBOX_URL as SANDBOX_URL, not as the base URLs made from it, beside the other problems', () => {
    expect(problemsOf(() => configFromEnv({ SANDBOX_URL: 'localhost:4010', PROXY_TOKEN_SECRET: 'Short-Secret-1234', WEBHOOK_SECRET: 'whsec_x' }))).toEqual([
      'SANDBOX_URL: must be an absolute http(s) URL, such as http://127.0.0.1:4010',
      'WEBHOOK_URL: is required when WEBHOOK_SECRET is set (signed webhooks need both)',
      'PROXY_TOKEN_SECRET: must be at least 32 bytes long',
    ]);
    // A base URL set explicitly is its own variable's business.
    expect(problemsOf(() => configFromEnv({ MESSAGING_BASE_URL: 'ftp://x' }))).toEqual(['MESSAGING_BASE_URL: must be an http(s) URL']);
  });

  it('reports the rules across variables with the rest (an http webhook outside the sandbox)', () => {
    const env = {
      PROVIDER_ENV: 'staging',
      MESSAGING_BASE_URL: 'https://m.example',
      PAYMENT_BASE_URL: 'https://p.example',
      MESSAGING_API_KEY: 'mk',
      MESSAGING_API_SECRET: 'ms',
      PAYMENT_USERNAME: 'pu',
      PAYMENT_PASSWORD: 'pp',
      CHECKOUT_API_KEY: 'ck',
      PAYEE_NAME: 'Shop',
      WEBHOOK_URL: 'http://hooks.example/in',
      WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    };
    expect(problemsOf(() => configFromEnv({ ...env, PROXY_TOKEN_SECRET: 'Short-Secret-1234' }))).toEqual([
      'PROXY_TOKEN_SECRET: must be at least 32 bytes long',
      'WEBHOOK_URL: must be https when PROVIDER_ENV is staging (http only in the sandbox or to a loopback host)',
    ]);
  });

  it('refuses an unknown PROVIDER_ENV', () => {
    expect(problemsOf(() => configFromEnv({ PROVIDER_ENV: 'live' }))).toEqual([
      'PROVIDER_ENV: must be sandbox, staging or production',
    ]);
  });
});

describe('token secret variety (finding 14)', () => {
  it('refuses a long secret with too few different characters, and says how to make one', () => {
    for (const weak of ['a'.repeat(32), 'ab'.repeat(20), 'changeme'.repeat(4), '\u0000'.repeat(40)]) {
      expect(() => resolveConfig({ ...valid(), tokenSecret: weak })).toThrow(/tokenSecret: has too little variety.*randomBytes/s);
    }
    expect(resolveConfig({ ...valid(), tokenSecret: TEST_SECRET }).tokenSecret).toBe(TEST_SECRET);
    expect(() => resolveConfig({ ...valid(), tokenSecret: randomBytes(48).toString('base64url') })).not.toThrow();
  });
});

describe('server key', () => {
  it('is read from PROXY_SERVER_KEY, optional, and must be a real key', () => {
    const key = randomBytes(32).toString('base64url');
    expect(configFromEnv({ PROXY_SERVER_KEY: ` ${key} ` }).serverKey).toBe(key);
    expect(configFromEnv({}).serverKey).toBeUndefined();
    expect(() => resolveConfig({ ...configFromEnv({}), serverKey: 'short' })).toThrow(/serverKey: must be at least 32 bytes long/);
    expect(() => resolveConfig({ ...configFromEnv({}), serverKey: 'a'.repeat(40) })).toThrow(/serverKey: has too little variety/);
  });
});
