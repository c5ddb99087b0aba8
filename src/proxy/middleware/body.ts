import express, { type NextFunction, type Request, type Response } from 'express';
import { ProxyError } from '../errors.js';
import { deadlineOf } from './body-deadline.js';
import { HOST_RUNTIME } from '../runtime.js';

export { holdBodyToDeadline } from './body-deadline.js';

/** Largest request body the proxy reads (DESIGN: bodies). */
export const MAX_BODY_BYTES = 10 * 1024;

const jsonParser = express.json({ limit: MAX_BODY_BYTES, strict: true, type: () => true });
const rawParser = express.raw({ limit: MAX_BODY_BYTES, type: () => true });
const formParser = express.urlencoded({ limit: MAX_BODY_BYTES, extended: false, parameterLimit: 20, type: () => true });

/** How long a request body may take to arrive by default (DESIGN: bodies). */
export const BODY_TIMEOUT_MS = 10_000;

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * Ends a body read that takes longer than `timeoutMs`: a body trickled a byte at a time would otherwise
 * hold the request (and a socket) for Node's default 300 s. Answered 408 in the error shape
 * (`INVALID_INPUT`), then the connection is closed. The time counts from the request's own deadline when
 * the router started one ({@link holdBodyToDeadline}), else from here.
 */
function withDeadline(parser: Middleware, timeoutMs: number): Middleware {
  return (req, res, next) => {
    let done = false;
    const timeUp = () => {
      if (done) return;
      done = true;
      res.setHeader('connection', 'close');
      res.once('finish', () => req.socket.destroy());
      next(new ProxyError('INVALID_INPUT', 'The request body took too long to arrive.', {}, 408));
    };
    const deadline = deadlineOf(req);
    if (deadline?.expired) {
      timeUp();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    if (deadline) deadline.onExpiry = timeUp;
    else {
      timer = HOST_RUNTIME.timeout(timeUp, timeoutMs);
      timer.unref();
    }
    parser(req, res, (err?: unknown) => {
      if (deadline) deadline.onExpiry = undefined;
      if (done) return;
      done = true;
      clearTimeout(timer);
      next(err);
    });
  };
}

/**
 * Browser bodies: POSTs must be `application/json` (415 otherwise), at most 10 kB (413), valid JSON
 * (400 INVALID_INPUT), arriving within `timeoutMs` (408). Unknown fields are refused later by the routes'
 * strict schemas.
 */
export function jsonBodies(timeoutMs = BODY_TIMEOUT_MS) {
  const parse = withDeadline(jsonParser, timeoutMs);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') {
      next();
      return;
    }
    if (!isJson(req.get('content-type'))) {
      next(new ProxyError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json).'));
      return;
    }
    parse(req, res, next);
  };
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

/**
 * `<checkout-button>`'s fallback form (`POST /checkouts/start`): `application/x-www-form-urlencoded`, as a
 * browser posts a plain form (415 otherwise), with the same size and time limits as JSON.
 */
export function formBodies(timeoutMs = BODY_TIMEOUT_MS): Middleware {
  const parse = withDeadline(formParser, timeoutMs);
  return (req, res, next) => {
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.get('content-type')?.trim() ?? '')) {
      next(new ProxyError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be a form (Content-Type: application/x-www-form-urlencoded).'));
      return;
    }
    parse(req, res, next);
  };
}

/**
 * Provider callbacks: any content type is read (and never trusted), still at most 10 kB and within `timeoutMs`.
 */
export function anyBody(timeoutMs = BODY_TIMEOUT_MS) {
  return withDeadline(rawParser, timeoutMs);
}
