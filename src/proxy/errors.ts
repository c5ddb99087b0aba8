import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ProxyErrorCode } from '../protocol/index.js';
import { ERROR_STATUS } from '../protocol/statuses.js';
import {
  ProviderAuthenticationError,
  type ProviderError,
  ProviderMalformedResponseError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  isProviderError,
} from '../provider/errors.js';
import { OUTAGE_ANSWER, requestLog } from './logger.js';
import { outageLogOf, registerOutageLog, reportOutage } from './outage-log.js';
import { sendJson } from './respond.js';
import { StoreUnavailableError } from './store/store-error.js';

/** The HTTP status the proxy answers with each error code. */
export function statusFor(code: ProxyErrorCode): number {
  return ERROR_STATUS[code];
}

/**
 * An error the proxy answers to the browser: a stable code, a human sentence of our own (never upstream
 * text), details for the element (`fields`, `retryAfter`, `attemptsLeft`, `retryable`) and the status.
 */
export class ProxyError extends Error {
  override readonly name = 'ProxyError';
  readonly code: ProxyErrorCode;
  readonly details: Record<string, unknown>;
  readonly status: number;

  constructor(code: ProxyErrorCode, message: string, details: Record<string, unknown> = {}, status: number = statusFor(code)) {
    // An answer, not a fault: thrown on every refusal (a wrong code, a limit), caught by the error handler,
    // never logged with a stack. Capturing one cost several microseconds under the async frames of a route.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.code = code;
    this.details = details;
    this.status = status;
  }
}

/** A RATE_LIMITED error with `retryAfter` in whole seconds (at least 1). */
export function rateLimited(retryAfterMs: number, message = 'Too many requests. Try again later.'): ProxyError {
  return new ProxyError('RATE_LIMITED', message, { retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
}

/** Validates a value with a zod schema, or throws INVALID_INPUT naming each bad field. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const fields = result.error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: 'is not allowed' }));
    }
    return [{ path: path || '(body)', message: issue.message }];
  });
  return raise('INVALID_INPUT', 'Some fields are not valid.', { fields });
}

function raise(code: ProxyErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new ProxyError(code, message, details);
}

/** body-parser's errors carry a `type`. */
function bodyParserError(err: unknown): ProxyError | null {
  const type = (err as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new ProxyError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (type === 'entity.parse.failed') {
    return new ProxyError('INVALID_INPUT', 'The request body is not valid JSON.', {
      fields: [{ path: '(body)', message: 'is not valid JSON' }],
    });
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ProxyError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.');
  }
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set') {
    return new ProxyError('INVALID_INPUT', 'The request body could not be read.');
  }
  return null;
}

/**
 * A 4xx the HTTP layer raised without a body-parser `type`: a body that claims gzip but does not inflate,
 * a path parameter that does not percent-decode (found by fuzzing: both were answered 500).
 */
function isClientHttpError(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  return err instanceof Error && typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Maps anything thrown to a ProxyError. Provider errors: credentials refused upstream → UPSTREAM_ERROR
 * with no detail (logged in full at error level); 5xx, timeouts, network failures, an open circuit or a
 * malformed answer → UPSTREAM_UNAVAILABLE (retryable); upstream 429 → RATE_LIMITED; an upstream
 * INVALID_PHONE_NUMBER → INVALID_PHONE_NUMBER; any other 4xx of the HTTP layer → INVALID_INPUT;
 * anything else → INTERNAL (logged).
 */
export function toProxyError(err: unknown, logger: Logger): ProxyError {
  if (err instanceof ProxyError) return err;
  const parsed = bodyParserError(err);
  if (parsed) return parsed;
  if (isProviderError(err)) return fromProviderError(err, logger);
  if (isClientHttpError(err)) return new ProxyError('INVALID_INPUT', 'The request could not be read.');
  if (err instanceof StoreUnavailableError) {
    reportOutage(logger, 'store', 'error', { store: { operation: err.operation, reason: (err.cause as Error | undefined)?.message } }, 'the store is unavailable');
    return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', { retryable: true });
  }
  logger.error({ err: describeUnknown(err) }, 'unexpected error in the merchant proxy');
  return new ProxyError('INTERNAL', 'Something went wrong. Try again in a moment.');
}

/**
 * The kind of outage a provider failure belongs to: its operation's family (`payments`, `otp`, `checkout`…), so
 * an outage of the payment gateway is told once, not once per refused request (DESIGN: logs).
 */
function outageKind(what: string, err: ProviderError): string {
  return `provider-${what}:${err.operation.split('.')[0]}`;
}

function fromProviderError(err: ProviderError, logger: Logger): ProxyError {
  const where = { operation: err.operation, status: err.status, errorCode: err.code };
  if (err instanceof ProviderAuthenticationError) {
    logger.error(
      { upstream: { ...where, message: err.message, body: err.raw } },
      'the provider refused our credentials: check the proxy configuration',
    );
    return new ProxyError('UPSTREAM_ERROR', 'The service could not complete this request.');
  }
  if (err instanceof ProviderUnavailableError || err instanceof ProviderMalformedResponseError) {
    const reason = err instanceof ProviderUnavailableError ? err.reason : 'malformed';
    reportOutage(logger, outageKind('unavailable', err), 'warn', { upstream: { ...where, reason } }, 'the provider is unavailable');
    return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', {
      retryable: true,
    });
  }
  if (err instanceof ProviderRateLimitedError) {
    reportOutage(logger, outageKind('rate-limiting', err), 'warn', { upstream: where }, 'the provider is rate limiting us');
    const retryAfter = Math.max(1, Math.ceil(err.retryAfter ?? 60));
    return new ProxyError('RATE_LIMITED', 'Too many requests. Try again later.', { retryAfter });
  }
  if (err.code === 'INVALID_PHONE_NUMBER') {
    return new ProxyError('INVALID_PHONE_NUMBER', 'This phone number is not valid.');
  }
  if (err.status >= 500) {
    reportOutage(logger, outageKind('failed', err), 'warn', { upstream: where }, 'the provider failed');
    return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', {
      retryable: true,
    });
  }
  logger.error({ upstream: where }, 'the provider refused a request the proxy built');
  return new ProxyError('UPSTREAM_ERROR', 'The service could not complete this request.');
}

/** The parts of an unknown error worth logging (not every enumerable property: they may hold secrets). */
function describeUnknown(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { type: typeof err };
}

/** Writes a ProxyError as `{ error, message, details }`, with `Retry-After` when details.retryAfter is set. */
export function sendError(res: Response, error: ProxyError): void {
  const retryAfter = error.details.retryAfter;
  if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  // An outage's refusal: told by the outage log, so its access line is an ordinary one (see accessLogger).
  if (error.code === 'UPSTREAM_UNAVAILABLE') (res as Response & { [OUTAGE_ANSWER]?: boolean })[OUTAGE_ANSWER] = true;
  sendJson(res, error.status, { error: error.code, message: error.message, details: error.details });
}

/**
 * Wraps a route handler so that its refusals (a ProxyError thrown) are answered on the spot: the same
 * answer the error handler gives them, without passing the error down every later route of the router
 * (each matched against the path on the way). Anything else still goes to the error handler.
 */
export function answering(handler: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      await handler(req, res);
    } catch (err) {
      answerOrPass(err, res, next);
    }
  };
}

/** Answers a refusal (a ProxyError, while nothing is sent yet) at once; passes anything else to the error handler. */
export function answerOrPass(err: unknown, res: Response, next: NextFunction): void {
  if (err instanceof ProxyError && !res.headersSent) sendError(res, err);
  else next(err);
}

/** The one error handler of the proxy router: every error becomes the protocol's error shape. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    // An error of ours is answered as it is.
    if (err instanceof ProxyError) {
      sendError(res, err);
      return;
    }
    // Logged naming the request as its access line does; an outage through the proxy's outage log (told once).
    const log = requestLog(logger, req);
    const outages = outageLogOf(logger);
    if (outages) registerOutageLog(log, outages);
    sendError(res, toProxyError(err, log));
  };
}

/** The JSON 404 of the proxy router, last before the error handler. */
export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, new ProxyError('NOT_FOUND', 'There is nothing at this address.'));
}
