// docs/server-api.md followed as written: the sandbox and `serve`, then its curl calls, whose answers are
// the proxy's own (a token the proxy takes, a 404 before any payment, an empty list, a replay refused 404
// for a webhook that does not exist, not 415: the content type the page tells to send is the right one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guideWorld, type GuideWorld } from './guide-world.js';

describe('docs/server-api.md, followed as written', { timeout: 90_000 }, () => {
  let world: GuideWorld;
  let printed: string[];
  beforeAll(async () => {
    world = await guideWorld({ terminals: { sandbox: 4010, proxy: 8080 } });
    printed = await world.follow('docs/server-api.md');
  }, 90_000);
  afterAll(() => world?.close());

  it('runs every step', () => {
    expect(world.unused().map((b) => `${b.doc}:${b.line}`)).toEqual([]);
    expect(printed).toHaveLength(3);
  });

  it('mints a payment token the proxy takes', async () => {
    const { token, expiresAt } = JSON.parse(printed[0]!) as { token: string; expiresAt: string };
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const lookup = await fetch(world.url(8080, '/merchant-elements/accounts/lookup'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: '0240000001' }),
    });
    expect(lookup.status).toBe(200);
  });

  it('reads no payment before one is made', () => {
    expect(JSON.parse(printed[1]!)).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('lists webhooks by state and limit, and a replay with the JSON content type reaches the route', () => {
    // Two curl calls in one block, each answer without a newline: two JSON documents back to back.
    const [list, replay] = printed[2]!.replace(/}\s*{/g, '}\n{').split('\n');
    expect(JSON.parse(list!)).toEqual({ deliveries: [], next: null });
    expect(JSON.parse(replay!)).toMatchObject({ error: 'NOT_FOUND' });
  });
});
