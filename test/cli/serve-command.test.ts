import { describe, expect, it } from 'vitest';
import { SERVER_PATHS } from '../../src/protocol/index.js';
import { freePort, startRedis } from '../proxy/helpers.js';
import { listening, SERVER_KEY, serveSuite, SHOP } from './serve-harness.js';

describe('merchant-elements serve', () => {
  const suite = serveSuite();

  it('answers /health, allows CORS from the configured origin only, and on SIGTERM ends an open event stream cleanly and exits 0', async () => {
    const s = suite.serve(['--port', '0'], suite.env());
    const url = await listening(s);
    const base = `${url}/merchant-elements`;

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, upstream: { circuits: { messaging: 'closed', payment: 'closed', checkout: 'closed' } } });
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, reasons: [] });

    const preflight = (origin: string) =>
      fetch(`${base}/payments`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
    const allowed = await preflight(SHOP);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const refused = await preflight('https://elsewhere.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    // A payment that stays pending (233260000004), watched from the shop's origin.
    const minted = await fetch(`${base}${SERVER_PATHS.paymentToken}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 5, referenceNo: 'SERVE-1', narration: 'Order' }),
    });
    expect(minted.status).toBe(201);
    const { token } = (await minted.json()) as { token: string };
    const paid = await fetch(`${base}/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ msisdn: '0260000004' }),
    });
    expect(paid.status).toBe(202);
    const { reference } = (await paid.json()) as { reference: string };
    const stream = await fetch(`${base}/payments/${reference}/events`, { headers: { authorization: `Bearer ${token}`, origin: SHOP } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('event: status');

    s.child.kill('SIGTERM');
    // The stream ends as a stream does (the last chunk), not as a cut connection (which rejects the read).
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    expect(await s.exit).toBe(0);
    expect(s.lines().map((l) => l.msg)).toContain('stopped');
  }, 120_000);

  it('exits 3 listing every configuration problem at once, each under the variable that was set (issue 21, item 7)', async () => {
    // Three misconfigured services at once (each only reads its environment and exits).
    const production = suite.serve(['--port', '0'], { PROVIDER_ENV: 'production' });
    const weak = suite.serve(['--port', '0'], { ...suite.env(), PROXY_TOKEN_SECRET: 'short', PROXY_SERVER_KEY: 'also-short', PROXY_ALLOWED_ORIGINS: 'https://shop.example/' });
    const many = suite.serve([], {
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      TRUST_PROXY: 'not an address',
      PRE_STOP_SECONDS: '5s',
      SERVER_API_HOST: '10.0.0.5',
      SANDBOX_URL: 'localhost:4010',
      // A webhook secret without its URL no longer hides what follows.
      WEBHOOK_SECRET: 'whsec_x',
      PROXY_TOKEN_SECRET: 'short',
    });
    expect(await Promise.all([production.exit, weak.exit, many.exit])).toEqual([3, 3, 3]);

    expect(production.stderr()).toContain('merchant-elements: serve: configuration:');
    for (const name of ['MESSAGING_BASE_URL', 'PAYMENT_BASE_URL', 'PROXY_TOKEN_SECRET', 'PAYEE_NAME']) {
      expect(production.stderr()).toContain(`${name}: is required when PROVIDER_ENV is production`);
    }

    expect(weak.stderr()).toContain('PROXY_TOKEN_SECRET: must be at least 32 bytes long');
    expect(weak.stderr()).toContain('PROXY_SERVER_KEY: must be at least 32 bytes long');
    expect(weak.stderr()).toContain('PROXY_ALLOWED_ORIGINS:');
    expect(weak.stderr()).not.toContain('also-short');

    for (const expected of [
      'PORT: must be a whole number from 0 to 65535, got "eighty"',
      'LOG_LEVEL: must be one of',
      'TRUST_PROXY:',
      'PRE_STOP_SECONDS: must be a whole number of seconds from 0 to 300, got "5s"',
      'SERVER_API_HOST: applies only with SERVER_API_PORT',
      'SANDBOX_URL: must be an absolute http(s) URL',
      'WEBHOOK_URL: is required when WEBHOOK_SECRET is set',
      'PROXY_TOKEN_SECRET: must be at least 32 bytes long',
    ]) {
      expect(many.stderr()).toContain(expected);
    }
    // A bad SANDBOX_URL is SANDBOX_URL's problem, not that of variables the user never set.
    expect(many.stderr()).not.toMatch(/MESSAGING_BASE_URL|PAYMENT_BASE_URL/);
  }, 120_000);

  it('exits 2 on a bad flag, naming it', async () => {
    const bad = suite.serve(['--path', 'no-slash/'], suite.env());
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toContain('--path (PROXY_PATH) must start with /');
  }, 120_000);

  it('scales out with REDIS_URL: two services share one store; a store that does not answer fails start-up (exit 1)', async () => {
    const redis = await startRedis();
    try {
      const a = suite.serve(['--port', '0'], { ...suite.env(), REDIS_URL: redis.url, REDIS_PREFIX: 'serve-test:' });
      const b = suite.serve(['--port', '0'], { ...suite.env(), REDIS_URL: redis.url, REDIS_PREFIX: 'serve-test:' });
      const [urlA, urlB] = await Promise.all([listening(a), listening(b)]);
      expect(await (await fetch(`${urlA}/health`)).json()).toMatchObject({ ok: true, upstream: { store: 'redis', storeOk: true } });
      const key = { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' };
      const minted = await fetch(`${urlA}/merchant-elements${SERVER_PATHS.paymentToken}`, {
        method: 'POST', headers: key, body: JSON.stringify({ amount: 5, referenceNo: 'SERVE-REDIS-1', narration: 'Order' }),
      });
      const { token } = (await minted.json()) as { token: string };
      const paid = await fetch(`${urlA}/merchant-elements/payments`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ msisdn: '0260000004' }),
      });
      expect(paid.status).toBe(202);
      const read = await fetch(`${urlB}/merchant-elements${SERVER_PATHS.orderPayment('SERVE-REDIS-1')}`, { headers: key });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ orderReference: 'SERVE-REDIS-1', status: 'PENDING' });
      for (const s of [a, b]) s.child.kill('SIGTERM');
      expect(await Promise.all([a.exit, b.exit])).toEqual([0, 0]);
    } finally {
      await redis.stop();
    }

    const down = suite.serve(['--port', '0'], { ...suite.env(), REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    expect(await down.exit).toBe(1);
    expect(down.stderr()).toMatch(/store/);
  }, 120_000);
});
