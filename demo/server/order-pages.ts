import { Router } from 'express';
import { html, RawHtml } from '../../src/sandbox/html.js';
import { PROMPT_LIFETIME_SECONDS } from '../../src/sandbox/test-numbers.js';
import { formatPrice } from './catalogue.js';
import { alertBox, layout } from './layout.js';
import type { PaymentSnapshot } from '../../src/protocol/index.js';
import type { Order, OrderLine, OrderStatus, OrderView } from './orders.js';
import { sessionOf } from './sessions.js';
import { type ShopContext, checkoutToken, orderPath, paymentToken } from './shop-context.js';

/** Seconds between the order page's reads of its own status while a payment is in progress (no reload). */
export const ORDER_WATCH_SECONDS = 2;

const STATUS_LABELS: Record<OrderStatus, string> = {
  unpaid: 'Awaiting payment',
  pending: 'Payment in progress',
  checking: 'Checking the payment',
  paid: 'Paid',
  failed: 'Payment failed',
  cancelled: 'Payment declined',
  expired: 'Checkout expired',
  'timed-out': 'No answer in time',
};

/** An order status in words. */
export function statusLabel(status: OrderStatus): string {
  return STATUS_LABELS[status];
}

/** What a customer paid by mobile money: the network's charge on top of the goods, in cedis. */
export interface Charged {
  charge: number;
  totalAmount: number;
}

/**
 * The lines of an order or a cart as a table, with the total; for an order paid by mobile money with a
 * charge, the charge and the total paid, which is what the customer's phone took.
 */
export function linesTable(lines: readonly OrderLine[], total: number, actions?: (line: OrderLine) => RawHtml, paid?: Charged | null): RawHtml {
  const rows = lines.map(
    (l) => html`<tr data-testid="line-${l.product.id}">
  <td><span aria-hidden="true">${l.product.emoji}</span> ${l.product.name}</td>
  <td class="num">${l.quantity}</td><td class="num">${formatPrice(l.total)}</td>
  ${actions ? html`<td>${actions(l)}</td>` : ''}
</tr>`,
  );
  return html`<table class="lines">
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Qty</th><th scope="col" class="num">Price</th>${actions ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead>
<tbody>${rows}</tbody>
<tfoot><tr><th scope="row" colspan="2">${paid ? 'Goods' : 'Total'}</th><td class="num" data-testid="order-total">${formatPrice(total)}</td>${actions ? html`<td></td>` : ''}</tr>
${paid
  ? html`<tr><th scope="row" colspan="2">Network charge</th><td class="num" data-testid="order-charge">${formatPrice(Math.round(paid.charge * 100))}</td></tr>
<tr><th scope="row" colspan="2">Total paid</th><td class="num" data-testid="order-paid-total">${formatPrice(Math.round(paid.totalAmount * 100))}</td></tr>`
  : ''}</tfoot>
</table>`;
}

/**
 * The ways to pay an order that are still open, as links: both, or for an order whose mobile-money attempts are
 * spent the hosted checkout and a new order of the same goods (the cart filled again).
 */
function payLinks(order: Order, spent: boolean): RawHtml {
  const path = orderPath(order.reference);
  return html`<div class="actions">
  ${spent ? '' : html`<a class="button primary" href="${path}/pay-by-mobile" data-testid="pay-by-mobile-link">Pay with mobile money</a>`}
  <a class="button ${spent ? 'primary' : 'secondary'}" href="${path}/checkout" data-testid="checkout-link">Pay on the checkout page</a>
  ${spent ? reorderButton(order) : ''}
</div>`;
}

/** A new order of the same goods: the button fills the cart with them again (the customer chooses how to pay there). */
export function reorderButton(order: Order): RawHtml {
  return html`<form method="post" action="${orderPath(order.reference)}/reorder" class="inline-form">
  <button type="submit" class="button secondary" data-testid="reorder">Start a new order with these goods</button></form>`;
}

/** A time of day as the shop writes it (the server's clock and zone: this is a demo on one machine). */
const timeOfDay = (iso: string) => html`<time datetime="${iso}">${new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' })}</time>`;

/** What the order page says while a mobile-money prompt waits: where it went, when, and until when it can be approved. */
function promptNote(payment: PaymentSnapshot): RawHtml {
  const to = payment.msisdn ? html` on <span class="nowrap">${payment.msisdn}</span>` : '';
  const sent = payment.sentAt ? html`, sent at ${timeOfDay(payment.sentAt)}` : '';
  const until = payment.promptExpiresAt
    ? html` It can be approved until ${timeOfDay(payment.promptExpiresAt)}; after that the network ends it.`
    : '';
  return html`Waiting for the customer to approve the payment on their phone${to}${sent}.${until} Declining it there ends it at once.`;
}

/** What the server read of the order's payment, shown plainly (this is a demo of where the truth lives). */
function serverRecord(view: OrderView): RawHtml {
  const { payment, checkout } = view;
  const failure = payment?.failureCode ? html` (${payment.failureCode.toLowerCase().replaceAll('_', ' ')})` : '';
  return html`<section class="card server-record" aria-labelledby="server-record-title">
<h2 id="server-record-title">What the shop’s server knows</h2>
<dl>
  <dt>Mobile money</dt>
  <dd data-testid="payment-status">${payment
    ? html`${payment.status}${failure}: attempt ${payment.attempt} (<code>${payment.reference}</code>),
      ${formatPrice(Math.round(payment.totalAmount * 100))} including a charge of ${formatPrice(Math.round(payment.charge * 100))}`
    : 'no payment yet'}</dd>
  <dt>Hosted checkout</dt>
  <dd data-testid="checkout-status">${checkout ? html`${checkout.status} (<code>${checkout.checkoutId}</code>)` : 'no checkout yet'}</dd>
</dl>
<p class="muted small">Read on the server: the proxy’s <code>hooks.onPaymentUpdate</code> and <code>hooks.onCheckoutUpdate</code>
record each change, and <code>proxy.payments.get</code> / <code>proxy.checkouts.get</code> give the latest status. The
browser’s word is never taken for it.</p>
</section>`;
}

/** The order page, the two payment pages (each mints a fresh token bound to the order on render). */
export function orderRoutes(ctx: ShopContext): Router {
  const router = Router();

  router.get('/orders/:reference', async (req, res) => {
    const order = ctx.orders.get(req.params.reference);
    if (!order) {
      await ctx.send(req, res, notFoundPage(req.params.reference), 404);
      return;
    }
    const view = await ctx.orders.view(order, ctx.proxy);
    const { payment, checkout } = view;
    // Back from the hosted page (its return URL, to which the provider adds `checkoutId`), the checkout's
    // outcome may not be read yet: say that, not "awaiting payment", until it is.
    const back = typeof req.query['checkoutId'] === 'string' && (checkout?.status === 'pending' || checkout?.status === 'processing');
    const status = view.status === 'unpaid' && back ? 'checking' : view.status;
    const watching = status === 'pending' || status === 'checking';
    const byCheckout = checkout?.status === 'processing' || (back && payment?.status !== 'PENDING');
    const page = layout({
      title: `Order ${order.reference}`,
      session: sessionOf(req),
      // Back from the hosted page, the shop's script also closes the page if it is the element's popup.
      elements: watching || typeof req.query['checkoutId'] === 'string' ? 'vite' : 'none',
      body: html`<h1>Order <span data-testid="order-reference">${order.reference}</span></h1>
<p class="status-banner status-${status}" data-testid="order-status" data-status="${status}" role="status"${watching ? html` data-watch-seconds="${ORDER_WATCH_SECONDS}"` : ''}>${statusLabel(status)}</p>
<div id="order-details">
${watching
  ? html`<p data-testid="order-waiting">${byCheckout
      ? 'The checkout page is finishing the payment: its result is on its way from the provider.'
      : payment
        ? promptNote(payment)
        : 'Waiting for the customer to approve the payment on their phone.'} This page updates by itself.</p>`
  : ''}
${view.status === 'paid' ? html`<p>Thank you! Your goods will be ready for collection at the Makola stall tomorrow.</p>` : ''}
${view.spent && view.status !== 'paid' && !watching
  ? html`<p data-testid="order-spent">This order has no mobile money attempts left. Pay it on the checkout page, or start a new
order with the same goods.</p>`
  : ''}
${linesTable(order.lines, order.total, undefined, view.status === 'paid' && payment?.status === 'COMPLETED' && payment.charge > 0 ? payment : null)}
${view.status === 'paid' || watching ? '' : payLinks(order, view.spent)}
${serverRecord(view)}
</div>`,
    });
    await ctx.send(req, res, page);
  });

  router.get('/orders/:reference/pay-by-mobile', async (req, res) => {
    const order = ctx.orders.get(req.params.reference);
    if (!order) return ctx.send(req, res, notFoundPage(req.params.reference), 404);
    const view = await ctx.orders.view(order, ctx.proxy);
    // Paid, or mobile money can do nothing more for it: the order page offers what is still possible.
    if (view.status === 'paid' || view.spent) return res.redirect(303, orderPath(order.reference));
    const session = sessionOf(req);
    const token = await paymentToken(ctx, order);
    // The proxy refuses this way while the other is under way (ORDER_IN_OTHER_PAYMENT): say so before a try.
    const other = view.checkout?.status === 'processing'
      ? alertBox('This order is being paid on the checkout page. Finish there, or start a new order.', 'order-in-other-payment')
      : '';
    const page = layout({
      title: `Pay ${order.reference}`,
      session,
      elements: 'vite',
      body: html`<h1>Pay with mobile money</h1>
<p class="lead">Order <strong>${order.reference}</strong>: ${formatPrice(order.total)}.</p>
${other}
<div class="card">
  <pay-by-mobile proxy="/merchant-elements" token="${token}" value="${session.customer?.digits ?? ''}"
    data-order-url="${orderPath(order.reference)}" data-testid="pay-by-mobile"></pay-by-mobile>
</div>
<p class="hint">Try <code>024 000 0001</code> (completes), <code>024 000 0002</code> (insufficient funds),
<code>020 000 0003</code> (declined) or <code>024 000 0005</code> (waits for you; its prompt expires unanswered after
${PROMPT_LIFETIME_SECONDS['MTN']} s). Approve or decline on the customer’s phone. When the payment completes you go
to the <a href="${orderPath(order.reference)}">order page</a>, which shows what the server knows.</p>
${linesTable(order.lines, order.total)}
<p><a href="${orderPath(order.reference)}/checkout">Pay on the checkout page instead</a></p>`,
    });
    await ctx.send(req, res, page);
  });

  router.get('/orders/:reference/checkout', async (req, res) => {
    const order = ctx.orders.get(req.params.reference);
    if (!order) return ctx.send(req, res, notFoundPage(req.params.reference), 404);
    const view = await ctx.orders.view(order, ctx.proxy);
    if (view.status === 'paid') return res.redirect(303, orderPath(order.reference));
    const token = await checkoutToken(ctx, order);
    // The proxy refuses this way while a prompt may still be approved (ORDER_IN_OTHER_PAYMENT): say so, and until when.
    const until = view.payment?.promptExpiresAt ? ` It can be approved until ${timeOfDay(view.payment.promptExpiresAt)}; then this page can take the order.` : '';
    const other = view.payment?.status === 'PENDING'
      ? html`<p class="alert" role="alert" data-testid="order-in-other-payment">This order is being paid by mobile money: approve
the prompt on the phone, or decline it there.${new RawHtml(until)}</p>`
      : '';
    const page = layout({
      title: `Checkout ${order.reference}`,
      session: sessionOf(req),
      elements: 'vite',
      body: html`<h1>Pay on the checkout page</h1>
<p class="lead">Order <strong>${order.reference}</strong>: ${formatPrice(order.total)}. The provider’s secure page asks
for your mobile money number, then brings you back to your order.</p>
${other}
<div class="card">
  <fieldset class="checkout-mode" data-testid="checkout-mode">
    <legend>Open the checkout page</legend>
    <label><input type="radio" name="checkout-mode" value="redirect" checked> in this tab</label>
    <label><input type="radio" name="checkout-mode" value="popup"> in a popup (it closes itself when you are done)</label>
  </fieldset>
  <checkout-button proxy="/merchant-elements" token="${token}" data-order-url="${orderPath(order.reference)}"
    data-testid="checkout-button">Pay ${formatPrice(order.total)} securely</checkout-button>
</div>
${linesTable(order.lines, order.total)}
${view.spent ? '' : html`<p><a href="${orderPath(order.reference)}/pay-by-mobile">Pay with mobile money instead</a></p>`}`,
    });
    await ctx.send(req, res, page);
  });

  // A new order of the same goods: they go back into the visitor's cart, where they choose how to pay.
  router.post('/orders/:reference/reorder', (req, res) => {
    const order = ctx.orders.get(req.params.reference);
    if (!order) return void res.redirect(303, '/cart');
    const { cart } = sessionOf(req);
    for (const line of order.lines) cart.set(line.product.id, line.quantity);
    res.redirect(303, '/cart');
  });

  return router;
}

function notFoundPage(reference: string): string {
  return layout({
    title: 'Order not found',
    body: html`<h1>Order not found</h1>${alertBox(`There is no order ${reference}.`, 'order-not-found')}<p><a href="/">Back to the shop</a></p>`,
  });
}
