import type { Request, Router } from 'express';
import { PROXY_PATHS, paymentCreateRequest } from '../../protocol/index.js';
import { clientIp, clientKey } from '../client-address.js';
import type { ProxyContext } from '../context.js';
import { parseInput, ProxyError } from '../errors.js';
import { withToken } from '../middleware/require-token.js';
import type { Order, PaymentTry } from '../order/order-record.js';
import type { Orders } from '../order/orders.js';
import { termsOf } from '../order/pay-flow.js';
import { normaliseLocalPhone } from '../phone.js';
import { serveEvents } from '../notify/serve-events.js';
import { sendJson } from '../respond.js';
import type { PaymentClaims } from '../tokens/claims.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'VOID']);

/**
 * POST /payments (start or rejoin the order's payment), GET /order (where the token's order stands),
 * GET /payments/:reference (snapshot) and GET /payments/:reference/events (SSE), all with a payment-scope
 * token. Amount, reference, payee and narration come from the token, never from the browser; the browser
 * gives only the paying number.
 */
export function paymentsRoutes(router: Router, ctx: ProxyContext, orders: Orders): void {
  router.post(PROXY_PATHS.payments, withToken(ctx, 'payment', async (req, res, claims) => {
    const body = parseInput(paymentCreateRequest, req.body);
    const { digits } = normaliseLocalPhone(body.msisdn, ctx.config.defaultCountry);
    if (claims.msisdn !== undefined && claims.msisdn !== digits) {
      throw new ProxyError('INVALID_INPUT', 'Some fields are not valid.', {
        fields: [{ path: 'msisdn', message: 'must be the number this payment is for' }],
      });
    }
    sendJson(res, 202, await orders.pay(claims, digits));
  }));

  router.get(PROXY_PATHS.order, withToken(ctx, 'payment', async (_req, res, claims) => {
    await assertSameTerms(orders, claims);
    const view = await orders.view(claims);
    if (view.payment) orders.track(claims.referenceNo);
    sendJson(res, 200, view);
  }));

  router.get('/payments/:reference', withToken(ctx, 'payment', async (req, res, claims) => {
    const found = await ownedPayment(orders, claims, req);
    orders.look(found.order, found.t);
    sendJson(res, 200, orders.queries.paymentSnapshot(found));
  }));

  router.get('/payments/:reference/events', withToken(ctx, 'payment', async (req, res, claims) => {
    const found = await ownedPayment(orders, claims, req);
    orders.look(found.order, found.t);
    const reference = found.t.reference;
    serveEvents(ctx, orders, req, res, {
      subject: `payment:${reference}`,
      client: `${claims.jti}|${clientIp(req)}`,
      address: clientKey(req, ctx.config.ipv6PrefixLength),
      read: async () => {
        const current = await orders.queries.attempt(reference);
        if (!current) return null;
        const snapshot = orders.queries.paymentSnapshot(current);
        const final = FINAL.has(snapshot.status);
        if (!final) orders.track(current.order.ref);
        return { seq: current.t.seq, snapshot, final };
      },
    });
  }));
}

/** A token whose terms differ from the order's is refused (`ORDER_CHANGED`): it reads no other price's payment. */
async function assertSameTerms(orders: Orders, claims: PaymentClaims): Promise<void> {
  const changed = await orders.queries.changedTerms(claims, termsOf(claims));
  if (changed.length > 0) {
    throw new ProxyError('ORDER_CHANGED', 'This order was changed after its payment started. Reload the page.', {
      orderReference: claims.referenceNo,
      changed,
    });
  }
}

/** The try named in the path, when it belongs to the token's order; NOT_FOUND otherwise (either way). */
async function ownedPayment(orders: Orders, claims: PaymentClaims, req: Request): Promise<{ order: Order; t: PaymentTry }> {
  const reference = String(req.params.reference ?? '');
  const found = reference ? await orders.queries.attempt(reference) : null;
  if (!found || found.order.ref !== claims.referenceNo) throw new ProxyError('NOT_FOUND', 'No such payment.');
  await assertSameTerms(orders, claims);
  return found;
}
