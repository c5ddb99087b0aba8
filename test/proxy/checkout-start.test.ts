import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutCreateResponse, proxyErrorBody } from '../../src/protocol/index.js';
import { startHarness, TEST_SECRET, type Harness } from './helpers.js';

// POST /checkouts/start: <checkout-button>'s fallback form, posted by a browser before (or without) the
// element's script.
describe('POST /checkouts/start (the fallback form)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { timeScale: 0.02 } });
  });
  afterAll(() => h.close());

  const initializations = () => h.sandbox.app.sandbox.requestCounts.get('checkout.initialize') ?? 0;
  const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  /** The form as Chromium posts it from a page of the proxy's own origin. */
  const press = (token: string, headers: Record<string, string> = {}, body = new URLSearchParams({ token }).toString()) =>
    fetch(`${h.baseUrl}/checkouts/start`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: BROWSER_ACCEPT,
        origin: h.origin,
        referer: `${h.origin}/orders/42?step=pay`,
        'sec-fetch-site': 'same-origin',
        ...headers,
      },
      body,
    });

  describe('a press', () => {
    it('sends the browser to the session’s hosted page with 303 See Other', async () => {
      const before = initializations();
      const res = await press(await h.mintCheckout({ title: 'Blue shirt', reference: 'FORM-1', amount: 30 }));
      expect(res.status).toBe(303);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const location = res.headers.get('location')!;
      const checkoutId = /\/checkout\/([^/?]+)/.exec(location)?.[1];
      expect(h.sandbox.app.sandbox.checkouts.get(checkoutId!)).toMatchObject({ reference: 'FORM-1', amount: 30, title: 'Blue shirt' });
      expect(location.startsWith(h.sandbox.url)).toBe(true);
      expect(initializations() - before).toBe(1);
    });

    it('pressed twice, then the element’s own call after its upgrade: one session, the same page each time', async () => {
      const token = await h.mintCheckout();
      const before = initializations();
      const [first, second] = await Promise.all([press(token), press(token)]);
      const third = await press(token);
      const locations = [first, second, third].map((r) => [r.status, r.headers.get('location')]);
      expect(new Set(locations.map((l) => JSON.stringify(l))).size).toBe(1);
      expect(locations[0]![0]).toBe(303);
      const element = checkoutCreateResponse.parse((await h.post('/checkouts', {}, { token })).body);
      expect(element.checkoutUrl).toBe(locations[0]![1]);
      expect(initializations() - before).toBe(1);
    });
  });

  describe('refused', () => {
    it('a bad token: a page saying what to do, linking back to the page the form was on; no session', async () => {
      const before = initializations();
      const res = await press('not-a-token');
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await res.text();
      expect(page).toContain('data-error="TOKEN_INVALID"');
      expect(page).toContain('reload it');
      expect(page).toContain(`<a href="${h.origin}/orders/42?step=pay">Back to the page</a>`);
      expect(initializations() - before).toBe(0);
    });

    it('an expired token (a page left open): 401 TOKEN_EXPIRED, as a page to a browser, in the error shape to others', async () => {
      const expired = await new SignJWT({
        scope: 'checkout', aud: 'merchant-elements', exp: Math.floor(Date.now() / 1000) - 60, jti: randomBytes(12).toString('base64url'),
        title: 'Order', reference: 'FORM-OLD', amount: 20, description: 'One', returnUrl: 'https://shop.example/r',
      }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(TEST_SECRET));
      const page = await press(expired);
      expect(page.status).toBe(401);
      expect(await page.text()).toContain('data-error="TOKEN_EXPIRED"');
      const api = await press(expired, { accept: 'application/json' });
      expect(api.status).toBe(401);
      expect(proxyErrorBody.parse(await api.json())).toMatchObject({ error: 'TOKEN_EXPIRED' });
    });

    it('a page of another origin: 403 ORIGIN_NOT_ALLOWED before the token is read, no session', async () => {
      const before = initializations();
      const res = await press(await h.mintCheckout(), { origin: 'https://elsewhere.example', referer: 'https://elsewhere.example/', 'sec-fetch-site': 'cross-site' });
      expect(res.status).toBe(403);
      expect(proxyErrorBody.parse(await res.json())).toMatchObject({ error: 'ORIGIN_NOT_ALLOWED' });
      expect(initializations() - before).toBe(0);
    });

    it('a token of another scope, a field besides the token, a JSON body', async () => {
      const otherScope = await press(await h.mintPayment(), { accept: 'application/json' });
      expect([otherScope.status, (await otherScope.json()).error]).toEqual([401, 'TOKEN_INVALID']);
      const extra = await press('', { accept: 'application/json' }, new URLSearchParams({ token: await h.mintCheckout(), amount: '1' }).toString());
      expect([extra.status, (await extra.json()).error]).toEqual([400, 'INVALID_INPUT']);
      const json = await press('', { accept: 'application/json', 'content-type': 'application/json' }, JSON.stringify({ token: await h.mintCheckout() }));
      expect([json.status, (await json.json()).error]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    });

    it('links back only to a page of the form’s own origin', async () => {
      const res = await press('not-a-token', { referer: 'https://elsewhere.example/phish' });
      expect(res.status).toBe(401);
      const page = await res.text();
      expect(page).not.toContain('elsewhere.example');
      expect(page).not.toContain('<a ');
    });
  });
});
