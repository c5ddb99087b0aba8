import express, { type NextFunction, type Request, type Response } from 'express';
import { ProxyError } from '../errors.js';

/** Largest request body the proxy reads (DESIGN: bodies). */
export const MAX_BODY_BYTES = 10 * 1024;

const jsonParser = express.json({ limit: MAX_BODY_BYTES, strict: true, type: () => true });
const rawParser = express.raw({ limit: MAX_BODY_BYTES, type: () => true });

/**
 * Browser bodies: POSTs must be `application/json` (415 otherwise), at most 10 kB (413), valid JSON
 * (400 INVALID_INPUT). Unknown fields are refused later by the routes' strict schemas.
 */
export function jsonBodies() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') {
      next();
      return;
    }
    if (!isJson(req.get('content-type'))) {
      next(new ProxyError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json).'));
      return;
    }
    jsonParser(req, res, next);
  };
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

/**
 * Provider callbacks: any content type is read (and never trusted), still at most 10 kB.
 */
export function anyBody() {
  return rawParser;
}
