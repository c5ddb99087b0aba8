import middie from '@fastify/middie';
import Fastify from 'fastify';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantProxy, type MerchantProxy } from '../../src/proxy/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { captureLogger, MOUNT, sandboxProvider, TEST_SECRET } from './helpers.js';
import { openStream } from './sse-client.js';

/**
 * The router handed plain Node objects, without Express's request extensions: Fastify's @fastify/middie
 * (`fastify.use(path, proxy.handler)`) and a bare node:http server calling `proxy.handler(req, res)`. Each
 * serves the elements' routes, their event streams and the server API as an Express app does.
 */
interface Host {
  url: string;
  close(): Promise<void>;
}

const SERVER_KEY = 'a-server-key-of-at-least-thirty-two-bytes-0123456789';

const hosts: [string, (proxy: MerchantProxy) => Promise<Host>][] = [
  [
    'Fastify with @fastify/middie',
    async (proxy) => {
      const app = Fastify();
      await app.register(middie);
      app.use(MOUNT, proxy.handler);
      app.get('/', async () => ({ shop: true }));
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      return { url, close: () => app.close() };
    },
  ],
  [
    'a bare node:http server',
    async (proxy) => {
      const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
        if (!req.url?.startsWith(`${MOUNT}/`)) {
          res.statusCode = 404;
          res.end();
          return;
        }
        req.url = req.url.slice(MOUNT.length);
        proxy.handler(req, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: async () => {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    },
  ],
];

describe.each(hosts)('the router outside Express: %s', (_name, start) => {
  let sandbox: StartedSandbox;
  let proxy: MerchantProxy;
  let host: Host;
  const logs = captureLogger();
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${host.url}${MOUNT}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    sandbox = await startSandbox({ timeScale: 0.01 });
    proxy = createMerchantProxy({
      provider: sandboxProvider(sandbox),
      tokenSecret: TEST_SECRET,
      serverKey: SERVER_KEY,
      payeeName: 'Test Shop',
      logger: logs.logger,
      relay: { minIntervalMs: 20, maxIntervalMs: 60 },
    });
    host = await start(proxy);
  });
  afterAll(async () => {
    await host?.close();
    await proxy?.close();
    await sandbox?.close();
  });

  it('answers health, and refuses a page of another origin as in Express', async () => {
    const health = await call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.headers.get('x-powered-by')).toBeNull();
    const token = await proxy.tokens.otp({ purpose: 'sign-in' });
    const foreign = await call('POST', '/otp/send', { recipient: '0240000001' }, { authorization: `Bearer ${token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: string }).error).toBe('ORIGIN_NOT_ALLOWED');
  });

  it('sends and verifies an OTP, with the body parsed and the proof redeemed once through the server API', async () => {
    const token = await proxy.tokens.otp({ purpose: 'sign-in' });
    const auth = { authorization: `Bearer ${token}`, origin: host.url };
    const sent = await call('POST', '/otp/send', { recipient: '0240000001' }, auth);
    expect(sent.status).toBe(200);
    const sms = sandbox.app.sandbox.outbox.filter((e) => e.kind === 'sms' && e.to === '233240000001').at(-1) as { message: string };
    const code = /\b(\d{6})\b/.exec(sms.message)![1]!;
    const verified = await call('POST', '/otp/verify', { recipient: '0240000001', code }, auth);
    expect(verified.status).toBe(200);
    const { proof } = (await verified.json()) as { proof: string };
    const redeem = () => call('POST', '/server/otp-proofs/redeem', { proof, purpose: 'sign-in' }, { authorization: `Bearer ${SERVER_KEY}` });
    const first = await redeem();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ msisdn: '233240000001', purpose: 'sign-in' });
    expect((await redeem()).status).toBe(409);
  });

  it('takes a payment and streams it to COMPLETED over server-sent events', async () => {
    const token = await proxy.tokens.payment({ amount: 12.5, referenceNo: `ORDER-host-${Date.now()}`, narration: 'Order' });
    const paid = await call('POST', '/payments', { msisdn: '0240000001' }, { authorization: `Bearer ${token}`, origin: host.url });
    expect(paid.status).toBe(202);
    const { reference } = (await paid.json()) as { reference: string };
    const stream = await openStream(`${host.url}${MOUNT}/payments/${reference}/events`, token);
    expect(stream.status).toBe(200);
    await stream.ended;
    expect(stream.events.at(-1)!.data).toMatchObject({ reference, status: 'COMPLETED' });
    expect(sandbox.app.sandbox.requestCounts.get('payment.initiate')).toBe(1);
  });

  it('says once, at info, that it runs in an Express app of its own', () => {
    const lines = logs.entries().filter((e) => String(e.msg).startsWith('the merchant proxy router runs outside an Express app'));
    expect(lines).toHaveLength(1);
  });
});
