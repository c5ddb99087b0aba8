import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxProvider, startHarness, type Harness } from './helpers.js';
import { eventually, openStream } from './sse-client.js';

describe('access log lines', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  type Line = { msg?: string; req?: { id?: unknown; method?: string; path?: string }; res?: { statusCode?: number }; responseTime?: number };
  const lines = () => h.logs.entries() as Line[];

  it('gives each answer a line with its request id, method, path (no query) and status, and a route\'s own line the same id', async () => {
    const token = await h.mintPayment();
    const res = await h.post('/accounts/lookup?x=1', { msisdn: '0240000001' }, { token });
    expect(res.status).toBe(200);
    const access = await eventually(() => lines().find((l) => l.msg === 'request completed' && l.req?.path === '/merchant-elements/accounts/lookup'));
    expect(access).toMatchObject({ req: { method: 'POST' }, res: { statusCode: 200 } });
    expect(typeof access.responseTime).toBe('number');
    expect(access.req!.id).toBeDefined();
    const own = lines().find((l) => l.msg === 'account looked up');
    expect(own?.req?.id).toBe(access.req!.id);
    expect(JSON.stringify(lines())).not.toContain(token);
  });

  it('writes a status stream\'s line when the stream ends, with its own request id, after the stream got its event', async () => {
    const token = await h.mintPayment();
    const paid = await h.post('/payments', { msisdn: '233260000004' }, { token });
    expect(paid.status).toBe(202);
    const path = `/merchant-elements/payments/${paid.body.reference as string}/events`;
    const stream = await openStream(`${h.origin}${path}`, token);
    await stream.waitFor((e) => e.data.status === 'PENDING');
    expect(lines().some((l) => l.req?.path === path)).toBe(false);
    stream.close();
    const access = await eventually(() => lines().find((l) => l.req?.path === path));
    expect(access).toMatchObject({ req: { method: 'GET' }, res: { statusCode: 200 } });
    const others = lines().filter((l) => l.req?.path !== path && l.req?.id !== undefined);
    expect(others.map((l) => l.req!.id)).not.toContain(access.req!.id);
  });

  it('writes a 5xx answer\'s line at error level as "request errored", and the line saying why names the same request', async () => {
    // The provider refuses our credentials: the proxy answers 5xx and logs why.
    const refused = await startHarness({ provider: (sandbox) => ({ ...sandboxProvider(sandbox), payment: { username: 'wrong', password: 'wrong' } }) });
    try {
      const token = await refused.mintPayment();
      const res = await refused.post('/accounts/lookup', { msisdn: '0240000001' }, { token });
      expect(res.status).toBeGreaterThanOrEqual(500);
      const all = () => refused.logs.entries() as (Line & { level?: number })[];
      const access = await eventually(() => all().find((l) => l.req?.path === '/merchant-elements/accounts/lookup' && l.res !== undefined));
      expect(access).toMatchObject({ level: 50, msg: 'request errored', res: { statusCode: res.status } });
      const why = all().find((l) => l.msg?.startsWith('the provider refused our credentials'));
      expect(why?.req).toEqual(access.req);
    } finally {
      await refused.close();
    }
  });

  it('keeps no logger on an open status stream\'s request or response: its id and its start only', async () => {
    const token = await h.mintPayment();
    const paid = await h.post('/payments', { msisdn: '233260000004' }, { token });
    expect(paid.status).toBe(202);
    const path = `/merchant-elements/payments/${paid.body.reference as string}/events`;
    let held: { req: object; res: object } | undefined;
    const hold = (req: { url?: string; originalUrl?: string }, res: object) => {
      if ((req.originalUrl ?? req.url) === path) held = { req, res };
    };
    h.server.on('request', hold);
    try {
      const stream = await openStream(`${h.origin}${path}`, token);
      await stream.waitFor((e) => e.data.status === 'PENDING');
      // A stream lives minutes: what its request and response hold is held that long, ten thousand times in a sale.
      const own = (o: object) => [...Object.keys(o), ...Object.getOwnPropertySymbols(o).map(String)];
      expect(own(held!.req)).toContain('id');
      for (const o of [held!.req, held!.res]) {
        expect(own(o).filter((k) => /log/i.test(k))).toEqual([]);
        expect(Object.values(o).some((v) => typeof v === 'object' && v !== null && 'child' in v && 'level' in v)).toBe(false);
      }
      stream.close();
      await eventually(() => lines().find((l) => l.req?.path === path));
    } finally {
      h.server.off('request', hold);
    }
  });
});
