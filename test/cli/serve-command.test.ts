import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_PATHS } from '../../src/protocol/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { freePort, startRedis } from '../proxy/helpers.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SERVER_KEY = 'server-key-for-tests-0123456789-abcdefghij';
const TOKEN_SECRET = 'token-secret-for-serve-tests-0123456789-abcdef';
const SHOP = 'https://shop.example';

/** A `merchant-elements serve` child process and what it wrote. */
interface Served {
  child: ChildProcessWithoutNullStreams;
  /** Its JSON log lines so far. */
  lines(): Record<string, unknown>[];
  stderr(): string;
  exit: Promise<number | null>;
}

/** Variables of the host that must not reach the child (a developer's own configuration). */
const HOST_VARIABLES = /^(PROVIDER_ENV|SANDBOX_URL|MESSAGING_|PAYMENT_|CHECKOUT_|PROXY_|REDIS_|PORT$|HOST$|TRUST_PROXY$|LOG_LEVEL$|PAYEE_NAME$)/;

function serve(args: string[], env: NodeJS.ProcessEnv): Served {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !HOST_VARIABLES.test(name)));
  const child = spawn(process.execPath, ['bin/merchant-elements.js', 'serve', ...args], { cwd: ROOT, env: { ...base, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return {
    child,
    lines: () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr: () => err,
    exit: new Promise((resolve) => child.once('exit', resolve)),
  };
}

/** Resolves with the URL of the service once it logs "listening". */
async function listening(s: Served): Promise<string> {
  const deadline = Date.now() + 25_000;
  while (Date.now() < deadline) {
    const line = s.lines().find((l) => l.msg === 'listening');
    if (line) return String(line.url);
    if (s.child.exitCode !== null) throw new Error(`exited ${s.child.exitCode}: ${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never listened: ${s.stderr()}`);
}

describe('merchant-elements serve', () => {
  let sandbox: StartedSandbox;
  const children: Served[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ timeScale: 0.01 });
  });
  afterAll(() => sandbox.close());
  afterEach(() => {
    for (const s of children.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  });

  const env = () => ({
    SANDBOX_URL: sandbox.url,
    PROXY_TOKEN_SECRET: TOKEN_SECRET,
    PROXY_SERVER_KEY: SERVER_KEY,
    PROXY_ALLOWED_ORIGINS: SHOP,
  });

  it('answers /health, allows CORS from the configured origin only, and on SIGTERM ends an open event stream cleanly and exits 0', async () => {
    const s = serve(['--port', '0'], env());
    children.push(s);
    const url = await listening(s);
    const base = `${url}/merchant-elements`;

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    expect((await fetch(`${base}/health`)).status).toBe(200);

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
  }, 40_000);

  it('exits 3 naming each wrong variable of the configuration', async () => {
    const production = serve(['--port', '0'], { PROVIDER_ENV: 'production' });
    children.push(production);
    expect(await production.exit).toBe(3);
    expect(production.stderr()).toContain('merchant-elements: serve: configuration:');
    for (const name of ['MESSAGING_BASE_URL', 'PAYMENT_BASE_URL', 'PROXY_TOKEN_SECRET', 'PAYEE_NAME']) {
      expect(production.stderr()).toContain(`${name}: is required when PROVIDER_ENV is production`);
    }

    const weak = serve(['--port', '0'], { ...env(), PROXY_TOKEN_SECRET: 'short', PROXY_SERVER_KEY: 'also-short', PROXY_ALLOWED_ORIGINS: 'https://shop.example/' });
    children.push(weak);
    expect(await weak.exit).toBe(3);
    expect(weak.stderr()).toContain('PROXY_TOKEN_SECRET: must be at least 32 bytes long');
    expect(weak.stderr()).toContain('PROXY_SERVER_KEY: must be at least 32 bytes long');
    expect(weak.stderr()).toContain('PROXY_ALLOWED_ORIGINS:');
    expect(weak.stderr()).not.toContain('also-short');

    const trust = serve(['--port', '0'], { ...env(), TRUST_PROXY: 'not an address' });
    children.push(trust);
    expect(await trust.exit).toBe(3);
    expect(trust.stderr()).toContain('TRUST_PROXY:');
  }, 40_000);

  it('exits 2 on a bad flag, naming it', async () => {
    const bad = serve(['--path', 'no-slash/'], env());
    children.push(bad);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toContain('--path (PROXY_PATH) must start with /');
  }, 20_000);

  it('mounts at --path and trusts TRUST_PROXY hops', async () => {
    const s = serve(['--port', '0', '--path', '/api/pay'], { ...env(), TRUST_PROXY: '1' });
    children.push(s);
    const url = await listening(s);
    expect((await fetch(`${url}/api/pay/health`)).status).toBe(200);
    expect((await fetch(`${url}/merchant-elements/health`)).status).toBe(404);
    // Behind one trusted hop (a TLS-terminating proxy), the page's own origin has the forwarded scheme:
    // same-origin, so it reaches the token check (401) rather than the origin rule (403).
    const own = url.replace(/^http:/, 'https:');
    const send = (forwarded: boolean) =>
      fetch(`${url}/api/pay/otp/send`, {
        method: 'POST',
        headers: { origin: own, ...(forwarded ? { 'x-forwarded-proto': 'https' } : {}), 'content-type': 'application/json' },
        body: '{}',
      });
    expect((await send(true)).status).toBe(401);
    expect((await send(false)).status).toBe(403);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 40_000);

  it('scales out with REDIS_URL: two services share one store; a store that does not answer fails start-up (exit 1)', async () => {
    const redis = await startRedis();
    try {
      const a = serve(['--port', '0'], { ...env(), REDIS_URL: redis.url, REDIS_PREFIX: 'serve-test:' });
      const b = serve(['--port', '0'], { ...env(), REDIS_URL: redis.url, REDIS_PREFIX: 'serve-test:' });
      children.push(a, b);
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

    const down = serve(['--port', '0'], { ...env(), REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    children.push(down);
    expect(await down.exit).toBe(1);
    expect(down.stderr()).toMatch(/store/);
  }, 60_000);
});
