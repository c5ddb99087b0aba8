import express, { Router } from 'express';
import { html } from '../../src/sandbox/html.js';
import { PRODUCTS, SHOP_NAME, formatPrice, productById } from './catalogue.js';
import { alertBox, layout } from './layout.js';
import { linesTable } from './order-pages.js';
import { linesOf, totalOf } from './orders.js';
import { sessionOf } from './sessions.js';
import { type ShopContext, orderPath } from './shop-context.js';

/** Most of one product a cart may hold. */
const MAX_QUANTITY = 20;

/** The home page (products), the cart, and the POST that turns the cart into an order. */
export function shopRoutes(ctx: ShopContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get('/', async (req, res) => {
    const cards = PRODUCTS.map(
      (p) => html`<li class="product" data-testid="product-${p.id}">
  <div class="product-picture" aria-hidden="true">${p.emoji}</div>
  <h3>${p.name}</h3>
  <p class="muted">${p.description}</p>
  <p class="price">${formatPrice(p.price)}</p>
  <form method="post" action="/cart/add"><input type="hidden" name="productId" value="${p.id}">
    <button type="submit" class="button primary">Add to cart<span class="visually-hidden">: ${p.name}</span></button></form>
</li>`,
    );
    const page = layout({
      title: 'Shop',
      session: sessionOf(req),
      body: html`<section class="hero">
  <h1>Fresh from Makola, paid by mobile money</h1>
  <p class="lead">${SHOP_NAME} brings the market’s best to your door in Accra. Sign in with your phone number, fill your
  cart, and pay with MTN MoMo, Telecel Cash or AirtelTigo Money.</p>
</section>
<section class="card how" aria-labelledby="how-title">
  <h2 id="how-title">Try the demo</h2>
  <ol>
    <li><a href="/sign-in">Sign in</a> with <code>024 000 0001</code>: the code arrives on the customer’s phone (the panel beside this page, or below on a phone).</li>
    <li>Add a few things to your <a href="/cart">cart</a>, then pay with mobile money (approve on the phone) or on the hosted checkout page.</li>
    <li>The order page shows the payment as the shop’s server knows it, from the proxy.</li>
    <li>See the same elements <a href="/embed">embedded</a> with a plain <code>&lt;script&gt;</code>, in React and in Vue.</li>
  </ol>
</section>
<h2>Today’s goods</h2>
<ul class="products">${cards}</ul>`,
    });
    await ctx.send(req, res, page);
  });

  router.get('/cart', async (req, res) => {
    const session = sessionOf(req);
    const lines = linesOf(session.cart);
    const remove = (productId: string) => html`<form method="post" action="/cart/remove">
  <input type="hidden" name="productId" value="${productId}"><button type="submit" class="link-button">Remove</button></form>`;
    const notice = typeof req.query.error === 'string' ? alertBox('Your cart is empty: add something first.', 'cart-error') : '';
    const page = layout({
      title: 'Cart',
      session,
      body: html`<h1>Your cart</h1>
${notice}
${lines.length === 0
  ? html`<p class="muted" data-testid="cart-empty">Your cart is empty. <a href="/">Browse today’s goods</a>.</p>`
  : html`${linesTable(lines, totalOf(lines), (l) => remove(l.product.id))}
<p><a href="/">Continue shopping</a></p>
<form method="post" action="/orders" class="pay-choice" data-testid="place-order">
  <p>How would you like to pay?</p>
  <div class="actions">
    <button type="submit" name="method" value="pay-by-mobile" class="button primary" data-testid="order-pay-by-mobile">Pay with mobile money</button>
    <button type="submit" name="method" value="checkout" class="button secondary" data-testid="order-checkout">Pay on the checkout page</button>
  </div>
</form>`}`,
    });
    await ctx.send(req, res, page);
  });

  router.post('/cart/add', form, (req, res) => {
    const { cart } = sessionOf(req);
    const product = productById(String(req.body?.productId ?? ''));
    if (product) cart.set(product.id, Math.min((cart.get(product.id) ?? 0) + 1, MAX_QUANTITY));
    res.redirect(303, '/cart');
  });

  router.post('/cart/remove', form, (req, res) => {
    sessionOf(req).cart.delete(String(req.body?.productId ?? ''));
    res.redirect(303, '/cart');
  });

  // The server turns the cart into an order: its reference and total are decided here, then bound into tokens.
  router.post('/orders', form, (req, res) => {
    const session = sessionOf(req);
    const lines = linesOf(session.cart);
    if (lines.length === 0) {
      res.redirect(303, '/cart?error=empty');
      return;
    }
    const order = ctx.orders.create(lines, session.customer?.digits);
    session.cart.clear();
    const method = req.body?.method === 'checkout' ? 'checkout' : 'pay-by-mobile';
    res.redirect(303, `${orderPath(order.reference)}/${method}`);
  });

  return router;
}
