import express, { Router } from 'express';
import { html } from '../../src/sandbox/html.js';
import { formatPrice, toCedis } from './catalogue.js';
import { layout } from './layout.js';
import { linesOf } from './orders.js';
import { type Session, sessionOf } from './sessions.js';
import { type ShopContext, checkoutToken, orderPath, paymentToken, signInToken } from './shop-context.js';
import { SignInError, signIn } from './sign-in-routes.js';

/** What an embedding demo's order holds: a tote bag and a tin of shea butter. */
const DEMO_BASKET = new Map([
  ['adinkra-tote', 1],
  ['shea-butter', 1],
]);

/** The single-page apps, by path under /embed/: their entry module (served by Vite from demo/). */
const SPA_PAGES = {
  react: { title: 'React', module: '/react/main.tsx' },
  vue: { title: 'Vue', module: '/vue/main.ts' },
} as const;

function demoOrder(ctx: ShopContext, session: Session) {
  return ctx.orders.create(linesOf(DEMO_BASKET), session.customer?.digits);
}

/**
 * The embedding demos: the index, the plain-HTML page on the CDN build, the React and Vue pages, and the
 * small JSON API the single-page apps get their tokens from.
 */
export function embedRoutes(ctx: ShopContext): Router {
  // Strict, so `/embed/react` (redirected) and `/embed/react/` (the app, whose relative URLs need the slash) differ.
  const router = Router({ strict: true });

  router.get('/embed', async (req, res) => {
    const page = layout({
      title: 'Embedding demos',
      session: sessionOf(req),
      body: html`<h1>The same elements, three ways</h1>
<p class="lead">Each page below signs a customer in with <code>&lt;otp-verify&gt;</code> and pays a small demo order
with <code>&lt;pay-by-mobile&gt;</code> or <code>&lt;checkout-button&gt;</code>, through the same proxy.</p>
<ul class="embed-list">
  <li class="card"><h2><a href="/embed/cdn" data-testid="embed-cdn-link">Plain HTML and a <code>&lt;script&gt;</code> tag</a></h2>
    <p>The package’s loader (<code>cdn/loader.js</code>) on a server-rendered page: it fetches each element the page shows; tokens sit in the attributes, no bundler.</p></li>
  <li class="card"><h2><a href="/embed/react/" data-testid="embed-react-link">React</a></h2>
    <p>The typed wrappers from <code>merchant-elements/react</code>, with <code>onOtpVerified</code> and <code>onPaymentCompleted</code> callbacks. Tokens come from a small JSON API.</p></li>
  <li class="card"><h2><a href="/embed/vue/" data-testid="embed-vue-link">Vue</a></h2>
    <p>The custom elements used directly in a Vue template, with <code>isCustomElement</code> configured in <code>@vitejs/plugin-vue</code>.</p></li>
</ul>`,
    });
    await ctx.send(req, res, page);
  });

  router.get('/embed/cdn', async (req, res) => {
    const session = sessionOf(req);
    const order = demoOrder(ctx, session);
    const [otp, payment, checkout] = await Promise.all([signInToken(ctx), paymentToken(ctx, order), checkoutToken(ctx, order)]);
    const page = layout({
      title: 'Plain HTML (CDN loader)',
      session,
      elements: 'cdn',
      body: html`<h1>Plain HTML and a <code>&lt;script&gt;</code> tag</h1>
<p class="lead">This page loads <code>&lt;script type="module" src="/cdn/loader.js"&gt;</code> and nothing else: the
loader fetches the module of each element it finds on the page, and the server put a fresh token in each
element’s <code>token</code> attribute when it rendered the page.</p>
<section class="card"><h2>Sign in</h2>
<form class="sign-in" method="post" action="/sign-in" data-testid="sign-in-form">
  <otp-verify name="proof" required token="${otp}" data-testid="otp-verify"></otp-verify>
  <button type="submit" class="button secondary" data-testid="sign-in-submit">Sign in</button>
</form></section>
<section class="card"><h2>Pay demo order <span data-testid="order-reference">${order.reference}</span> (${formatPrice(order.total)})</h2>
<pay-by-mobile token="${payment}" data-order-url="${orderPath(order.reference)}" data-testid="pay-by-mobile"></pay-by-mobile>
<p>or</p>
<checkout-button token="${checkout}" data-order-url="${orderPath(order.reference)}" data-testid="checkout-button">Pay on the checkout page</checkout-button>
</section>
<script>
  // The elements only say what happened; the order page asks the server, which asks the proxy.
  for (const type of ['payment-completed', 'checkout-completed']) {
    document.addEventListener(type, (event) => location.assign(event.target.dataset.orderUrl));
  }
</script>`,
    });
    await ctx.send(req, res, page);
  });

  for (const [name, spa] of Object.entries(SPA_PAGES)) {
    router.get(`/embed/${name}`, (_req, res) => res.redirect(301, `/embed/${name}/`));
    router.get(`/embed/${name}/`, async (req, res) => {
      const page = layout({
        title: spa.title,
        session: sessionOf(req),
        head: html`<script type="module" src="${spa.module}"></script>`,
        body: html`<div id="app" data-testid="${name}-app"><p class="muted">Loading the ${spa.title} page…</p></div>`,
      });
      await ctx.send(req, res, page);
    });
  }

  router.use('/demo-api', demoApi(ctx));
  return router;
}

/**
 * The JSON API of the single-page demos. The server still decides everything a token binds: the SPA asks
 * for an order and gets its reference and a token, never names an amount.
 */
function demoApi(ctx: ShopContext): Router {
  const api = Router();
  api.use(express.json({ limit: '16kb' }));

  /** `POST /demo-api/orders` `{ kind: 'payment' | 'checkout' }` → `{ reference, amount, currency, orderUrl, token }`. */
  api.post('/orders', async (req, res) => {
    const kind = req.body?.kind === 'checkout' ? 'checkout' : 'payment';
    const order = demoOrder(ctx, sessionOf(req));
    const token = kind === 'checkout' ? await checkoutToken(ctx, order) : await paymentToken(ctx, order);
    res.status(201).json({
      reference: order.reference,
      amount: toCedis(order.total),
      currency: 'GHS',
      orderUrl: orderPath(order.reference),
      token,
    });
  });

  /** `POST /demo-api/otp-tokens` → `{ token }`: a sign-in OTP token. */
  api.post('/otp-tokens', async (_req, res) => {
    res.status(201).json({ token: await signInToken(ctx) });
  });

  /** `POST /demo-api/sign-in` `{ proof }` → `{ recipient }` (masked), or 400 `{ error, message }`. */
  api.post('/sign-in', async (req, res) => {
    try {
      const recipient = await signIn(ctx, sessionOf(req), req.body?.proof);
      res.json({ recipient });
    } catch (err) {
      if (!(err instanceof SignInError)) throw err;
      res.status(400).json({ error: 'SIGN_IN_REFUSED', message: err.message });
    }
  });

  api.use((_req, res) => {
    res.status(404).json({ error: 'NOT_FOUND', message: 'No such demo API route.' });
  });
  return api;
}
