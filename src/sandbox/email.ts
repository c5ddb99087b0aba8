import { Router } from 'express';
import { EMAIL_MAX_RECIPIENTS, emailSendRequest, emailSendResponse } from '../provider/schemas/index.js';
import { sendError } from './errors.js';
import { SlidingWindowLimiter } from './email-rate-limit.js';
import { messagingRoute } from './messaging-auth.js';
import { formatPath, parseRequest, sendRefusal, type IssueClassifier } from './messaging-validation.js';
import type { OutboxEmail, SandboxState } from './state.js';

/** Any recipient at this domain makes the send fail with 502 `EMAIL_SERVICE_UNAVAILABLE` (nothing is sent). */
export const FAILING_EMAIL_DOMAIN = 'fail.sandbox.invalid';

/** Simulated length of the email rate window (scaled by timeScale). */
const RATE_WINDOW_MS = 60_000;

/** A bare address, or `Display Name <address>`, for `from`. */
const FROM_PATTERN = /^(?:[^<>@\s][^<>]*\s)?<?[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>?$/;

const classifyEmail: IssueClassifier = (issue) => {
  const field = issue.path[0];
  const isList = field === 'to' || field === 'cc' || field === 'bcc';
  if (isList && issue.path.length === 1 && issue.code === 'too_big') {
    return {
      code: 'TOO_MANY_RECIPIENTS',
      message: `${formatPath(issue.path)} has more than ${EMAIL_MAX_RECIPIENTS} recipients.`,
    };
  }
  return null;
};

/** A recipient field as an array (absent is empty). */
function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The email route. Checks credentials (the 401 names the invalid key or secret), requires
 * `x-api-version: 2025-08-01`, allows `emailRatePerMinute` requests per API key per (scaled) minute
 * (then 429 `RATE_LIMITED` with `Retry-After`), validates the record, and "schedules" the email into the
 * outbox. A recipient at `fail.sandbox.invalid` simulates the provider's 502.
 */
export function emailRouter(state: SandboxState): Router {
  const router = Router();
  const limiter = new SlidingWindowLimiter(
    state.emailHits,
    state.options.emailRatePerMinute,
    () => state.scaled(RATE_WINDOW_MS),
    () => state.now(),
  );

  router.post(
    '/v1/external/email/send',
    messagingRoute(state, 'email.send', { email: true }, (req, res, caller) => {
      const decision = limiter.take(caller.apiKey);
      if (!decision.allowed) {
        res.set('Retry-After', String(decision.retryAfterSeconds));
        return sendError(
          res,
          429,
          'RATE_LIMITED',
          `Too many emails: at most ${state.options.emailRatePerMinute} per minute. Retry in ${decision.retryAfterSeconds} s.`,
          { retryAfter: decision.retryAfterSeconds },
        );
      }
      const parsed = parseRequest(emailSendRequest, req.body, classifyEmail);
      if (!parsed.ok) return sendRefusal(res, parsed.refusal);
      const email = parsed.value;
      if (!FROM_PATTERN.test(email.from)) {
        const message = 'must be an email address or "Name <address>"';
        return sendError(res, 400, 'VALIDATION_ERROR', `Invalid request. from: ${message}`, {
          fields: [{ path: 'from', message }],
        });
      }
      const to = asList(email.to);
      const cc = asList(email.cc);
      const bcc = asList(email.bcc);
      const failing = [...to, ...cc, ...bcc].find((a) => a.toLowerCase().endsWith(`@${FAILING_EMAIL_DOMAIN}`));
      if (failing) {
        return sendError(res, 502, 'EMAIL_SERVICE_UNAVAILABLE', 'The email service is unavailable. Try again later.', {});
      }
      const entry: OutboxEmail = {
        kind: 'email',
        id: state.uuid(),
        sequenceNo: state.ulid(),
        transactionId: state.ulid(),
        from: email.from,
        to,
        cc,
        bcc,
        subject: email.subject,
        createdAt: state.now(),
      };
      if (email.text !== undefined) entry.text = email.text;
      if (email.html !== undefined) entry.html = email.html;
      state.outbox.push(entry);
      const body = emailSendResponse.parse({
        statusCode: '200',
        statusMessage: 'Email scheduled for delivery',
        transactionId: entry.transactionId,
        sequenceNo: entry.sequenceNo,
        data: null,
        timestamp: new Date(state.now()).toISOString(),
      });
      res.status(200).json(body);
    }),
  );

  return router;
}
