import { Router, type Response } from 'express';
import {
  SMS_MAX_LENGTH,
  deliveryReceiptResponse,
  smsBulkRequest,
  smsBulkResponse,
  smsQuickRequest,
  smsResendRequest,
  smsSendResponse,
  type SmsSendResult,
} from '../provider/schemas/index.js';
import { sendError } from './errors.js';
import { messagingRoute } from './messaging-auth.js';
import {
  formatPath,
  parseRequest,
  phoneIssue,
  sendRefusal,
  type IssueClassifier,
  type Refusal,
} from './messaging-validation.js';
import { dispatchSms, findSms, findSmsBySequenceNo, type SmsDraft } from './sms-dispatch.js';
import type { OutboxSms, SandboxState } from './state.js';
import { isValidNumber, networkOf } from './test-numbers.js';

/** Most messages one bulk request may carry (DESIGN: bulk limits); more is 400 `TOO_MANY_RECIPIENTS`. */
export const BULK_MAX_MESSAGES = 1_000;

/** Maps schema failures of the SMS bodies to documented codes. */
const classifySms: IssueClassifier = (issue, value) => {
  const field = issue.path[issue.path.length - 1];
  if (field === 'to') return phoneIssue(issue, value);
  if (field === 'message' && issue.code === 'too_big') {
    return { code: 'MESSAGE_TOO_LONG', message: `${formatPath(issue.path)} is longer than ${SMS_MAX_LENGTH} characters.` };
  }
  return null;
};

/** The sandbox's phone rule for one recipient (Ghanaian unless isGlobal), as a refusal. */
function phoneRefusal(to: string, isGlobal: boolean, path: (string | number)[]): Refusal | null {
  if (isValidNumber(to, isGlobal)) return null;
  const rule = isGlobal
    ? 'must be 8 to 15 digits'
    : 'must be a Ghanaian number (233 then 9 digits with a known network prefix) unless isGlobal is true';
  return {
    code: 'INVALID_PHONE_NUMBER',
    message: `${formatPath(path)} is not a valid phone number: it ${rule}.`,
    details: fieldDetails(path, rule),
  };
}

/** `details` naming one bad field (and the message index of a bulk request). */
function fieldDetails(path: (string | number)[], message: string): Record<string, unknown> {
  const details: Record<string, unknown> = { fields: [{ path: path.join('.'), message }] };
  if (typeof path[1] === 'number') details.index = path[1];
  return details;
}

/** The `data` of a send: its batches, each with its jobId and messages. */
function sendResult(batches: OutboxSms[][], senderAddress: string): SmsSendResult {
  return {
    totalBatches: batches.length,
    batches: batches.map((batch) => ({
      jobId: batch[0]!.jobId,
      messages: batch.map((m) => ({
        to: m.to,
        from: m.from,
        message: m.message,
        type: m.type,
        sequenceNo: m.sequenceNo,
        transactionId: m.transactionId,
      })),
    })),
    senderAddress,
  };
}

/** Sends one SMS (quick send or resend) and answers with the quick-send shape. */
function sendOne(state: SandboxState, res: Response, draft: SmsDraft, isGlobal: boolean, statusMessage: string): void {
  const outcome = dispatchSms(state, [draft], isGlobal);
  if (!outcome.ok) {
    sendRefusal(res, outcome.refusal);
    return;
  }
  const sms = outcome.sent[0]![0]!;
  const body = smsSendResponse.parse({
    statusCode: 201,
    statusMessage,
    transactionId: sms.transactionId,
    sequenceNo: sms.sequenceNo,
    data: sendResult(outcome.sent, sms.from),
    timestamp: new Date(state.now()).toISOString(),
  });
  res.status(200).json(body);
}

/**
 * The SMS routes: quick send, bulk send, resend and the delivery receipt. Every SMS charges one credit
 * per segment and lands in the outbox; its receipt reads `ACCEPTED` for 2 simulated seconds, then the
 * final status of the recipient's test number (`DELIVERED` for any other number).
 */
export function smsRouter(state: SandboxState): Router {
  const router = Router();

  router.post(
    '/v1/external/sms/quick',
    messagingRoute(state, 'sms.quick', {}, (req, res) => {
      const parsed = parseRequest(smsQuickRequest, req.body, classifySms);
      if (!parsed.ok) return sendRefusal(res, parsed.refusal);
      const { to, from, message, type, isGlobal } = parsed.value;
      const refusal = phoneRefusal(to, isGlobal, ['to']);
      if (refusal) return sendRefusal(res, refusal);
      sendOne(state, res, { to, from, message, type }, isGlobal, 'SMS sent successfully');
    }),
  );

  router.post(
    '/v1/external/sms/bulk',
    messagingRoute(state, 'sms.bulk', {}, (req, res) => {
      const raw = (req.body as { messages?: unknown } | undefined)?.messages;
      if (Array.isArray(raw) && raw.length > BULK_MAX_MESSAGES) {
        return sendError(
          res,
          400,
          'TOO_MANY_RECIPIENTS',
          `A bulk request carries at most ${BULK_MAX_MESSAGES} messages; this one has ${raw.length}.`,
          { maximum: BULK_MAX_MESSAGES, received: raw.length },
        );
      }
      const parsed = parseRequest(smsBulkRequest, req.body, classifySms);
      if (!parsed.ok) return sendRefusal(res, parsed.refusal);
      const { messages, isGlobal } = parsed.value;
      for (const [index, m] of messages.entries()) {
        if (m.message.length > SMS_MAX_LENGTH) {
          const path = ['messages', index, 'message'];
          return sendError(
            res,
            400,
            'MESSAGE_TOO_LONG',
            `${formatPath(path)} is longer than ${SMS_MAX_LENGTH} characters.`,
            fieldDetails(path, `must be at most ${SMS_MAX_LENGTH} characters`),
          );
        }
        const refusal = phoneRefusal(m.to, isGlobal, ['messages', index, 'to']);
        if (refusal) return sendRefusal(res, refusal);
      }
      const outcome = dispatchSms(state, messages, isGlobal);
      if (!outcome.ok) return sendRefusal(res, outcome.refusal);
      const body = smsBulkResponse.parse({
        statusCode: 201,
        statusMessage: `${messages.length} SMS queued in ${outcome.sent.length} batch(es)`,
        transactionId: state.uuid(),
        sequenceNo: null,
        data: sendResult(outcome.sent, messages[0]!.from),
        timestamp: new Date(state.now()).toISOString(),
      });
      res.status(200).json(body);
    }),
  );

  router.post(
    '/v1/external/sms/quick/:messageId/resend',
    messagingRoute(state, 'sms.resend', {}, (req, res) => {
      const parsed = parseRequest(smsResendRequest, req.body, classifySms);
      if (!parsed.ok) return sendRefusal(res, parsed.refusal);
      const messageId = String(req.params.messageId);
      const original = findSms(state, messageId);
      if (!original) return sendError(res, 404, 'NOT_FOUND', `No message with the identifier ${messageId}.`);
      const draft: SmsDraft = {
        to: original.to,
        from: original.from,
        message: parsed.value.message,
        type: original.type,
        resendOf: original.messageId,
      };
      sendOne(state, res, draft, original.isGlobal, 'SMS resent successfully');
    }),
  );

  router.get(
    '/v1/external/sms/logs/:sequenceNo',
    messagingRoute(state, 'sms.receipt', {}, (req, res) => {
      const sequenceNo = String(req.params.sequenceNo);
      const sms = findSmsBySequenceNo(state, sequenceNo);
      if (!sms) return sendError(res, 404, 'NOT_FOUND', `No message with the sequenceNo ${sequenceNo}.`);
      const body = deliveryReceiptResponse.parse({
        statusCode: '200',
        statusMessage: 'Delivery receipt retrieved',
        transactionId: sms.transactionId,
        sequenceNo: sms.sequenceNo,
        data: {
          _id: sms.id,
          clientCorrelatorId: sms.transactionId,
          consumerId: 'sandbox',
          createdAt: new Date(sms.createdAt).toISOString(),
          deliveryStatus: state.now() < sms.deliverAt ? 'ACCEPTED' : sms.finalStatus,
          gatewayId: sms.isGlobal ? 'sandbox-global' : `sandbox-${(networkOf(sms.to) ?? 'global').toLowerCase()}`,
          gatewayMessageId: Number.parseInt(sms.id.slice(-12), 16),
          ipAddress: '127.0.0.1',
          message: sms.message,
          messageId: sms.messageId,
          receiverAddress: [sms.to],
          requestDeliveryReceipt: true,
          senderAddress: sms.from,
          sequenceNo: sms.sequenceNo,
          transactionId: sms.transactionId,
        },
        timestamp: new Date(state.now()).toISOString(),
      });
      res.status(200).json(body);
    }),
  );

  return router;
}
