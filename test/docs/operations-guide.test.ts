/**
 * 'docs/operations.md': the nginx configuration it gives, run by a real nginx in front of a running proxy:
 * the elements' routes pass, the server API and the probes (`/health`, `/ready`) do not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../proxy/helpers.js';
import { fileOf } from './markdown.js';
import { startNginx } from './nginx.js';

const DOC = 'docs/operations.md';

let proxy: Harness;
let nginx: Awaited<ReturnType<typeof startNginx>>;
let shop: string;

beforeAll(async () => {
  proxy = await startHarness();
  // The page's block as written, pointed at this test's proxy instead of 127.0.0.1:8080.
  const locations = fileOf(DOC, 'shop.conf').replaceAll('http://127.0.0.1:8080', proxy.origin);
  expect(locations).not.toBe(fileOf(DOC, 'shop.conf'));
  nginx = await startNginx(locations);
  shop = nginx.url;
});
afterAll(async () => {
  await nginx?.stop();
  await proxy?.close();
});

describe("the shop's own origin, through the nginx configuration of docs/operations.md", () => {
  it('forwards the elements’ routes to the proxy', async () => {
    const res = await fetch(`${shop}/merchant-elements/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // The proxy's own answer (no token), not nginx's.
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'TOKEN_INVALID' });
  });

  it('forwards neither the server API nor the probes, which stay on the internal address', async () => {
    for (const path of ['/merchant-elements/server/orders/unresolved', '/merchant-elements/health', '/merchant-elements/ready']) {
      expect((await fetch(`${shop}${path}`)).status, path).toBe(404);
    }
    // Still answered where the balancer asks: the proxy's own address.
    expect((await fetch(`${proxy.baseUrl}/health`)).status).toBe(200);
  });
});
