import { Router } from 'express';
import {
  SMS_MAX_LENGTH,
  otpGenerateRequest,
  otpGenerateResponse,
  otpValidateRequest,
  otpValidateResponse,
} from '../provider/schemas/index.js';
import { sendError } from './errors.js';
import { messagingRoute } from './messaging-auth.js';
import { parseRequest, phoneIssue, sendRefusal, type IssueClassifier, type Refusal } from './messaging-validation.js';
import { codeMatches, expiryMs, generateCode, maskCode, renderTemplate } from './otp-code.js';
import { dispatchSms } from './sms-dispatch.js';
import type { OtpRecord, SandboxState } from './state.js';
import { isValidNumber } from './test-numbers.js';

/** Why a code can no longer be validated (`details.reason` of `INVALID_OTP`). */
export type DeadOtpReason = 'EXPIRED' | 'RETRIES_EXHAUSTED' | 'USED' | 'NOT_FOUND';

/** Maps schema failures of the OTP bodies to documented codes. */
const classifyOtp: IssueClassifier = (issue, value) => {
  const field = issue.path[0];
  if (field === 'recipient') return phoneIssue(issue, value);
  if (value === undefined) return null;
  if (field === 'pinLength') return { code: 'INVALID_PIN_LENGTH', message: 'pinLength must be a whole number from 4 to 10.' };
  if (field === 'maxAmountOfValidationRetries') {
    return { code: 'INVALID_RETRIES', message: 'maxAmountOfValidationRetries must be a whole number of at least 1.' };
  }
  return null;
};

const GHANA_ONLY = 'must be a Ghanaian number (233 then 9 digits with a known network prefix): OTP is never global';

/** The refusal of a recipient that passes the schema but not the sandbox's phone rule. */
const NOT_GHANAIAN: Refusal = {
  code: 'INVALID_PHONE_NUMBER',
  message: `recipient is not a valid phone number: it ${GHANA_ONLY}.`,
  details: { fields: [{ path: 'recipient', message: GHANA_ONLY }] },
};

/** Why `record` is dead, or null while it can still be validated. */
function deadReason(state: SandboxState, record: OtpRecord): DeadOtpReason | null {
  if (record.retriesLeft <= 0) return 'RETRIES_EXHAUSTED';
  if (record.dead) return 'USED';
  if (state.now() >= record.expiresAt) return 'EXPIRED';
  return null;
}

const DEAD_MESSAGES: Record<DeadOtpReason, string> = {
  EXPIRED: 'The code has expired. Generate a new one.',
  RETRIES_EXHAUSTED: 'Too many wrong codes: this code can no longer be used. Generate a new one.',
  USED: 'The code has already been used. Generate a new one.',
  NOT_FOUND: 'No code was generated for this recipient.',
};

/**
 * The OTP routes. Generate draws a real code with the crypto RNG, sends it by SMS (template rendered,
 * one credit per segment, into the outbox with its `otpId`) and replaces any earlier code of the same
 * recipient. Its envelope `sequenceNo` is that SMS's sequenceNo, so the caller can read the delivery
 * receipt of the code. Validate accepts the live code once; wrong codes spend the retries, and a dead
 * code answers 400 `INVALID_OTP` with `details.reason`.
 */
export function otpRouter(state: SandboxState): Router {
  const router = Router();

  router.post(
    '/v1/external/generate/otp',
    messagingRoute(state, 'otp.generate', {}, (req, res) => {
      const parsed = parseRequest(otpGenerateRequest, req.body, classifyOtp);
      if (!parsed.ok) return sendRefusal(res, parsed.refusal);
      const request = parsed.value;
      if (!isValidNumber(request.recipient, false)) {
return sendRefusal(res, NOT_GHANAIAN);
      }
      const code = generateCode(request.pinType, request.pinLength);
      const text = renderTemplate(request.message, code, request.expiry);
      if (text.length > SMS_MAX_LENGTH) {
        const rule = `must be at most ${SMS_MAX_LENGTH} characters once rendered`;
        return sendError(res, 400, 'MESSAGE_TOO_LONG', `message is too long: it ${rule}.`, {
          fields: [{ path: 'message', message: rule }],
        });
      }
      const uuid = state.uuid();
      const outcome = dispatchSms(
        state,
        [{ to: request.recipient, from: request.from, message: text, type: 'OTP', otpId: uuid }],
        false,
      );
      if (!outcome.ok) return sendRefusal(res, outcome.refusal);
      const sms = outcome.sent[0]![0]!;
      state.otps.set(request.recipient, {
        uuid,
        recipient: request.recipient,
        code,
        pinType: request.pinType,
        expiresAt: state.now() + state.scaled(expiryMs(request.expiry)),
        retriesLeft: request.maxAmountOfValidationRetries,
        dead: false,
      });
      const body = otpGenerateResponse.parse({
        statusCode: '200',
        statusMessage: 'OTP generated and sent successfully',
        transactionId: sms.transactionId,
        sequenceNo: sms.sequenceNo,
        data: { uuid, code: maskCode(code) },
        timestamp: new Date(state.now()).toISOString(),
      });
      res.status(200).json(body);
    }),
  );

  router.post(
    '/v1/external/validate/otp',
    messagingRoute(state, 'otp.validate', {}, (req, res) => {
      const parsed = parseRequest(otpValidateRequest, req.body, classifyOtp);
      if (!parsed.ok) return sendRefusal(res, parsed.refusal);
      const { code, recipient } = parsed.value;
      if (!isValidNumber(recipient, false)) {
return sendRefusal(res, NOT_GHANAIAN);
      }
      const record = state.otps.get(recipient);
      const reason = record ? deadReason(state, record) : 'NOT_FOUND';
      if (!record || reason) {
        const why = reason ?? 'NOT_FOUND';
        return sendError(res, 400, 'INVALID_OTP', DEAD_MESSAGES[why], { reason: why, attemptsLeft: 0 });
      }
      if (!codeMatches(record.code, code)) {
        record.retriesLeft -= 1;
        if (record.retriesLeft <= 0) record.dead = true;
        return sendError(res, 400, 'INVALID_OTP', 'The code is not correct.', { attemptsLeft: record.retriesLeft });
      }
      record.dead = true;
      const body = otpValidateResponse.parse({
        statusCode: '200',
        statusMessage: 'OTP validated successfully',
        transactionId: state.uuid(),
        sequenceNo: null,
        data: { uuid: record.uuid, code: maskCode(record.code) },
        timestamp: new Date(state.now()).toISOString(),
      });
      res.status(200).json(body);
    }),
  );

  return router;
}
