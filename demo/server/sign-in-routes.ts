import express, { Router } from 'express';
import { ProxyError, maskPhone } from '../../src/proxy/index.js';
import { html } from '../../src/sandbox/html.js';
import { formatPrice } from './catalogue.js';
import { alertBox, layout } from './layout.js';
import { type Session, sessionOf } from './sessions.js';
import { SIGN_IN_PURPOSE, type ShopContext, orderPath, signInToken } from './shop-context.js';
import { statusLabel } from './order-pages.js';

/** Why a sign-in was refused, in a sentence for the customer. */
export class SignInError extends Error {
  override readonly name = 'SignInError';
}

/**
 * Signs a session in with the proof an `<otp-verify>` gave the browser: the proxy checks it (signature,
 * expiry, purpose) and accepts it once, so a copied or replayed proof signs no one in.
 * Resolves the verified number, masked.
 */
export async function signIn(ctx: ShopContext, session: Session, proof: unknown): Promise<string> {
  if (typeof proof !== 'string' || proof.trim() === '') {
    throw new SignInError('Verify your phone number first: enter it, then the code we text you.');
  }
  let recipient: string;
  try {
    ({ recipient } = await ctx.proxy.verifyOtpProof(proof.trim(), { purpose: SIGN_IN_PURPOSE }));
  } catch (err) {
    if (err instanceof ProxyError && err.code === 'TOKEN_INVALID') {
      throw new SignInError('This verification is not valid or was already used. Verify your number again.');
    }
    throw new SignInError('We could not check your verification just now. Try again in a moment.');
  }
  session.customer = { recipient: maskPhone(recipient), digits: recipient, signedInAt: new Date() };
  return session.customer.recipient;
}

/** The sign-in page (a fresh OTP token on every render), its form's POST, the account page, sign-out. */
export function signInRoutes(ctx: ShopContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  const signInPage = async (session: Session, error?: string) => {
    const token = await signInToken(ctx);
    return layout({
      title: 'Sign in',
      session,
      elements: 'vite',
      body: html`<h1>Sign in</h1>
<p class="lead">No password: we text a code to your phone to check it is yours.</p>
${error ? alertBox(error, 'sign-in-error') : ''}
<form class="card sign-in" method="post" action="/sign-in" data-testid="sign-in-form">
  <otp-verify name="proof" required proxy="/merchant-elements" token="${token}" data-testid="otp-verify"></otp-verify>
  <button type="submit" class="button secondary" data-testid="sign-in-submit">Sign in</button>
</form>
<p class="hint">Try <code>024 000 0001</code>. The code arrives on the customer’s phone
(<a href="/sandbox/__sandbox/phone?number=233240000001" target="_blank" rel="noopener">open it ↗</a>).
Once the number shows as verified, press <strong>Sign in</strong>: the shop’s server checks the proof with the proxy.</p>`,
    });
  };

  router.get('/sign-in', async (req, res) => {
    await ctx.send(req, res, await signInPage(sessionOf(req)));
  });

  router.post('/sign-in', form, async (req, res) => {
    const session = sessionOf(req);
    try {
      await signIn(ctx, session, (req.body as Record<string, unknown> | undefined)?.proof);
    } catch (err) {
      if (!(err instanceof SignInError)) throw err;
      await ctx.send(req, res, await signInPage(session, err.message), 400);
      return;
    }
    res.redirect(303, '/account');
  });

  router.get('/account', async (req, res) => {
    const session = sessionOf(req);
    const customer = session.customer;
    if (!customer) {
      res.redirect(303, '/sign-in');
      return;
    }
    const views = await Promise.all(ctx.orders.byCustomer(customer.digits).map((o) => ctx.orders.view(o, ctx.proxy)));
    const rows = views.map(
      (v) => html`<tr><td><a href="${orderPath(v.order.reference)}">${v.order.reference}</a></td>
<td>${formatPrice(v.order.total)}</td><td><span class="status status-${v.status}">${statusLabel(v.status)}</span></td></tr>`,
    );
    const page = layout({
      title: 'Your account',
      session,
      body: html`<h1>Your account</h1>
<p class="card">Signed in as <strong data-testid="signed-in-number">${customer.recipient}</strong>,
verified by SMS at <time datetime="${customer.signedInAt.toISOString()}">${customer.signedInAt.toLocaleTimeString('en-GB')}</time>.</p>
<h2>Your orders</h2>
${rows.length
  ? html`<table class="orders"><thead><tr><th scope="col">Order</th><th scope="col">Total</th><th scope="col">Status</th></tr></thead><tbody>${rows}</tbody></table>`
  : html`<p class="muted">No orders yet. <a href="/">Browse the shop</a>.</p>`}
<form method="post" action="/sign-out"><button type="submit" class="button secondary" data-testid="sign-out">Sign out</button></form>`,
    });
    await ctx.send(req, res, page);
  });

  router.post('/sign-out', (req, res) => {
    delete sessionOf(req).customer;
    res.redirect(303, '/');
  });

  return router;
}
