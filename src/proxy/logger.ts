import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';

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
  ...['authorization', 'password', 'username', 'apiKey', 'apiSecret', 'secret', 'tokenSecret'].flatMap((key) => [
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

/**
 * Access logs: method, path (query string dropped), status and time; no headers, no body. Errors at
 * `error` for 5xx, `warn` for 4xx. A route's own lines (`req.log`) carry the same `req` (its `id`, method
 * and path).
 */
export function requestLogger(logger: Logger): HttpLogger<IncomingMessage, ServerResponse> {
  return pinoHttp({
    logger,
    // One child logger per request, of the proxy's logger: `quietReqLogger` made a child (`reqId`) and a
    // child of that child per request, and an object that is another's prototype gets hidden classes of its
    // own: about 0.4 KiB a request more, held as long as a status stream is open (`npx tsx
    // bench/sections/scale-heap.ts`), and one more logger made per request.
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    // Our serializers read the raw objects: nothing of the headers or the body is ever written.
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id?: unknown; originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        path: (req.originalUrl ?? req.url ?? '').split('?')[0],
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: (err: Error) => ({ type: err.name, message: err.message }),
    },
  });
}
