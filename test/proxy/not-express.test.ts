import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantProxy, type MerchantProxy } from '../../src/proxy/index.js';
import { captureLogger, TEST_SECRET } from './helpers.js';

/**
 * Fastify's @fastify/middie (and Connect, or a bare node:http handler) hands the router plain Node objects,
 * without Express's request extensions. Fastify is not installed: a plain node:http server calling
 * `router(req, res, next)` directly is the same situation.
 */
describe('the router outside Express', () => {
  let proxy: MerchantProxy;
  let server: Server;
  let url: string;
  const logs = captureLogger();
  const nextCalls: unknown[] = [];

  beforeAll(async () => {
    proxy = createMerchantProxy({
      provider: {
        messagingBaseUrl: 'http://127.0.0.1:9',
        paymentBaseUrl: 'http://127.0.0.1:9/gateway',
        messaging: { apiKey: 'k', apiSecret: 's' },
        payment: { username: 'u', password: 'p' },
        checkout: { apiKey: 'c' },
      },
      tokenSecret: TEST_SECRET,
      payeeName: 'Test Shop',
      logger: logs.logger,
    });
    server = createServer((req, res) => {
      proxy.router(req as never, res as never, (err?: unknown) => {
        nextCalls.push(err);
        res.statusCode = 599;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await proxy.close();
  });

  it('answers every route 500 in the error shape with the fix, never a crash or a hang', async () => {
    for (const [method, path] of [['GET', '/health'], ['POST', '/otp/send'], ['GET', '/payments/X/events'], ['POST', '/server/tokens/otp']] as const) {
      const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(res.status, path).toBe(500);
      const body = (await res.json()) as { error: string; message: string; details: { reason: string } };
      expect(body.error).toBe('INTERNAL');
      expect(body.details.reason).toBe('NOT_EXPRESS');
      expect(body.message).toContain('@fastify/express');
      expect(body.message).toContain('merchant-elements serve');
    }
    expect(nextCalls).toEqual([]);
  });

  it('logs the fix once, at error level', () => {
    const lines = logs.entries().filter((e) => e.msg === 'the merchant proxy router runs only inside an Express app');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe(pino.levels.values.error);
    expect(String(lines[0]!.fix)).toContain('app.use("/merchant-elements", proxy.router)');
  });
});
