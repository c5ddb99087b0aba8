import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import {
  CHECKOUT_MIN_AMOUNT,
  checkoutInitializeRequest,
  checkoutSession,
  checkoutSessionList,
  checkoutStatusResult,
} from '../provider/schemas/index.js';
import { expiredPage, notFoundPage, payPage, processingPage } from './checkout-page.js';
import {
  cancelCheckout,
  createCheckout,
  findCheckout,
  isFinalCheckout,
  returnUrlOf,
  startPayment,
} from './checkout-sessions.js';
import { bearerMatches } from './credentials.js';
import { counted } from './counted.js';
import { fieldsOf, sendError } from './errors.js';
import { isWholePesewas } from './money.js';
import type { CheckoutRecord, SandboxState } from './state.js';
import { ghanaianDigits } from './test-numbers.js';

/** Currency of every session (the specification does not say; the provider is Ghanaian). */
export const CHECKOUT_CURRENCY = 'GHS';

/**
 * The checkout interface on `{base_url}` (initialize and status, behind a Bearer key) and the hosted page
 * the customer is sent to (`/checkout/:checkoutId`, plain HTML forms, no key).
 */
export function checkoutRouter(state: SandboxState): Router {
  const router = Router();
  const auth = requireBearer(state);

  router.post('/v1/checkout/initialize', counted(state, 'checkout.initialize'), auth, (req, res) => {
    const body: unknown = req.body;
    const amount = (body as { amount?: unknown } | undefined)?.amount;
    if (typeof amount === 'number' && (amount < CHECKOUT_MIN_AMOUNT || !isWholePesewas(amount))) {
      const message =
        amount <= 0
          ? 'Amount must be greater than 0'
          : amount < CHECKOUT_MIN_AMOUNT
            ? `Amount must be at least ${CHECKOUT_MIN_AMOUNT}`
            : 'Amount must have at most 2 decimal places';
      sendError(res, 400, 'INVALID_AMOUNT', message, { minimum: CHECKOUT_MIN_AMOUNT });
      return;
    }
    const parsed = checkoutInitializeRequest.safeParse(body);
    if (!parsed.success) {
      sendError(res, 400, 'VALIDATION_ERROR', 'The request is invalid.', { fields: fieldsOf(parsed.error) });
      return;
    }
    const origin = state.options.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    const record = createCheckout(state, parsed.data, origin);
    res.status(201).json(
      checkoutSession.parse({
        checkoutId: record.checkoutId,
        checkoutUrl: record.checkoutUrl,
        status: 'active',
        title: record.title,
        reference: record.reference,
        amount: record.amount,
        description: record.description,
        returnUrl: record.returnUrl,
        createdAt: iso(record.createdAt),
        expiresAt: iso(record.expiresAt),
      }),
    );
  });

  router.get('/v1/checkout/:checkoutId/status', counted(state, 'checkout.status'), auth, (req, res) => {
    const record = findCheckout(state, String(req.params.checkoutId));
    if (!record) {
      sendError(res, 404, 'NOT_FOUND', 'Checkout session not found');
      return;
    }
    const completed = record.status === 'completed';
    res.status(200).json(
      checkoutStatusResult.parse({
        checkoutId: record.checkoutId,
        status: record.status,
        amount: record.amount,
        currency: CHECKOUT_CURRENCY,
        paymentMethod: completed ? record.paymentMethod : undefined,
        transactionId: completed ? record.transactionId : undefined,
        createdAt: iso(record.createdAt),
        completedAt: record.completedAt === undefined ? undefined : iso(record.completedAt),
        expiresAt: iso(record.expiresAt),
      }),
    );
  });

  // Not in the specification: the sessions under one reference, so a proxy that lost a creation's answer
  // finds what exists (the sandbox can be told not to: `checkoutListing: false`).
  router.get('/v1/checkout/reference/:reference/sessions', counted(state, 'checkout.sessions'), auth, (req, res) => {
    if (!state.options.checkoutListing) {
      sendError(res, 404, 'NOT_FOUND', 'Resource not found');
      return;
    }
    const reference = String(req.params.reference);
    const sessions = [...state.checkouts.values()]
      .filter((r) => r.reference === reference)
      .map((r) => findCheckout(state, r.checkoutId)!)
      .map((record) => ({
        checkoutId: record.checkoutId,
        reference: record.reference,
        checkoutUrl: record.checkoutUrl,
        status: record.status,
        amount: record.amount,
        currency: CHECKOUT_CURRENCY,
        createdAt: iso(record.createdAt),
        completedAt: record.completedAt === undefined ? undefined : iso(record.completedAt),
        expiresAt: iso(record.expiresAt),
      }));
    res.status(200).json(checkoutSessionList.parse({ sessions }));
  });

  router.get('/checkout/:checkoutId', (req, res) => {
    const record = hostedSession(state, req, res);
    if (!record) return;
    if (record.status === 'pending') sendHtml(res, 200, payPage(record, actionsOf(req, record)));
    else if (record.status === 'processing') sendHtml(res, 200, processingPage(record));
    else if (record.status === 'expired') sendHtml(res, 200, expiredPage(record, returnUrlOf(record)));
    else res.redirect(303, returnUrlOf(record));
  });

  const form = express.urlencoded({ extended: false, limit: '10kb' });

  router.post('/checkout/:checkoutId/pay', form, (req, res) => {
    const record = hostedSession(state, req, res);
    if (!record) return;
    if (record.status !== 'pending') {
      res.redirect(303, pagePath(req, record));
      return;
    }
    const raw: unknown = (req.body as Record<string, unknown> | undefined)?.msisdn;
    // What the elements take, the page takes: local (024 000 0001) or international (+233…) forms.
    const msisdn = typeof raw === 'string' ? ghanaianDigits(raw) : undefined;
    if (!msisdn) {
      const error = 'Enter a Ghanaian mobile number, like 024 000 0001.';
      sendHtml(res, 400, payPage(record, actionsOf(req, record), typeof raw === 'string' ? raw : '', error));
      return;
    }
    startPayment(state, record, msisdn);
    res.redirect(303, pagePath(req, record));
  });

  router.post('/checkout/:checkoutId/cancel', form, (req, res) => {
    const record = hostedSession(state, req, res);
    if (!record) return;
    if (record.status === 'pending') cancelCheckout(state, record);
    res.redirect(303, isFinalCheckout(record.status) && record.status !== 'expired' ? returnUrlOf(record) : pagePath(req, record));
  });

  return router;
}

/** The session of a hosted-page request, or a 404 page (and undefined). */
function hostedSession(state: SandboxState, req: Request, res: Response): CheckoutRecord | undefined {
  const record = findCheckout(state, String(req.params.checkoutId));
  if (!record) sendHtml(res, 404, notFoundPage());
  return record;
}

function pagePath(req: Request, record: CheckoutRecord): string {
  return `${req.baseUrl}/checkout/${encodeURIComponent(record.checkoutId)}`;
}

function actionsOf(req: Request, record: CheckoutRecord): { pay: string; cancel: string } {
  const base = pagePath(req, record);
  return { pay: `${base}/pay`, cancel: `${base}/cancel` };
}

function sendHtml(res: Response, status: number, body: string): void {
  res.status(status).type('html').set('cache-control', 'no-store').send(body);
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function requireBearer(state: SandboxState): RequestHandler {
  return (req, res, next) => {
    if (bearerMatches(req.get('authorization'), state.options.checkoutApiKey)) {
      next();
      return;
    }
    res.set('www-authenticate', 'Bearer realm="checkout"');
    sendError(res, 401, 'UNAUTHORIZED', 'Missing or invalid API key.');
  };
}
