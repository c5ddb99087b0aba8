import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { SERVER_PATHS } from '../../src/protocol/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { freePort, startRedis } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';

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
const HOST_VARIABLES = /^(PROVIDER_ENV|SANDBOX_URL|MESSAGING_|PAYMENT_|CHECKOUT_|PROXY_|REDIS_|WEBHOOK_|SERVER_API_|PORT$|HOST$|TRUST_PROXY$|LOG_LEVEL$|PAYEE_NAME$|OTP_|DEFAULT_COUNTRY$)/;

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

/** A raw connection to the service, with everything it received and a promise of its close. */
interface Raw {
  socket: Socket;
  text(): string;
  closed: Promise<number>;
}

function raw(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now())));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, text: () => text, closed }));
  });
}

/** Resolves once `r` has received text matching `pattern`. */
function received(r: Raw, pattern: RegExp): Promise<void> {
  return eventually(() => (pattern.test(r.text()) ? true : undefined), 20_000, 10).then(() => undefined);
}

const portOf = (url: string) => Number(new URL(url).port);

/**
 * A front of the sandbox that forwards every request, except that those whose path starts with `held`
 * wait until `release()`: a request in flight upstream for exactly as long as the test wants.
 */
async function gate(target: string, held: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let waiting = 0;
  const server = createServer((req, res) => {
    const forward = () => {
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.url?.startsWith(held)) {
      waiting += 1;
      void released.then(forward);
    } else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    waiting: () => waiting,
    release,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
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
  }, 40_000);

  it('reports every configuration problem at once, each under the variable that was set (issue 21, item 7)', async () => {
    const many = serve([], {
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      TRUST_PROXY: 'not an address',
      SERVER_API_HOST: '10.0.0.5',
      SANDBOX_URL: 'localhost:4010',
      // A webhook secret without its URL no longer hides what follows.
      WEBHOOK_SECRET: 'whsec_x',
      PROXY_TOKEN_SECRET: 'short',
    });
    children.push(many);
    expect(await many.exit).toBe(3);
    const stderr = many.stderr();
    for (const expected of [
      'PORT: must be a whole number from 0 to 65535, got "eighty"',
      'LOG_LEVEL: must be one of',
      'TRUST_PROXY:',
      'SERVER_API_HOST: applies only with SERVER_API_PORT',
      'SANDBOX_URL: must be an absolute http(s) URL',
      'WEBHOOK_URL: is required when WEBHOOK_SECRET is set',
      'PROXY_TOKEN_SECRET: must be at least 32 bytes long',
    ]) {
      expect(stderr).toContain(expected);
    }
    // A bad SANDBOX_URL is SANDBOX_URL's problem, not that of variables the user never set.
    expect(stderr).not.toMatch(/MESSAGING_BASE_URL|PAYMENT_BASE_URL/);
  }, 20_000);

  it('exits 2 on a bad flag, naming it', async () => {
    const bad = serve(['--path', 'no-slash/'], env());
    children.push(bad);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toContain('--path (PROXY_PATH) must start with /');
  }, 20_000);

  it('mounts at --path, trusts TRUST_PROXY hops, and cuts a request whose headers or body trickle in at the documented 10 s (finding 10)', async () => {
    const s = serve(['--port', '0', '--path', '/api/pay'], { ...env(), TRUST_PROXY: '1' });
    children.push(s);
    const url = await listening(s);

    // Three connections trickle in while the rest of the test runs: their headers, a body under the mount
    // path, a body outside it. Each sends a little every 200 ms for as long as the service keeps it open.
    const trickle = async (head: string, drip: (i: number) => string) => {
      const r = await raw(portOf(url));
      const started = Date.now();
      r.socket.write(head);
      let i = 0;
      const timer = setInterval(() => r.socket.writable && r.socket.write(drip(i++)), 200);
      const closedAt = await r.closed;
      clearInterval(timer);
      return { ms: closedAt - started, text: r.text() };
    };
    const body = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{`;
    const trickled = Promise.all([
      trickle('POST /api/pay/otp/send HTTP/1.1\r\n', (i) => `X-Drip-${i}: 1\r\n`),
      trickle(body('/api/pay/otp/send'), () => ' '),
      trickle(body('/elsewhere'), () => ' '),
    ]);

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

    const [headers, inside, outside] = await trickled;
    expect(headers.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(inside.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(inside.text).toContain('"error":"INVALID_INPUT"');
    expect(outside.text).toMatch(/^HTTP\/1\.1 404 /);
    // A timer decides each cut: never before 10 s, and well before the 20-40 s it took when Node's
    // 30-second check decided it (or the 300 s of a body nobody read).
    for (const { ms } of [headers, inside, outside]) {
      expect(ms).toBeGreaterThanOrEqual(10_000);
      expect(ms).toBeLessThan(12_500);
    }
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 60_000);

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

  it('on SIGTERM closes idle connections at once, lets requests in flight finish and ends event streams, then exits 0 (finding 10)', async () => {
    // OTP sends wait at this front of the sandbox until the test lets them through.
    const front = await gate(sandbox.url, '/v1/external/generate/otp');
    onTestFinished(() => front.close());
    const s = serve(['--port', '0'], { ...env(), SANDBOX_URL: front.url });
    children.push(s);
    const url = await listening(s);
    const base = `${url}/merchant-elements`;
    const key = { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' };
    const mint = async (kind: 'otp' | 'payment', body: object) =>
      ((await (await fetch(`${base}${kind === 'otp' ? SERVER_PATHS.otpToken : SERVER_PATHS.paymentToken}`, { method: 'POST', headers: key, body: JSON.stringify(body) })).json()) as { token: string }).token;

    // An idle keep-alive connection after one request, and one opened and never used (a browser's preconnect).
    const idle = await raw(portOf(url));
    idle.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await received(idle, /"ok":true/);
    const unused = await raw(portOf(url));

    // An event stream of a payment that stays pending.
    const token = await mint('payment', { amount: 5, referenceNo: 'SERVE-TERM-1', narration: 'Order' });
    const paid = await fetch(`${base}/payments`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ msisdn: '0260000004' }) });
    const { reference } = (await paid.json()) as { reference: string };
    const stream = await fetch(`${base}/payments/${reference}/events`, { headers: { authorization: `Bearer ${token}` } });
    const reader = stream.body!.getReader();
    await reader.read();

    // An OTP send held upstream, in flight when the signal comes.
    const otpToken = await mint('otp', { purpose: 'sign-in' });
    const otp = fetch(`${base}/otp/send`, { method: 'POST', headers: { authorization: `Bearer ${otpToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ recipient: '0241234567' }) }).then(
      (res) => res.status,
      (err: unknown) => err,
    );
    await eventually(() => (front.waiting() > 0 ? true : undefined), 20_000);

    // A request whose body is still on its way: the service has its headers (it answered 100 Continue).
    const body = JSON.stringify({ purpose: 'sign-in' });
    const slow = await raw(portOf(url));
    slow.socket.write(
      `POST /merchant-elements${SERVER_PATHS.otpToken} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SERVER_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await received(slow, /^HTTP\/1\.1 100 Continue/);

    s.child.kill('SIGTERM');
    // At once: both idle connections close while a request is still waiting for the rest of its body.
    await Promise.all([idle.closed, unused.closed]);
    expect(slow.text()).not.toMatch(/201/);
    slow.socket.write(body);
    await received(slow, /HTTP\/1\.1 201 Created[\s\S]*"token"/);
    expect(slow.text()).toMatch(/connection: close/i);
    await slow.closed;

    // The stream ends as a stream does; the OTP send, let through now, is answered (the store is closed
    // only after the requests in flight).
    for (;;) if ((await reader.read()).done) break;
    expect(s.child.exitCode).toBeNull();
    front.release();
    expect(await otp).toBe(200);
    expect(await s.exit).toBe(0);
    const lines = s.lines();
    const drained = lines.find((l) => l.msg === 'connections closed')!;
    expect(drained.idle).toBeGreaterThanOrEqual(2);
    expect(drained.streams).toBe(1);
    expect(drained.inFlight).toBeGreaterThanOrEqual(3);
    expect(lines.map((l) => l.msg)).toContain('stopped');
  }, 60_000);

  it('serves the server API on a port of its own with SERVER_API_PORT, and no /server/ path on the public port', async () => {
    const s = serve(['--port', '0'], { ...env(), SERVER_API_PORT: '0' });
    children.push(s);
    const url = await listening(s);
    const listened = s.lines().find((l) => l.msg === 'listening')!;
    const apiBase = String(listened.serverApi).replace(/\/server\/$/, '');
    expect(portOf(apiBase)).not.toBe(portOf(url));
    const mint = (at: string) =>
      fetch(`${at}${SERVER_PATHS.otpToken}`, { method: 'POST', headers: { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ purpose: 'sign-in' }) });

    const publicly = await mint(`${url}/merchant-elements`);
    expect(publicly.status).toBe(404);
    expect(await publicly.json()).toMatchObject({ error: 'NOT_FOUND' });
    const internally = await mint(apiBase);
    expect(internally.status).toBe(201);
    const { token } = (await internally.json()) as { token: string };
    // The browser routes are on the public port only; probes answer on both.
    const sent = (at: string) =>
      fetch(`${at}/otp/send`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ recipient: '0241234568' }) });
    expect((await sent(`${url}/merchant-elements`)).status).toBe(200);
    expect((await sent(apiBase)).status).toBe(404);
    for (const at of [url, new URL(apiBase).origin]) expect((await fetch(`${at}/health`)).status).toBe(200);

    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 40_000);

  it('answers /ready 503 naming each interface while the provider cannot be reached, /health staying 200', async () => {
    const s = serve(['--port', '0'], { ...env(), SANDBOX_URL: `http://127.0.0.1:${await freePort()}` });
    children.push(s);
    const url = await listening(s);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(503);
    const answer = (await ready.json()) as { ready: boolean; reasons: string[] };
    expect(answer.ready).toBe(false);
    expect(answer.reasons).toHaveLength(3);
    for (const name of ['messaging interface', 'payment gateway', 'checkout interface']) {
      expect(answer.reasons.some((r) => r.startsWith(`the ${name}: the provider could not be reached`))).toBe(true);
    }
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 40_000);
});
