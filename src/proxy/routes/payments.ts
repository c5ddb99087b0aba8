import type { Request, Router } from 'express';
import { PROXY_PATHS, paymentCreateRequest } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { parseInput, ProxyError } from '../errors.js';
import { withToken } from '../middleware/require-token.js';
import { createPayment } from '../payments/create-payment.js';
import type { OrderRecord } from '../payments/attempts.js';
import { readJson } from '../payments/json-record.js';
import { KEYS, subject } from '../payments/keys.js';
import { assertSameTerms } from '../payments/order-terms.js';
import { isFinalPaymentStatus, toPaymentSnapshot, type PaymentRecord } from '../payments/payment-record.js';
import { normaliseLocalPhone } from '../phone.js';
import type { Relay } from '../relay/relay.js';
import { serveEvents } from '../relay/serve-events.js';
import type { PaymentClaims } from '../tokens/claims.js';
import { clientIp, clientKey } from '../client-address.js';
import { sendJson } from '../respond.js';

/**
 * POST /payments (start or rejoin the order's payment), GET /payments/:reference (snapshot) and
 * GET /payments/:reference/events (SSE), all with a payment-scope token. Amount, reference, payee and
 * narration come from the token, never from the browser; the browser gives only the paying number.
 */
export function paymentsRoutes(router: Router, ctx: ProxyContext, relay: Relay): void {
  router.post(PROXY_PATHS.payments, withToken(ctx, 'payment', async (req, res, claims) => {
    const body = parseInput(paymentCreateRequest, req.body);
    const { digits } = normaliseLocalPhone(body.msisdn, ctx.config.defaultCountry);
    if (claims.msisdn !== undefined && claims.msisdn !== digits) {
      throw new ProxyError('INVALID_INPUT', 'Some fields are not valid.', {
        fields: [{ path: 'msisdn', message: 'must be the number this payment is for' }],
      });
    }
    const snapshot = await createPayment(ctx, relay, claims, digits);
    sendJson(res, 202, snapshot);
  }));

  router.get('/payments/:reference', withToken(ctx, 'payment', async (req, res, claims) => {
    const record = await ownedPayment(ctx, relay, claims, req);
    relay.payments.tracker.look(record);
    sendJson(res, 200, toPaymentSnapshot(record));
  }));

  router.get('/payments/:reference/events', withToken(ctx, 'payment', async (req, res, claims) => {
    const record = await ownedPayment(ctx, relay, claims, req);
    const tracker = relay.payments.tracker;
    tracker.look(record);
    serveEvents(ctx, relay, req, res, {
      subject: subject.payment(record.reference),
      client: `${claims.jti}|${clientIp(req)}`,
      address: clientKey(req, ctx.config.ipv6PrefixLength),
      read: async () => {
        const current = await tracker.read(record.reference);
        if (!current) return null;
        const final = isFinalPaymentStatus(current.status);
        if (!final) tracker.track(current.reference);
        return { seq: current.seq, snapshot: toPaymentSnapshot(current), final };
      },
    });
  }));

}

/**
 * The attempt named in the path, when it belongs to the token's order; NOT_FOUND otherwise (either way).
 * A token whose terms differ from the order's is refused (`ORDER_CHANGED`): it reads no other price's payment.
 */
async function ownedPayment(ctx: ProxyContext, relay: Relay, claims: PaymentClaims, req: Request): Promise<PaymentRecord> {
  const reference = String(req.params.reference ?? '');
  const record = reference ? await relay.payments.tracker.read(reference) : null;
  if (!record || record.orderReference !== claims.referenceNo) {
    throw new ProxyError('NOT_FOUND', 'No such payment.');
  }
  assertSameTerms(await readJson<OrderRecord>(ctx.store, KEYS.order(claims.referenceNo)), claims);
  return record;
}
