import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type Logger } from 'pino';
import { HOST_RUNTIME } from './runtime.js';

/**
 * Paths pino redacts in every line of the proxy: credentials, tokens, codes and proofs wherever they
 * appear (request headers, upstream bodies, our own objects).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-api-secret"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-api-secret"]',
  ...['authorization', 'password', 'username', 'apiKey', 'apiSecret', 'secret', 'tokenSecret', 'acceptedTokenSecrets', 'retiredTokenSecrets', 'serverKey'].flatMap((key) => [
    `*.${key}`,
    `*.*.${key}`,
    `*.*.*.${key}`,
  ]),
  '*.token',
  '*.code',
  '*.proof',
  'token',
  'code',
  'proof',
  'password',
  'secret',
];

/** Any run of 8 to 15 digits (a phone number) keeps its first and last three digits only. */
const LONG_DIGITS = /\d{8,15}/g;

/** Masks phone-number-like digit runs in every string of a log object (a second line of defence). */
export function scrubNumbers(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.replace(LONG_DIGITS, (run) => `${run.slice(0, 3)}${'*'.repeat(run.length - 6)}${run.slice(-3)}`);
  }
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubNumbers(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubNumbers(v, depth + 1);
  return out;
}

/**
 * The proxy's logger: a child of the merchant's pino logger (or a new one) with our redaction and the
 * number scrubber added, so a merchant's own logger cannot leak what ours would hide.
 */
export function createProxyLogger(base?: Logger): Logger {
  const root = base ?? pino({ name: 'merchant-elements' });
  return root.child(
    { component: 'merchant-proxy' },
    {
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: (object) => scrubNumbers(object) as Record<string, unknown> },
    },
  );
}

/** A request as the proxy's lines name it: the access line's id (`req.id`), and Express's full URL. */
type LoggedRequest = IncomingMessage & { id?: number | string; originalUrl?: string };

/** What every line about one request says of it: its id, method and path (query string dropped). */
export function requestSummary(req: IncomingMessage): { id: number | string | undefined; method: string | undefined; path: string } {
  const logged = req as LoggedRequest;
  return { id: logged.id, method: req.method, path: (logged.originalUrl ?? req.url ?? '').split('?')[0]! };
}

/**
 * A route's own line about a request, with the same `req` as the request's access line; nothing is built when
 * the level is off.
 */
export function logRequest(logger: Logger, req: IncomingMessage, level: 'info' | 'warn', object: object, msg: string): void {
  if (logger.isLevelEnabled(level)) logger[level]({ ...object, req: requestSummary(req) }, msg);
}

/** A logger whose every line names `req` as its access line does (for code that takes a logger). */
export function requestLog(logger: Logger, req: IncomingMessage): Logger {
  return logger.child({ req: requestSummary(req) });
}

/** When a response's request came (ms): one property per response, shared by the access log and the metrics. */
export const STARTED = Symbol('merchant-elements.started');
/** Marks an answer refused because the provider or the store is out (set by `sendError`). */
export const OUTAGE_ANSWER = Symbol('merchant-elements.outage-answer');

/**
 * Access logs: one line per answer when its response closes, with the request's id, method and path (query
 * string dropped), the status and the time; no headers, no body. `error` with `"msg":"request errored"` for
 * 5xx (why is in the line before it with the same `req`), except `info` `request refused: unavailable` for a
 * 503 UPSTREAM_UNAVAILABLE (an outage, which the outage log tells once), `warn` for 4xx, `info` otherwise
 * (`request completed`, or `request aborted` when the client left first).
 * A request keeps only its id (`req.id`, kept when the merchant's own logger set one) and its start; the
 * listener is one function for every response. pino-http, used before, made a child logger per request and
 * five more properties on the request and the response, kept as long as a status stream is open (minutes,
 * ten thousand of them in a flash sale; `npx tsx bench/sections/scale-heap.ts`).
 */
export function accessLogger(logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  let last = 0;
  function onClose(this: ServerResponse & { [STARTED]?: number; [OUTAGE_ANSWER]?: boolean }): void {
    const code = this.statusCode;
    // A refusal during an outage is told once by the outage log, then counted: its access line is `info`,
    // not an error line per refused request (about 2,900 a minute in a provider outage).
    const outage = this[OUTAGE_ANSWER] === true;
    const level = outage ? 'info' : code >= 500 ? 'error' : code >= 400 ? 'warn' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const req = this.req;
    const line = { req: requestSummary(req), res: { statusCode: code }, responseTime: HOST_RUNTIME.now() - (this[STARTED] ?? HOST_RUNTIME.now()) };
    logger[level](line, outage ? 'request refused: unavailable' : level === 'error' ? 'request errored' : !req.readableAborted && this.writableEnded ? 'request completed' : 'request aborted');
  }
  return (req, res) => {
    const logged = req as LoggedRequest;
    logged.id ??= last = (last + 1) & 0x7fffffff;
    (res as ServerResponse & { [STARTED]?: number })[STARTED] = HOST_RUNTIME.now();
    res.on('close', onClose);
  };
}
