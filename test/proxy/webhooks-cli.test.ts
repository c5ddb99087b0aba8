import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler, notFoundHandler } from '../../src/proxy/errors.js';
import { jsonBodies } from '../../src/proxy/middleware/body.js';
import { originPolicy } from '../../src/proxy/middleware/origins.js';
import { webhookRoutes } from '../../src/proxy/routes/webhook-routes.js';
import { runMain } from '../cli/cli-harness.js';
import { freePort, MOUNT, startHarness, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';
import { startReceiver, TEST_WEBHOOK_SECRET, type TestReceiver } from './webhook-receiver.js';

const SERVER_KEY = 'test-server-key-of-the-merchant-backend';
/** Stands in for the server API's `requireServerKey` (another branch): the Bearer key or 401. */
const requireKey: RequestHandler = (req, res, next) => {
  if (req.get('authorization') === `Bearer ${SERVER_KEY}`) return next();
  res.status(401).json({ error: { code: 'TOKEN_INVALID', message: 'The server key is missing or wrong.' } });
};

let h: Harness;
let receiver: TestReceiver;
let api: Server;
let proxyUrl: string;
let deadId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer = () => 500;
  h = await startHarness({
    sandbox: { timeScale: 0.02 },
    config: {
      relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, outboxBackoffMs: 20, outboxMaxBackoffMs: 100 },
      webhooks: { url: receiver.url, secret: TEST_WEBHOOK_SECRET, maxAgeMs: 300 },
    },
  });
  const router = Router();
  // The proxy router's own front (origin rule, JSON-only bodies), as the routes will sit behind it once mounted there.
  router.use(originPolicy([]), jsonBodies(10_000));
  webhookRoutes(router, h.proxy.webhooks, requireKey);
  router.use(notFoundHandler);
  router.use(errorHandler(h.proxy.logger));
  const app = express();
  app.use(MOUNT, router);
  api = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  proxyUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}${MOUNT}`;

  const token = await h.mintPayment();
  const { reference } = (await h.post('/payments', { msisdn: '233240000001' }, { token })).body as { reference: string };
  deadId = `payment:${reference}:COMPLETED`;
  await eventually(async () => ((await h.proxy.webhooks.list({ state: 'dead' })).some((d) => d.id === deadId) ? true : undefined));
});
afterAll(async () => {
  await new Promise<void>((resolve) => api?.close(() => resolve()));
  await h?.close();
  await receiver?.stop();
});

const env = () => ({ PROXY_URL: proxyUrl, PROXY_SERVER_KEY: SERVER_KEY });

describe('GET /server/webhooks and POST /server/webhooks/:id/replay', () => {
  it('list by state behind the server key, and refuse a bad query', async () => {
    const auth = { authorization: `Bearer ${SERVER_KEY}` };
    const res = await fetch(`${proxyUrl}/server/webhooks?state=dead`, { headers: auth });
    expect(res.status).toBe(200);
    const { deliveries } = (await res.json()) as { deliveries: Record<string, unknown>[] };
    expect(deliveries.find((d) => d.id === deadId)).toMatchObject({
      type: 'payment.completed', state: 'dead', attempts: expect.any(Number), nextAt: null, lastError: 'receiver answered 500',
      createdAt: expect.any(String), deadAt: expect.any(String),
    });
    expect((await fetch(`${proxyUrl}/server/webhooks`)).status).toBe(401);
    expect((await fetch(`${proxyUrl}/server/webhooks?state=gone`, { headers: auth })).status).toBe(400);
    expect((await fetch(`${proxyUrl}/server/webhooks?limit=0`, { headers: auth })).status).toBe(400);
    const missing = await fetch(`${proxyUrl}/server/webhooks/${encodeURIComponent('payment:NOPE-1:COMPLETED')}/replay`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(404);
  });
});

describe('merchant-elements webhooks', () => {
  it('list --state dead shows the dead webhook, as a table and as JSON', async () => {
    const table = await runMain(['webhooks', 'list', '--state', 'dead'], env());
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/^id\s+type\s+state\s+attempts/);
    expect(table.stdout).toContain(deadId);
    expect(table.stdout).toContain('receiver answered 500');

    const json = await runMain(['webhooks', 'list', '--state', 'dead', '--json', '--url', proxyUrl], { PROXY_SERVER_KEY: SERVER_KEY });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { deliveries: { id: string }[] }).deliveries.map((d) => d.id)).toContain(deadId);
  });

  it('replay <id> delivers it again with the same webhook-id', async () => {
    receiver.answer = () => 200;
    const run = await runMain(['webhooks', 'replay', deadId], env());
    expect(run).toMatchObject({ code: 0, stdout: `queued ${deadId} for delivery again\n` });
    await eventually(() => receiver.received.find((got) => got.id === deadId && got.status === 200));
    const delivered = await runMain(['webhooks', 'list', '--state', 'delivered', '--json'], env());
    expect((JSON.parse(delivered.stdout) as { deliveries: { id: string }[] }).deliveries.map((d) => d.id)).toContain(deadId);
  });

  it('says why it failed: unknown id (1), bad flags (2), missing configuration (3), wrong key or no proxy (1)', async () => {
    const unknown = await runMain(['webhooks', 'replay', 'payment:NOPE-1:COMPLETED'], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no webhook with id "payment:NOPE-1:COMPLETED"');

    const state = await runMain(['webhooks', 'list', '--state', 'gone'], env());
    expect(state.code).toBe(2);
    expect(state.stderr).toContain('--state must be pending, delivered or dead, got "gone"');
    expect((await runMain(['webhooks', 'list', '--limit', '0'], env())).code).toBe(2);
    expect((await runMain(['webhooks', 'replay'], env())).code).toBe(2);
    expect((await runMain(['webhooks', 'list', '--url', 'not a url'], env())).code).toBe(2);

    const unconfigured = await runMain(['webhooks', 'list'], {});
    expect(unconfigured.code).toBe(3);
    expect(unconfigured.stderr).toContain('PROXY_URL: is required');
    expect(unconfigured.stderr).toContain('PROXY_SERVER_KEY: is required');

    const wrongKey = await runMain(['webhooks', 'list'], { ...env(), PROXY_SERVER_KEY: 'wrong-key' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('the proxy refused the server key (401); check PROXY_SERVER_KEY');
    expect(wrongKey.stderr).not.toContain('wrong-key');

    const down = await runMain(['webhooks', 'list'], { ...env(), PROXY_URL: `http://127.0.0.1:${await freePort()}/merchant-elements` });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('could not reach the proxy at');
  });

  it('has help', async () => {
    const help = await runMain(['webhooks', 'list', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: merchant-elements webhooks list');
    expect((await runMain(['help'], {})).stdout).toContain('webhooks replay <id>');
  });
});

describe('after an outage: paging, bulk replay and retry', () => {
  it('lists a page at a time with the next page\'s cursor, and every page with --all', async () => {
    const all = (JSON.parse((await runMain(['webhooks', 'list', '--json', '--limit', '1000'], env())).stdout) as { deliveries: { id: string }[]; next: string | null });
    expect(all.next).toBeNull();
    expect(all.deliveries.length).toBeGreaterThanOrEqual(2);
    const first = await runMain(['webhooks', 'list', '--limit', '1'], env());
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeDefined();
    const pages: string[] = [];
    for (let next: string | null | undefined = undefined; ; ) {
      const page = JSON.parse((await runMain(['webhooks', 'list', '--json', '--limit', '1', ...(next ? ['--cursor', next] : [])], env())).stdout) as { deliveries: { id: string }[]; next: string | null };
      pages.push(...page.deliveries.map((d) => d.id));
      if (page.next === null) break;
      next = page.next;
    }
    expect(pages).toEqual(all.deliveries.map((d) => d.id));
    const followed = JSON.parse((await runMain(['webhooks', 'list', '--all', '--limit', '1', '--json'], env())).stdout) as { deliveries: { id: string }[] };
    expect(followed.deliveries.map((d) => d.id)).toEqual(pages);
    expect((await runMain(['webhooks', 'list', '--cursor', 'nonsense'], env())).stderr).toContain('400');
    expect((await runMain(['webhooks', 'list', '--all', '--cursor', 'x'], env())).code).toBe(2);
  });

  it('replays every dead webhook at once, oldest first, and tries every pending one now (webhooks retry)', async () => {
    receiver.answer = () => 500;
    // A new payment: its webhooks die (age limit 300 ms) while the receiver refuses.
    const token = await h.mintPayment();
    const { reference } = (await h.post('/payments', { msisdn: '233240000001' }, { token })).body as { reference: string };
    const id = `payment:${reference}:COMPLETED`;
    await eventually(async () => ((await h.proxy.webhooks.list({ state: 'dead' })).some((d) => d.id === id) ? true : undefined));

    receiver.answer = () => 200;
    const replayed = await runMain(['webhooks', 'replay', '--state', 'dead', '--json'], env());
    expect(replayed.code).toBe(0);
    const ids = (JSON.parse(replayed.stdout) as { replayed: string[] }).replayed;
    expect(ids).toContain(id);
    await eventually(() => receiver.received.find((got) => got.id === id && got.status === 200));
    expect((await runMain(['webhooks', 'replay', '--state', 'dead', '--since', '2099-01-01T00:00:00Z'], env())).stdout).toBe('queued 0 dead webhook(s) for delivery again\n');
    expect((await runMain(['webhooks', 'replay', '--state', 'pending'], env())).code).toBe(2);
    expect((await runMain(['webhooks', 'replay', 'x', '--since', '2026-01-01T00:00:00Z'], env())).code).toBe(2);

    const retry = await runMain(['webhooks', 'retry'], env());
    expect(retry).toMatchObject({ code: 0, stderr: '' });
    expect(retry.stdout).toMatch(/^trying \d+ pending webhook\(s\) now\n$/);
  });
});
