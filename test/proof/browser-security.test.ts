// Browser security in real Chromium: what a page on another origin can and cannot do with the merchant's
// proxy (the server's verdict recorded and the sandbox checked, not only what the browser shows), and the
// three elements driven to the end of their flows under a strict Content-Security-Policy (docs/csp.md).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BLOCKED, call, eventOf, expectClean, jsonWith, openShop, payByMobile, payOnHostedPage, reach, sandboxView, seenBy, verifyPhone,
} from './browser-page.js';
import { MOUNT, newWatchedPage, startBrowserWorld, type BrowserWorld } from './browser-world.js';

let world: BrowserWorld;
beforeAll(async () => {
  world = await startBrowserWorld();
}, 60_000);
afterAll(() => world?.close());
beforeEach(() => {
  world.strict.requests.length = 0;
  world.open.requests.length = 0;
  world.violations.length = 0;
});

const sandbox = () => sandboxView(world);
const count = (route: string) => sandbox().count(route);

/** A page of another origin, with nothing on it but a frame named `sink`. */
async function openAttacker(origin: string) {
  const { page } = await newWatchedPage(world.browser);
  await page.goto(`${origin}/attacker`);
  return page;
}

// ---- Part 1: another origin -------------------------------------------------------------------------------
describe.each([
  ['another origin of the same site (127.0.0.1, another port)', 'sameSite', '233240000101', 'same-site'],
  ['another site (localhost)', 'crossSite', '233240000102', 'cross-site'],
] as const)('a page on %s', (_name, key, msisdn, fetchSite) => {
  const attacker = () => world.other[key];
  const url = (path: string) => world.strict.origin + MOUNT + path;

  it('cannot send an OTP with a valid token: the preflight is refused without CORS headers, the POST never leaves, no SMS', async () => {
    const page = await openAttacker(attacker());
    const token = await world.strict.proxy.tokens.otp({ purpose: 'sign-in' });
    const before = count('otp.generate');
    const init = { method: 'POST', headers: jsonWith(token), body: JSON.stringify({ recipient: msisdn }) };

    expect(await call(page, url('/otp/send'), init)).toEqual(BLOCKED);
    expect(await seenBy(world.strict, '/otp/send', attacker())).toEqual([
      expect.objectContaining({ method: 'OPTIONS', fetchSite, status: 403, error: 'ORIGIN_NOT_ALLOWED', allowOrigin: undefined }),
    ]);
    expect(sandbox().smsTo(msisdn)).toEqual([]);
    expect(count('otp.generate')).toBe(before);

    // The token was good: the merchant's own server (no Origin) sends with it.
    const direct = await fetch(url('/otp/send'), init);
    expect(direct.status).toBe(200);
    expect(sandbox().smsTo(msisdn)).toHaveLength(1);
    await page.close();
  });

  it('cannot pay or send by simple requests (no-cors fetch, text/plain form post): refused by origin, the token never travels, nothing sent or paid', async () => {
    const page = await openAttacker(attacker());
    const victim = `${msisdn.slice(0, -1)}9`;
    const token = await world.strict.proxy.tokens.payment({ amount: 5, referenceNo: `SIMPLE-${key}`, narration: 'Order' });
    const before = { pay: count('payment.initiate'), lookup: count('payment.accountHolder'), otp: count('otp.generate') };
    const simple = { method: 'POST', mode: 'no-cors' as const, headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` } };

    for (const [path, body] of [['/payments', { msisdn: victim }], ['/accounts/lookup', { msisdn: victim }], ['/otp/send', { recipient: victim }]] as const) {
      expect(await call(page, url(path), { ...simple, body: JSON.stringify(body) })).toEqual(expect.objectContaining({ type: 'opaque', status: 0, body: '' }));
    }
    // The classic JSON CSRF: a form whose text/plain body reads as JSON, posted into a frame.
    await page.evaluate(
      ({ action, victim }) => {
        const form = Object.assign(document.createElement('form'), { method: 'post', action, enctype: 'text/plain', target: 'sink' });
        form.append(Object.assign(document.createElement('input'), { type: 'hidden', name: `{"msisdn":"${victim}","x":"`, value: '"}' }));
        document.body.append(form);
        form.submit();
      },
      { action: url('/payments'), victim },
    );

    const refused = expect.objectContaining({ method: 'POST', fetchSite, bearer: false, status: 403, error: 'ORIGIN_NOT_ALLOWED' });
    expect(await seenBy(world.strict, '/payments', attacker(), 2)).toEqual([refused, refused]);
    expect(await seenBy(world.strict, '/accounts/lookup', attacker())).toEqual([refused]);
    expect(await seenBy(world.strict, '/otp/send', attacker())).toEqual([refused]);
    expect(sandbox().paymentsFrom(victim)).toEqual([]);
    expect(sandbox().smsTo(victim)).toEqual([]);
    expect({ pay: count('payment.initiate'), lookup: count('payment.accountHolder'), otp: count('otp.generate') }).toEqual(before);
    await page.close();
  });

  it("cannot read a payment's status: snapshot and stream blocked, EventSource refused, a simple GET carries no token", async () => {
    const page = await openAttacker(attacker());
    const token = await world.strict.proxy.tokens.payment({ amount: 5, referenceNo: `READ-${key}`, narration: 'Order' });
    // The customer's payment, made by the merchant's server (no Origin); 233260000004 stays pending.
    const created = await fetch(url('/payments'), { method: 'POST', headers: jsonWith(token), body: JSON.stringify({ msisdn: '233260000004' }) });
    expect(created.status).toBe(202);
    const { reference } = (await created.json()) as { reference: string };
    const auth = { authorization: `Bearer ${token}` };
    const snapshot = `/payments/${reference}`;
    const events = `${snapshot}/events`;

    expect(await call(page, url(snapshot), { headers: auth })).toEqual(BLOCKED);
    expect(await call(page, url(events), { headers: { ...auth, accept: 'text/event-stream' } })).toEqual(BLOCKED);
    const eventSource = await page.evaluate(
      (u) =>
        new Promise<string>((resolve) => {
          const source = new EventSource(u);
          source.addEventListener('status', (e) => (source.close(), resolve(`read ${e.data}`)));
          source.onerror = () => (source.close(), resolve('error'));
        }),
      url(events),
    );
    expect(eventSource).toBe('error');
    expect(await call(page, url(snapshot), { mode: 'no-cors', headers: auth })).toEqual(expect.objectContaining({ type: 'opaque', body: '' }));

    const preflight = expect.objectContaining({ method: 'OPTIONS', status: 403, allowOrigin: undefined });
    expect(await seenBy(world.strict, snapshot, attacker())).toEqual([preflight]);
    expect(await seenBy(world.strict, events, attacker(), 2)).toEqual([
      preflight,
      expect.objectContaining({ method: 'GET', bearer: false, status: 403, error: 'ORIGIN_NOT_ALLOWED' }),
    ]);
    // A simple GET sends no Origin; it passes the origin rule but the Authorization header was dropped.
    expect(await seenBy(world.strict, snapshot, undefined)).toEqual([
      expect.objectContaining({ method: 'GET', fetchSite, bearer: false, status: 401, error: 'TOKEN_INVALID', allowOrigin: undefined }),
    ]);
    // The payment exists and is readable with the token, by the merchant's server.
    expect((await fetch(url(snapshot), { headers: auth })).status).toBe(200);
    await page.close();
  });
});

describe('a page on an allowlisted origin (a second proxy instance with allowedOrigins)', () => {
  const url = (path: string) => world.open.origin + MOUNT + path;

  it('sends an OTP with the same JSON call and reads what the elements read: the body, Date, Retry-After', async () => {
    const page = await openAttacker(world.other.crossSite);
    const msisdn = '233240000103';
    const token = await world.open.proxy.tokens.otp({ purpose: 'sign-in' });
    const before = count('otp.generate');
    const init = { method: 'POST', headers: jsonWith(token), body: JSON.stringify({ recipient: msisdn }) };

    const sent = await call(page, url('/otp/send'), init);
    expect(sent).toMatchObject({ type: 'cors', status: 200, date: expect.any(String) });
    expect(JSON.parse(sent.body!)).toMatchObject({ otpId: expect.any(String), recipient: expect.stringMatching(/\*/) });
    // Within the cooldown: the page can read how long to wait (the element's countdown).
    const again = await call(page, url('/otp/send'), init);
    expect(again).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/), date: expect.any(String) });
    expect(JSON.parse(again.body!)).toMatchObject({ error: 'RATE_LIMITED' });

    const allowed = { allowOrigin: world.other.crossSite, fetchSite: 'cross-site' };
    expect(await seenBy(world.open, '/otp/send', world.other.crossSite, 1, 'OPTIONS')).toEqual([
      expect.objectContaining({ status: 204, ...allowed }),
    ]);
    expect(await seenBy(world.open, '/otp/send', world.other.crossSite, 2, 'POST')).toEqual([
      expect.objectContaining({ status: 200, bearer: true, ...allowed }),
      expect.objectContaining({ status: 429, bearer: true, ...allowed }),
    ]);
    expect(sandbox().smsTo(msisdn)).toHaveLength(1);
    expect(count('otp.generate')).toBe(before + 1);
    await page.close();
  });

  it('is still held to JSON bodies: text/plain POSTs are refused (415), nothing is paid', async () => {
    const page = await openAttacker(world.other.crossSite);
    const msisdn = '233240000104';
    const token = await world.open.proxy.tokens.payment({ amount: 5, referenceNo: 'PLAIN-OPEN', narration: 'Order' });
    const before = count('payment.initiate');
    const body = JSON.stringify({ msisdn });

    const simple = await call(page, url('/payments'), { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body });
    expect(simple).toMatchObject({ type: 'opaque' });
    const withToken = await call(page, url('/payments'), { method: 'POST', headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` }, body });
    expect(withToken).toMatchObject({ type: 'cors', status: 415 });
    expect(JSON.parse(withToken.body!)).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });

    expect(await seenBy(world.open, '/payments', world.other.crossSite, 2, 'POST')).toEqual([
      expect.objectContaining({ bearer: false, status: 415, error: 'UNSUPPORTED_MEDIA_TYPE' }),
      expect.objectContaining({ bearer: true, status: 415, error: 'UNSUPPORTED_MEDIA_TYPE' }),
    ]);
    expect(sandbox().paymentsFrom(msisdn)).toEqual([]);
    expect(count('payment.initiate')).toBe(before);
    await page.close();
  });
});

// ---- Part 2: the elements under a strict Content-Security-Policy -------------------------------------------
describe("the elements under a strict CSP, on their proxy's origin", () => {
  const shop = () => `${world.strict.origin}/shop`;
  const providerOrigin = () => new URL(world.sandbox.url).origin;
  const clean = (page: Parameters<typeof expectClean>[1], errors: string[]) => expectClean(world, page, errors, world.strict.origin);

  it('apply their styles through adopted stylesheets; an inline style is refused and reported (the watch works)', async () => {
    const { page, errors } = await openShop(world, shop(), {});
    // Each element renders once its modules are in (its formats are a module of its own): wait for its button.
    await page.waitForFunction(() => ['otp', 'payment', 'checkout'].every((id) => document.getElementById(id)?.shadowRoot?.querySelector('button')));
    const looks = await page.evaluate(() => ({
      uaButton: getComputedStyle(document.body.appendChild(document.createElement('button'))).backgroundColor,
      elements: ['otp', 'payment', 'checkout'].map((id) => {
        const root = document.getElementById(id)!.shadowRoot!;
        const button = getComputedStyle(root.querySelector('button')!);
        return { adopted: root.adoptedStyleSheets.length > 0, styleTags: root.querySelectorAll('style').length, background: button.backgroundColor, minHeight: button.minHeight };
      }),
    }));
    const styled = { adopted: true, styleTags: 0, background: 'rgb(29, 78, 216)', minHeight: '44px' };
    expect(looks.elements).toEqual([styled, styled, styled]);
    expect(looks.uaButton).not.toBe(styled.background);
    await clean(page, errors);

    await page.evaluate(() => document.head.append(Object.assign(document.createElement('style'), { textContent: 'body{color:rgb(255,0,0)}' })));
    await expect.poll(() => world.violations.map((v) => v.directive)).toContain('style-src-elem');
    expect(await page.evaluate(() => getComputedStyle(document.body).color)).not.toBe('rgb(255, 0, 0)');
    await page.close();
  });

  it("<otp-verify> sends and verifies a code; the merchant's server accepts the proof", async () => {
    const { page, errors } = await openShop(world, shop(), {});
    const before = count('otp.generate');
    const proof = await verifyPhone(world, page, '233240000001');
    expect(await world.strict.proxy.verifyOtpProof(proof, { purpose: 'sign-in' })).toEqual({ recipient: '233240000001', purpose: 'sign-in' });
    expect(count('otp.generate')).toBe(before + 1);
    await clean(page, errors);
    await page.close();
  });

  it('<pay-by-mobile> pays from 233240000001 to COMPLETED, charged exactly once upstream', async () => {
    const { page, errors } = await openShop(world, shop(), {});
    const before = count('payment.initiate');
    const reference = await payByMobile(page, '233240000001');
    // Exactly once: one payment request reached the sandbox for this order, and it completed.
    expect(await sandbox().upstreamOfOrder(reference)).toEqual([
      expect.objectContaining({ referenceNo: reference, status: 'COMPLETED', msisdn: '233240000001' }),
    ]);
    expect(count('payment.initiate')).toBe(before + 1);
    await clean(page, errors);
    await page.close();
  });

  it('<checkout-button> redirects to the hosted page (a navigation: no directive governs it) and the customer comes back paid', async () => {
    const { page, errors } = await openShop(world, shop(), {});
    const before = count('checkout.initialize');
    await page.locator('#checkout [part~=button]').click();
    await page.waitForURL((u) => u.origin == providerOrigin());
    await payOnHostedPage(page);
    await page.waitForURL((u) => u.origin == world.strict.origin && u.searchParams.has('returned'), { timeout: 15_000 });
    const reference = new URL(page.url()).searchParams.get('returned')!;
    await expect.poll(async () => (await world.strict.proxy.checkouts.get(reference))?.status, { timeout: 10_000 }).toBe('completed');
    expect(count('checkout.initialize')).toBe(before + 1);
    await page.locator('body[data-ready=yes]').waitFor();
    await clean(page, errors);
    await page.close();
  });

  it('<checkout-button mode="popup"> opens the hosted page in a window (no directive governs it) and follows it to completed', async () => {
    const { page, errors } = await openShop(world, `${shop()}?mode=popup`, {});
    const before = count('checkout.initialize');
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('#checkout [part~=button]').click()]);
    await popup.waitForURL((u) => u.origin == providerOrigin());
    await payOnHostedPage(popup);
    await reach(page, 'checkout', 'completed');
    expect(await eventOf(page, 'checkout-opened')).toMatchObject({ mode: 'popup' });
    // One session created upstream for the one click.
    expect(count('checkout.initialize')).toBe(before + 1);
    await clean(page, errors);
    await popup.close();
    await page.close();
  });

  it('work with Trusted Types enforced, Lit\'s "lit-html" policy allowed: a phone verified', async () => {
    const { page, errors } = await openShop(world, `${shop()}?tt=1`, { trustedTypes: true });
    const proof = await verifyPhone(world, page, '233240000301');
    expect(await world.strict.proxy.verifyOtpProof(proof, { purpose: 'sign-in' })).toMatchObject({ recipient: '233240000301' });
    await clean(page, errors);
    await page.close();
  });

  it("form-action 'self' stops the merchant's own form redirected to the provider's origin; naming that origin lets it through", async () => {
    const blocked = await openShop(world, shop(), {});
    await blocked.page.locator('#pay-elsewhere').click();
    await expect.poll(() => world.violations).toEqual([expect.objectContaining({ directive: 'form-action' })]);
    expect(blocked.page.url()).toBe(shop());
    await blocked.page.close();

    const origin = providerOrigin();
    const allowed = await openShop(world, `${shop()}?form-action=${encodeURIComponent(origin)}`, { formAction: [origin] });
    await Promise.all([allowed.page.waitForURL((u) => u.origin == origin), allowed.page.locator('#pay-elsewhere').click()]);
    await allowed.page.close();
  });
});

describe('the elements under a strict CSP, on another origin than their proxy', () => {
  it('work when connect-src names the proxy and the proxy allowlists the page: a phone verified, a payment COMPLETED', async () => {
    const { crossSite } = world.other;
    const { page, errors } = await openShop(world, `${crossSite}/shop`, { connect: [world.open.origin] });
    const proof = await verifyPhone(world, page, '233240000201');
    expect(await world.open.proxy.verifyOtpProof(proof, { purpose: 'sign-in' })).toMatchObject({ recipient: '233240000201' });
    const reference = await payByMobile(page, '233240000001');
    expect(await sandbox().upstreamOfOrder(reference)).toEqual([expect.objectContaining({ referenceNo: reference, status: 'COMPLETED' })]);
    // Every call crossed origins under CORS.
    expect(world.open.requests.length).toBeGreaterThan(4);
    expect(world.open.requests.filter((r) => r.origin != crossSite || r.allowOrigin != crossSite)).toEqual([]);
    await expectClean(world, page, errors, crossSite);
    await page.close();
  });

  it("are stopped by connect-src 'self' alone: the call never leaves the browser, the violation is reported, the element offers a retry", async () => {
    const { page } = await openShop(world, `${world.other.crossSite}/shop?connect=self`, {});
    await page.locator('#otp [part~=phone-input]').fill('233240000202');
    await page.locator('#otp [part~=send-button]').click();
    await reach(page, 'otp', 'network-error');
    // Two reports for the send: the call, then the element's look for a refusal it could read (a GET without
    // its token), which the policy blocks as well.
    const blocked = expect.objectContaining({ directive: 'connect-src', blocked: `${world.open.origin}${MOUNT}/otp/send` });
    await expect.poll(() => world.violations.filter((v) => v.blocked.includes('/otp/send'))).toEqual([blocked, blocked]);
    // Every call of the page's elements is stopped alike (<pay-by-mobile> reads its order as it loads).
    expect(world.violations.every((v) => v.directive == 'connect-src' && v.blocked.startsWith(world.open.origin))).toBe(true);
    await page.locator('#otp [part~=retry-button]').waitFor();
    expect(world.open.requests).toEqual([]);
    expect(sandbox().smsTo('233240000202')).toEqual([]);
    await page.close();
  });
});
