import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { openStream } from './sse-client.js';

describe('a status stream\'s request', () => {
  let h: Harness;
  let server: Server;
  let url: string;
  const seen: IncomingMessage[] = [];
  beforeAll(async () => {
    h = await startHarness();
    // The merchant's own app, which sees the request objects the proxy is handed.
    const app = express();
    app.use((req, _res, next) => {
      seen.push(req);
      next();
    });
    app.use('/merchant-elements', h.proxy.router);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/merchant-elements`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  });

  it('no longer holds the bearer token once its stream is served, and the stream still gets its events', async () => {
    const token = await h.mintPayment();
    const paid = await fetch(`${url}/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: '233260000004' }),
    });
    expect(paid.status).toBe(202);
    const { reference } = (await paid.json()) as { reference: string };
    const stream = await openStream(`${url}/payments/${reference}/events`, token);
    await stream.waitFor((e) => e.data.status === 'PENDING');
    const req = seen.find((r) => r.url?.endsWith('/events'))!;
    expect(req.headers.authorization).toBe('[redacted]');
    expect(req.rawHeaders).not.toContain(`Bearer ${token}`);
    expect(JSON.stringify(req.rawHeaders)).not.toContain(token);
    // The POST's request is left as it was: only a served stream's credential is forgotten.
    expect(seen.find((r) => r.method === 'POST')!.headers.authorization).toBe(`Bearer ${token}`);

    const { payments } = (await (await fetch(`${h.sandbox.url}/__sandbox/payments`)).json()) as { payments: { referenceNo: string; referenceId: string }[] };
    const upstream = payments.find((p) => p.referenceNo === reference)!;
    const approve = await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
    expect(approve.status).toBe(303);
    await stream.ended;
    expect(stream.events.map((e) => e.data.status)).toEqual(['PENDING', 'COMPLETED']);
  });
});
