// The order pages after mobile money ends: a spent order offers what is still possible, and a paid order says
// what the customer's phone took (issue 20, items 2 and 3), over real HTTP against the demo, proxy and sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../../demo/server/index.js';
import { Visitor, elementToken, eventually, orderStatus } from './shop-client.js';

describe('the demo shop’s order pages', () => {
  let demo: RunningDemo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, timeScale: 0.01, logLevel: 'silent' });
  });
  afterAll(() => demo?.close());

  /** A visitor with a bag of gari and a tin of shea butter ordered, to be paid by mobile money; its token. */
  async function order(visitor: Visitor) {
    await visitor.postForm('/cart/add', { productId: 'gari' });
    await visitor.postForm('/cart/add', { productId: 'shea-butter' });
    const placed = await visitor.postForm('/orders', { method: 'pay-by-mobile' });
    const reference = /ORDER-\d+/.exec(placed.location!)![0];
    const token = elementToken((await visitor.get(placed.location!)).text, 'pay-by-mobile');
    return { reference, token };
  }

  it('offers a spent order the checkout and a new order of the same goods, never mobile money again', async () => {
    const visitor = new Visitor(demo.url);
    const { reference, token } = await order(visitor);
    // What <pay-by-mobile> does on each try; 233240000002 is refused at once (insufficient funds), three times.
    for (let i = 0; i < 3; i++) {
      expect((await visitor.postJson('/merchant-elements/payments', { msisdn: '233240000002' }, token)).status).toBe(402);
    }
    const page = await eventually(async () => {
      const text = (await visitor.get(`/orders/${reference}`)).text;
      return text.includes('data-testid="order-spent"') ? text : undefined;
    }, 10_000);
    expect(orderStatus(page)).toBe('failed');
    expect(page).toContain('This order has no mobile money attempts left.');
    expect(page).not.toContain('data-testid="pay-by-mobile-link"');
    expect(page).toMatch(new RegExp(`<a class="button primary" href="/orders/${reference}/checkout" data-testid="checkout-link">`));
    expect(page).toMatch(new RegExp(`<form method="post" action="/orders/${reference}/reorder"`));
    // The mobile-money page sends a spent order to the order page, where those ways are.
    expect((await visitor.get(`/orders/${reference}/pay-by-mobile`)).location).toBe(`/orders/${reference}`);
    const checkout = (await visitor.get(`/orders/${reference}/checkout`)).text;
    expect(checkout).toContain('<checkout-button');
    expect(checkout).not.toContain('Pay with mobile money instead');
  });

  it('starts a new order of the same goods by filling the cart with them again', async () => {
    const visitor = new Visitor(demo.url);
    const { reference } = await order(visitor);
    expect((await visitor.get('/cart')).text).toContain('data-testid="cart-empty"');
    const again = await visitor.postForm(`/orders/${reference}/reorder`, {});
    expect(again.status).toBe(303);
    expect(again.location).toBe('/cart');
    const cart = (await visitor.get('/cart')).text;
    expect(cart).toContain('data-testid="line-gari"');
    expect(cart).toContain('data-testid="line-shea-butter"');
    expect(cart).toMatch(/data-testid="order-total">GHS\s47\.50</);
    // Another visitor's cart is untouched by it.
    const other = new Visitor(demo.url);
    expect((await other.get('/cart')).text).toContain('data-testid="cart-empty"');
  });

  it('shows a paid order what the phone took: the goods, the network charge and the total paid', async () => {
    const visitor = new Visitor(demo.url);
    const { reference, token } = await order(visitor);
    expect((await visitor.postJson('/merchant-elements/payments', { msisdn: '233240000001' }, token)).status).toBe(202);
    const paid = await eventually(async () => {
      const text = (await visitor.get(`/orders/${reference}`)).text;
      return orderStatus(text) === 'paid' ? text : undefined;
    }, 10_000);
    // GHS 47.50 of goods; the sandbox charges 1 %: GHS 0.48 (rounded half-up), GHS 47.98 taken.
    expect(paid).toMatch(/<th scope="row" colspan="2">Goods<\/th><td class="num" data-testid="order-total">GHS\s47\.50</);
    expect(paid).toMatch(/data-testid="order-charge">GHS\s0\.48</);
    expect(paid).toMatch(/<th scope="row" colspan="2">Total paid<\/th><td class="num" data-testid="order-paid-total">GHS\s47\.98</);
  });

  it('keeps the plain total for an order not paid by mobile money', async () => {
    const visitor = new Visitor(demo.url);
    const { reference } = await order(visitor);
    const page = (await visitor.get(`/orders/${reference}`)).text;
    expect(page).toMatch(/<th scope="row" colspan="2">Total<\/th><td class="num" data-testid="order-total">GHS\s47\.50</);
    expect(page).not.toContain('order-charge');
    expect(page).toContain('data-testid="pay-by-mobile-link"');
  });
});
