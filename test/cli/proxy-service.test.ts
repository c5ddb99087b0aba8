/**
 * The proxy as a service, over real sockets to a real `merchant-elements serve`: what it does on SIGTERM,
 * how it holds requests that trickle in to their deadlines, and the server API on a port of its own.
 * Readiness with the provider out of reach is proven on the router (test/proxy/ready.test.ts); here only
 * that /ready answers at the root (serve-command.test.ts).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { startProxyService } from '../../src/cli/proxy-service.js';
import { SERVER_PATHS } from '../../src/protocol/index.js';
import { captureLogger } from '../proxy/helpers.js';
import { eventually } from '../proxy/sse-client.js';
import { gate, listening, portOf, raw, received, SERVER_KEY, serveSuite } from './serve-harness.js';

describe('merchant-elements serve as a service', () => {
  const suite = serveSuite();

  it('on SIGTERM closes idle connections at once, lets requests in flight finish and ends event streams, then exits 0 (finding 10)', async () => {
    // OTP sends wait at this front of the sandbox until the test lets them through.
    const front = await gate(suite.sandbox().url, '/v1/external/generate/otp');
    onTestFinished(() => front.close());
    const s = suite.serve(['--port', '0'], { ...suite.env(), SANDBOX_URL: front.url });
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
    await eventually(() => (front.waiting() > 0 ? true : undefined), 60_000);

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
  }, 120_000);

  it('mounts at --path, trusts TRUST_PROXY hops, and cuts a request whose headers or body trickle in at the documented 10 s (finding 10)', async () => {
    const s = suite.serve(['--port', '0', '--path', '/api/pay'], { ...suite.env(), TRUST_PROXY: '1' });
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
      expect(ms).toBeLessThan(13_000);
    }
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 120_000);

  it('serves the server API on a port of its own with SERVER_API_PORT, and no /server/ path on the public port', async () => {
    const s = suite.serve(['--port', '0'], { ...suite.env(), SERVER_API_PORT: '0' });
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

    // Metrics for the scraper on the server API's port only, never on the public one (issue 35).
    expect(listened.metrics).toBe(`${new URL(apiBase).origin}/metrics`);
    const scraped = await fetch(String(listened.metrics));
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scraped.text();
    expect(text).toContain('merchant_proxy_http_requests_total{method="POST",route="/otp/send",code="200"} 1');
    expect(text).toContain('process_resident_memory_bytes');
    for (const path of ['/metrics', '/merchant-elements/metrics', '/merchant-elements/server/metrics']) expect((await fetch(`${url}${path}`)).status).toBe(404);

    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 120_000);

  it('on shutdown answers /ready 503 for the pre-stop window while serving every other request, then drains', async () => {
    let endWindow!: () => void;
    const asked: number[] = [];
    const logs = captureLogger();
    const service = await startProxyService({
      port: 0,
      host: '127.0.0.1',
      path: '/merchant-elements',
      trustProxy: false,
      logLevel: 'info',
      preStopMs: 30_000,
      env: { ...suite.env() },
      logger: logs.logger,
      sleep: (ms) => new Promise<void>((resolve) => {
        asked.push(ms);
        endWindow = resolve;
      }),
    });
    const ready = async () => (await fetch(`${service.url}/ready`)).status;
    expect(await ready()).toBe(200);

    const closed = service.close();
    await eventually(() => (asked.length > 0 ? true : undefined));
    expect(asked).toEqual([30_000]);
    const during = await fetch(`${service.url}/ready`);
    expect(during.status).toBe(503);
    expect(((await during.json()) as { reasons: string[] }).reasons).toContain('this instance is shutting down: send new requests to another');
    // Everything else is served as before, on new connections too.
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    const mint = await fetch(`${service.url}/merchant-elements${SERVER_PATHS.otpToken}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ purpose: 'sign-in' }),
    });
    expect(mint.status).toBe(201);

    endWindow();
    await closed;
    const messages = logs.entries().map((l) => l.msg);
    expect(messages.indexOf('shutting down: /ready answers 503 for the pre-stop window, requests are still served')).toBeLessThan(messages.indexOf('connections closed'));
    expect(messages).toContain('stopped');
  }, 60_000);
});
