import type { Response } from 'express';

/**
 * Answers `body` as JSON with `status`, and `Cache-Control: no-store`: every proxy answer is about one
 * person's code or payment (a verification proof among them), never to be kept by a browser or a shared
 * cache. Written straight to the response rather than through Express's `res.json`, whose ETag (a SHA-1 of
 * every body) and freshness check serve cacheable pages, not these answers; the merchant app's JSON
 * settings (`json spaces`, `json replacer`) do not apply to the protocol either.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
