import { Router, type RequestHandler, type Response } from 'express';
import {
  accountHolderResponse,
  GATEWAY_STATUS,
  paymentInitiateRequest,
  paymentInitiateResponse,
  paymentStatusResponse,
  type GatewayErrorEnvelope,
} from '../provider/schemas/index.js';
import { basicAuthMatches } from './credentials.js';
import { counted } from './counted.js';
import { fieldsOf, sendError, sendGatewayError } from './errors.js';
import { isWholePesewas, priceOf, toPesewas } from './money.js';
import { createPayment, findPayment, refusePayment } from './payments.js';
import type { SandboxState } from './state.js';
import { derivedName, isValidNumber, networkOf, TEST_NUMBERS } from './test-numbers.js';

/**
 * Response header that says why a gateway request was refused. The gateway's error envelope has no field
 * for a reason (statusMessage stays exactly `Bad Request`), so the sandbox puts it here for developers.
 */
export const REASON_HEADER = 'x-sandbox-reason';

/**
 * The payment gateway (`{payment_base_url}`, mounted at `/gateway`): payment initiation, status by
 * reference (referenceId or referenceNo) and account-holder lookup, behind HTTP Basic.
 */
export function gatewayRouter(state: SandboxState): Router {
  const router = Router();
  const auth = requireBasicAuth(state);

  router.post('/v1/payment', counted(state, 'payment.initiate'), auth, (req, res) => {
    const parsed = paymentInitiateRequest.safeParse(req.body);
    if (!parsed.success) {
      const reason = fieldsOf(parsed.error).map((f) => `${f.path}: ${f.message}`).join('; ');
      badRequest(res, reason);
      return;
    }
    const request = parsed.data;
    if (!isWholePesewas(request.amount)) {
      badRequest(res, 'amount: must have at most 2 decimal places');
      return;
    }
    // Past 2^53 pesewas no amount is exact, and near 1.8e306 the total overflows (found by fuzzing: a 500).
    if (!Number.isSafeInteger(toPesewas(priceOf(request.amount).totalAmount))) {
      badRequest(res, 'amount: is too large');
      return;
    }
    if (!isValidNumber(request.msisdn, false)) {
      badRequest(res, 'msisdn: must be a Ghanaian mobile number (233 and 9 digits, known network)');
      return;
    }
    if (state.paymentsByNo.has(request.referenceNo)) {
      badRequest(res, 'referenceNo: already used by another payment');
      return;
    }
    const test = TEST_NUMBERS[request.msisdn];
    if (test?.refusedAtInitiation) {
      refusePayment(state, request, 'INSUFFICIENT_FUNDS');
      sendError(res, 400, 'INSUFFICIENT_FUNDS', 'Customer has insufficient funds');
      return;
    }
    const record = createPayment(state, request);
    res.status(200).json(
      paymentInitiateResponse.parse({
        statusCode: GATEWAY_STATUS.PENDING,
        statusMessage: 'PENDING',
        transactionId: record.transactionId,
        data: {
          amount: record.amount,
          charge: record.charge,
          totalAmount: record.totalAmount,
          referenceId: record.referenceId,
        },
        links: [{ rel: 'status', href: statusPath(record.referenceId) }],
      }),
    );
  });

  router.get('/v1/payment/:reference/status', counted(state, 'payment.status'), auth, (req, res) => {
    const record = findPayment(state, String(req.params.reference), state.options.statusReference);
    if (!record) {
      sendGatewayError(res, GATEWAY_STATUS.NOT_FOUND, 'Transaction not found');
      return;
    }
    res.status(200).json(
      paymentStatusResponse.parse({
        statusCode: GATEWAY_STATUS.SUCCESSFUL,
        statusMessage: 'Successful',
        transactionId: record.transactionId,
        data: {
          reference: record.referenceNo,
          status: record.status,
          amount: record.amount,
          charge: record.charge,
          totalAmount: record.totalAmount,
          payee: record.payee,
          payer: record.payer,
          narration: record.narration,
          msisdn: record.msisdn,
          completedAt: record.completedAt === null ? null : new Date(record.completedAt).toISOString(),
        },
        links: [{ rel: 'self', href: statusPath(record.referenceId) }],
      }),
    );
  });

  router.get('/v1/accountholders/:accountHolderId', counted(state, 'payment.accountHolder'), auth, (req, res) => {
    const msisdn = String(req.params.accountHolderId);
    const test = TEST_NUMBERS[msisdn];
    const network = test?.network ?? networkOf(msisdn);
    const accountName = test ? test.accountName : isValidNumber(msisdn, false) ? derivedName(msisdn) : null;
    if (accountName === null || network === null) {
      sendGatewayError(res, GATEWAY_STATUS.NOT_FOUND, 'Account holder not found');
      return;
    }
    res.status(200).json(
      accountHolderResponse.parse({
        statusCode: GATEWAY_STATUS.SUCCESSFUL,
        statusMessage: 'Successful',
        transactionId: state.ulid(),
        sequenceNo: state.ulid(),
        data: { accountName, msisdn, network },
        links: [{ rel: 'self', href: `/v1/accountholders/${encodeURIComponent(msisdn)}` }],
      }),
    );
  });

  router.use(auth, (_req, res) => {
    sendGatewayError(res, GATEWAY_STATUS.NOT_FOUND, 'Resource not found');
  });
  return router;
}

/** Path of a payment's status, relative to `{payment_base_url}`. */
function statusPath(referenceId: string): string {
  return `/v1/payment/${encodeURIComponent(referenceId)}/status`;
}

function requireBasicAuth(state: SandboxState): RequestHandler {
  const { paymentUsername, paymentPassword } = state.options;
  return (req, res, next) => {
    if (basicAuthMatches(req.get('authorization'), paymentUsername, paymentPassword)) {
      next();
      return;
    }
    res.set('www-authenticate', 'Basic realm="payment-gateway", charset="UTF-8"');
    sendGatewayError(res, GATEWAY_STATUS.UNAUTHORIZED, 'Unauthorized');
  };
}

function badRequest(res: Response, reason: string): void {
  // Header values must be printable ASCII on one line.
  res.set(REASON_HEADER, reason.replace(/[^\x20-\x7e]/g, '?').slice(0, 500));
  const status: GatewayErrorEnvelope['statusCode'] = GATEWAY_STATUS.BAD_REQUEST;
  sendGatewayError(res, status, 'Bad Request');
}
