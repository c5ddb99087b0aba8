import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../../demo/server/index.js';
import { Visitor, claimsOf, elementToken, eventually, lastCode, orderStatus } from './shop-client.js';

describe('the demo shop (npm start)', () => {
  let demo: RunningDemo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, timeScale: 0.1, logLevel: 'silent' });
  });
  afterAll(() => demo?.close());

  /** A visitor who put two kente stoles and a bag of gari in the cart, then chose how to pay. */
  async function placeOrder(visitor: Visitor, method: 'pay-by-mobile' | 'checkout') {
    await visitor.get('/');
    await visitor.postForm('/cart/add', { productId: 'kente-stole' });
    await visitor.postForm('/cart/add', { productId: 'kente-stole' });
    await visitor.postForm('/cart/add', { productId: 'gari' });
    const placed = await visitor.postForm('/orders', { method });
    expect(placed.status).toBe(303);
    const [, reference, page] = /^\/orders\/(ORDER-\d+)\/([a-z-]+)$/.exec(placed.location ?? '') ?? [];
    expect(page).toBe(method);
    return { reference: reference!, payPath: placed.location! };
  }

  it('shows the goods, the embedding demos, the test numbers and the customer’s phone', async () => {
    const home = await new Visitor(demo.url).get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Makola Market Goods');
    expect(home.text).toContain('Kente stole');
    expect(home.text).toContain('href="/embed"');
    for (const n of ['233240000001', '233240000002', '233200000003', '233260000004', '233240000404']) {
      expect(home.text).toContain(`data-testid="test-number-${n}"`);
    }
    expect(home.text).toContain('src="/sandbox/__sandbox/phone?number=233240000001"');

    const phone = await new Visitor(demo.url).get('/sandbox/__sandbox/phone?number=233240000001');
    expect(phone.status).toBe(200);
    expect(phone.text).toContain('233240000001');
    const health = await new Visitor(demo.url).get('/merchant-elements/health');
    expect(JSON.parse(health.text)).toMatchObject({ ok: true });
  });

  it('renders the sign-in page with a fresh sign-in OTP token each time', async () => {
    const visitor = new Visitor(demo.url);
    const first = await visitor.get('/sign-in');
    const second = await visitor.get('/sign-in');
    expect(first.text).toMatch(/<otp-verify name="proof" required proxy="\/merchant-elements"/);
    const [a, b] = [claimsOf(elementToken(first.text, 'otp-verify')), claimsOf(elementToken(second.text, 'otp-verify'))];
    expect(a).toMatchObject({ scope: 'otp', purpose: 'sign-in' });
    expect(b).toMatchObject({ scope: 'otp', purpose: 'sign-in' });
    expect(a.jti).not.toBe(b.jti);
    // Vite's HTML transform ran: the page's module and Vite's client are both there.
    expect(first.text).toContain('/@vite/client');
    expect(first.text).toContain('/client/shop.ts');
  });

  it('signs in with a real proof once, and refuses its replay and a missing proof', async () => {
    const customer = new Visitor(demo.url);
    const token = elementToken((await customer.get('/sign-in')).text, 'otp-verify');
    // What <otp-verify> does in the browser, over the proxy's own routes.
    expect((await customer.postJson('/merchant-elements/otp/send', { recipient: '024 000 0001' }, token)).status).toBe(200);
    const code = await lastCode(demo.url, '233240000001');
    const verified = await customer.postJson('/merchant-elements/otp/verify', { recipient: '024 000 0001', code }, token);
    expect(verified.body).toMatchObject({ verified: true });
    const proof: string = verified.body.proof;

    const signedIn = await customer.postForm('/sign-in', { proof });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/account');
    const account = await customer.get('/account');
    expect(account.text).toMatch(/data-testid="signed-in-number">\+233 24 \*\*\* \*\*01</);
    expect(account.text).not.toContain('233240000001</strong>');

    // The same proof again, from another browser (a copied or replayed proof): refused, no one signed in.
    const thief = new Visitor(demo.url);
    const replayed = await thief.postForm('/sign-in', { proof });
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain('data-testid="sign-in-error"');
    expect(replayed.text).toContain('already used');
    expect((await thief.get('/account')).location).toBe('/sign-in');

    const missing = await new Visitor(demo.url).postForm('/sign-in', {});
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Verify your phone number first');
  });

  it('turns the cart into an order and binds its reference and total into a fresh payment token', async () => {
    const visitor = new Visitor(demo.url);
    const { reference, payPath } = await placeOrder(visitor, 'pay-by-mobile');
    const first = await visitor.get(payPath);
    const second = await visitor.get(payPath);
    const [a, b] = [claimsOf(elementToken(first.text, 'pay-by-mobile')), claimsOf(elementToken(second.text, 'pay-by-mobile'))];
    // 2 × GHS 180.00 + GHS 12.50, decided by the server.
    expect(a).toMatchObject({ scope: 'payment', referenceNo: reference, amount: 372.5, payee: 'Makola Market Goods' });
    expect(b).toMatchObject({ referenceNo: reference, amount: 372.5 });
    expect(a.jti).not.toBe(b.jti);
    expect(first.text).toContain(`data-order-url="/orders/${reference}"`);
    expect((await visitor.get('/cart')).text).toContain('data-testid="cart-empty"');
  });

  it('binds a checkout token to the order, returning to the order page', async () => {
    const visitor = new Visitor(demo.url);
    const { reference, payPath } = await placeOrder(visitor, 'checkout');
    const claims = claimsOf(elementToken((await visitor.get(payPath)).text, 'checkout-button'));
    expect(claims).toMatchObject({
      scope: 'checkout',
      reference,
      amount: 372.5,
      title: 'Makola Market Goods',
      returnUrl: `${demo.url}/orders/${reference}`,
    });
  });

  it('says what the hosted page asks for: a mobile money number, not a card', async () => {
    const visitor = new Visitor(demo.url);
    const { payPath } = await placeOrder(visitor, 'checkout');
    const page = (await visitor.get(payPath)).text;
    expect(page).not.toMatch(/card or mobile money/);
    expect(page).toMatch(/asks\s+for your mobile money number/);
  });

  it('back from the hosted page, says the payment is being checked, never that a phone must approve it', async () => {
    const visitor = new Visitor(demo.url);
    const { reference, payPath } = await placeOrder(visitor, 'checkout');
    const token = elementToken((await visitor.get(payPath)).text, 'checkout-button');
    // What <checkout-button> does: a session, then the customer is on the provider's page.
    const created = await visitor.postJson('/merchant-elements/checkouts', {}, token);
    expect(created.status).toBe(201);
    // Returned before the proxy read the outcome (the provider adds checkoutId to the return URL).
    const back = (await visitor.get(`/orders/${reference}?checkoutId=${created.body.checkoutId}&status=completed`)).text;
    expect(orderStatus(back)).toBe('checking');
    expect(back).toContain('Checking the payment');
    expect(back).not.toContain("approve the payment on their phone");
    expect(back).toContain('The checkout page is finishing the payment');
    expect(back).toContain('data-watch-seconds');
    // Without the return, an opened and unused checkout is as unpaid as before.
    expect(orderStatus((await visitor.get(`/orders/${reference}`)).text)).toBe('unpaid');
  });

  it('shows on the order page a payment completed through the proxy, as the server reads it', async () => {
    const visitor = new Visitor(demo.url);
    const { reference, payPath } = await placeOrder(visitor, 'pay-by-mobile');
    const token = elementToken((await visitor.get(payPath)).text, 'pay-by-mobile');
    expect(orderStatus((await visitor.get(`/orders/${reference}`)).text)).toBe('unpaid');

    // What <pay-by-mobile> does; 233240000001 completes in the sandbox.
    const created = await visitor.postJson('/merchant-elements/payments', { msisdn: '233240000001' }, token);
    expect(created.status).toBe(202);
    const paid = await eventually(async () => {
      const page = (await visitor.get(`/orders/${reference}`)).text;
      return orderStatus(page) === 'paid' ? page : undefined;
    }, 10_000);
    expect(paid).toMatch(/data-testid="payment-status">COMPLETED: attempt 1/);
    expect(paid).toContain(`${reference}-1`);
    expect(paid).not.toContain('http-equiv="refresh"');
    // Exactly once: the sandbox received one payment request for this order.
    const { payments } = (await (await fetch(`${demo.url}/sandbox/__sandbox/payments`)).json()) as { payments: { referenceNo: string }[] };
    expect(payments.filter((p) => p.referenceNo.startsWith(`${reference}-`))).toHaveLength(1);
    // A paid order is not offered for payment again.
    expect((await visitor.get(payPath)).location).toBe(`/orders/${reference}`);
  });

  it('watches the order page while the payment is pending, without reloading it (no meta refresh)', async () => {
    const visitor = new Visitor(demo.url);
    const { reference, payPath } = await placeOrder(visitor, 'pay-by-mobile');
    const token = elementToken((await visitor.get(payPath)).text, 'pay-by-mobile');
    // 233260000004 stays pending until someone answers on its phone.
    expect((await visitor.postJson('/merchant-elements/payments', { msisdn: '233260000004' }, token)).status).toBe(202);
    const page = (await visitor.get(`/orders/${reference}`)).text;
    expect(orderStatus(page)).toBe('pending');
    expect(page).not.toContain('http-equiv="refresh"');
    // The shop's script reads the page again and updates the banner, a live region.
    expect(page).toMatch(/data-testid="order-status" data-status="pending" role="status" data-watch-seconds="2"/);
    expect(page).toContain('/client/shop.ts');
    // Where the prompt went (masked) and when, as the proxy's snapshot says.
    expect(page).toMatch(/Waiting for the customer to approve the payment on their phone on <span class="nowrap">\+233 26 \*\*\* \*\*04<\/span>, sent at <time datetime="[^"]+">\d\d:\d\d<\/time>\./);

    // The other way is refused while this one waits, and the checkout page says why before a try.
    const checkoutPage = (await visitor.get(`/orders/${reference}/checkout`)).text;
    expect(checkoutPage).toContain('data-testid="order-in-other-payment"');
    expect(checkoutPage).toContain('This order is being paid by mobile money');
  });
});
