/**
 * Two shops (or staging and production) on one Redis (finding 11): with their own `redisPrefix` (or
 * `REDIS_PREFIX`), neither reads the other's orders nor counts against the other's rate limits.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/proxy/config-env.js';
import { createMerchantProxy } from '../../src/proxy/create-proxy.js';
import { startHarness, startRedis, type Harness, type TestRedis } from './helpers.js';
import { eventually } from './sse-client.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

describe('redisPrefix', () => {
  it('keeps two proxies on one Redis apart: orders, keys and rate limits', async () => {
    const limits = { accountLookupPerIp: { points: 2, durationSec: 600 } };
    const staging: Harness = await startHarness({ config: { redisUrl: redis.url, redisPrefix: 'shop:staging:', limits } });
    const production: Harness = await startHarness({ config: { redisUrl: redis.url, redisPrefix: 'shop:production:', limits } });
    const admin = new Redis(redis.url);
    try {
      const ref = `ORDER-${Date.now()}`;
      const pay = await staging.post('/payments', { msisdn: '233260000004' }, { token: await staging.mintPayment({ referenceNo: ref }) });
      expect(pay.status).toBe(202);
      await eventually(async () => ((await staging.proxy.payments.get(ref)) ? true : undefined));
      expect(await production.proxy.payments.get(ref)).toBeNull();

      // Two lookups from one address use up staging's limit, not production's.
      for (let i = 0; i < 2; i++) expect((await staging.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await staging.mintPayment() })).status).toBe(200);
      expect((await staging.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await staging.mintPayment() })).status).toBe(429);
      expect((await production.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await production.mintPayment() })).status).toBe(200);

      const keys = await admin.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((k) => !k.startsWith('shop:staging:') && !k.startsWith('shop:production:'))).toEqual([]);
      expect(keys.some((k) => k.startsWith('shop:staging:rl:'))).toBe(true);
    } finally {
      admin.disconnect();
      await staging.close();
      await production.close();
    }
  });

  it('is read from REDIS_PREFIX and refuses a prefix with spaces', () => {
    expect(configFromEnv({ REDIS_URL: redis.url, REDIS_PREFIX: 'shop-a:prod:' }).redisPrefix).toBe('shop-a:prod:');
    expect(() => createMerchantProxy({ ...configFromEnv({}), redisPrefix: 'two words' })).toThrow(/redisPrefix/);
  });
});
