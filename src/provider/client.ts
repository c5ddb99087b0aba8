import { z } from 'zod';
import { checkoutApi } from './checkout.js';
import { trimTrailingSlashes } from './endpoints.js';
import { fieldsOfIssues } from './fields.js';
import { gatewayApi } from './gateway.js';
import { createHttp, type ProviderLogger } from './http.js';
import { messagingApi } from './messaging.js';
import { API_VERSION } from './schemas/index.js';
import { PROVIDER_INTERFACES, type CallRecord, type CircuitCalls, type CircuitStateName, type ProviderClient, type ProviderInterface } from './types.js';

const required = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});

const httpUrl = z
  .string(required('a string'))
  .refine((value) => /^https?:\/\/[^/]/i.test(value) && URL.canParse(value), 'must be an absolute http(s) URL')
  .transform(trimTrailingSlashes);

/** Sent as a header value: printable ASCII only, so a stray newline cannot split headers. */
const headerToken = z
  .string(required('a string'))
  .min(1, 'must not be empty')
  .regex(/^[\x20-\x7E]*$/, 'must be printable ASCII (no line breaks or control characters)');

const wholeMs = (min: number) => z.number(required('a number')).int('must be a whole number').min(min, `must be at least ${min}`);

const breakerSchema = z.strictObject({
  threshold: z.number().gt(0, 'must be greater than 0').max(1, 'must be at most 1').default(0.5),
  minimumCalls: z.number().int('must be a whole number').min(1, 'must be at least 1').default(10),
  windowMs: wholeMs(100).default(30_000),
  halfOpenAfterMs: wholeMs(0).default(1_000),
  maxHalfOpenAfterMs: wholeMs(0).default(5_000),
});

/** Schema of {@link ProviderClientConfig}; defaults follow DESIGN's "upstream calls" policy. */
export const providerClientConfigSchema = z.strictObject({
  messaging: z.strictObject({ baseUrl: httpUrl, apiKey: headerToken, apiSecret: headerToken }, required('an object')),
  payment: z.strictObject({
    baseUrl: httpUrl,
    username: z
      .string(required('a string'))
      .min(1, 'must not be empty')
      .refine((value) => !value.includes(':'), 'must not contain ":" (HTTP Basic forbids it)')
      .refine((value) => !/[\x00-\x1F\x7F]/.test(value), 'must not contain control characters'),
    password: z
      .string(required('a string'))
      .min(1, 'must not be empty')
      .refine((value) => !/[\x00-\x1F\x7F]/.test(value), 'must not contain control characters'),
  }, required('an object')),
  checkout: z.strictObject({ baseUrl: httpUrl.optional(), apiKey: headerToken }, required('an object')),
  fetch: z.custom<typeof fetch>((value) => typeof value === 'function', 'must be a function').optional(),
  timeouts: z
    .strictObject({ connectMs: wholeMs(1).default(3_000), totalMs: wholeMs(1).default(10_000) })
    .prefault({}),
  retry: z
    .strictObject({
      maxRetries: z.number().int('must be a whole number').min(0, 'must be at least 0').max(10, 'must be at most 10').default(2),
      baseDelayMs: wholeMs(0).default(200),
      maxDelayMs: wholeMs(0).default(2_000),
    })
    .prefault({})
    .refine((retry) => retry.maxDelayMs >= retry.baseDelayMs, {
      message: 'must not be below baseDelayMs',
      path: ['maxDelayMs'],
    }),
  circuitBreaker: z.union([z.literal(false), breakerSchema]).prefault({}),
  maxConnections: z.number(required('a number')).int('must be a whole number').min(1, 'must be at least 1').default(256),
  errorStacks: z.boolean(required('true or false')).default(true),
  onCall: z.custom<(call: CallRecord) => void>((value) => typeof value === 'function', 'must be a function').optional(),
  logger: z
    .custom<ProviderLogger>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        ['debug', 'warn', 'error'].every((level) => typeof (value as Record<string, unknown>)[level] === 'function'),
      'must have debug, warn and error methods',
    )
    .optional(),
});

/**
 * Configuration of {@link createProviderClient}.
 *
 * - `messaging`: `{base_url}` and the API key and secret (sent as `x-api-key`, `x-api-secret`).
 * - `payment`: `{payment_base_url}` (gateway path included) and the HTTP Basic username and password.
 * - `checkout`: the Bearer key; `baseUrl` defaults to `messaging.baseUrl`.
 * - `fetch`: an injected fetch (tests, instrumentation); by default the client keeps its own undici
 *   connection pool and calls it through undici's dispatcher API.
 * - `timeouts`: `connectMs` (3000) per connection of that pool; `totalMs` (10000) for the whole
 *   call, retries included, and it also ends a call still waiting for a connection (then known unsent).
 * - `retry`: GETs only, on unavailability only: `maxRetries` (2), decorrelated-jitter backoff from
 *   `baseDelayMs` (200) capped at `maxDelayMs` (2000).
 * - `circuitBreaker`: one circuit per interface (messaging, payment gateway, checkout), so an outage of
 *   one never refuses calls to another; within one, the reads a caller marks `background` (its own
 *   schedule's) have a breaker apart, so a backlog of them failing never refuses a new payment. Each opens when at least `threshold` (0.5) of its calls in the
 *   last `windowMs` (30000) failed with unavailability, once `minimumCalls` (10) were made, and lets one
 *   trial call through after `halfOpenAfterMs` (1000), then after twice as long each time a trial fails, up
 *   to `maxHalfOpenAfterMs` (5000; never below `halfOpenAfterMs`): a provider back after an outage is tried
 *   within seconds. Other calls are refused at once while the trial is out. `false` disables them.
 * - `maxConnections`: sockets the client's own pool opens to one provider host at most (256), kept alive
 *   between calls. Calls beyond them wait for a free one, within their total timeout (one still waiting
 *   then is known unsent): when the provider slows under load, a client without a cap opened a socket for
 *   every call in flight, thousands at once, past the provider's accept queue (`npm run bench`, scale).
 * - `logger`: pino-compatible; gets operation, status and duration of each attempt, never credentials,
 *   bodies or path parameters; and each turn of a circuit (a warning when one opens and when it closes
 *   again; each call refused while it is open at debug only).
 * - `onCall`: told of every attempt (and every call a circuit refused) with its interface, operation,
 *   kind of call, outcome and duration: the proxy's metrics count them.
 * - `errorStacks`: whether the errors the client throws capture a stack (true). The merchant proxy turns
 *   it off: it answers and logs each failure by its fields (operation, status, code), and capturing a
 *   stack under a route's async frames cost it more than any other step of a refused OTP validation.
 */
export type ProviderClientConfig = z.input<typeof providerClientConfigSchema>;

/** The client as {@link createProviderClient} returns it: the interface, plus releasing its connections. */
export interface ClosableProviderClient extends ProviderClient {
  /** Closes the connection pool the client opened (none when `fetch` was injected). */
  close(): Promise<void>;
}

/**
 * Creates the typed client of the provider's messaging, payment gateway and checkout interfaces.
 * @throws TypeError listing each problem of the configuration.
 */
export function createProviderClient(config: ProviderClientConfig): ClosableProviderClient {
  const parsed = providerClientConfigSchema.safeParse(config);
  if (!parsed.success) {
    const problems = fieldsOfIssues(parsed.error.issues).map((field) => `${field.path}: ${field.message}`);
    throw new TypeError(`Invalid provider client config: ${problems.join('; ')}`);
  }
  const { messaging, payment, checkout, ...transport } = parsed.data;
  const http = createHttp({
    fetch: transport.fetch && transport.fetch !== globalThis.fetch ? transport.fetch : undefined,
    timeouts: transport.timeouts,
    retry: transport.retry,
    circuitBreaker: transport.circuitBreaker,
    maxConnections: transport.maxConnections,
    logger: transport.logger,
    errorStacks: transport.errorStacks,
    onCall: transport.onCall,
  });
  const basic = Buffer.from(`${payment.username}:${payment.password}`, 'utf8').toString('base64');

  return {
    ...messagingApi(http, {
      name: 'messaging',
      baseUrl: messaging.baseUrl,
      headers: { 'x-api-key': messaging.apiKey, 'x-api-secret': messaging.apiSecret, 'x-api-version': API_VERSION },
    }),
    ...gatewayApi(http, { name: 'payment', baseUrl: payment.baseUrl, headers: { authorization: `Basic ${basic}` } }),
    ...checkoutApi(http, {
      name: 'checkout',
      baseUrl: checkout.baseUrl ?? messaging.baseUrl,
      headers: { authorization: `Bearer ${checkout.apiKey}` },
    }),
    circuitState: (upstream?: ProviderInterface, calls?: CircuitCalls) =>
      upstream ? http.circuitState(upstream, calls) : worst(PROVIDER_INTERFACES.map((name) => http.circuitState(name))),
    close: () => http.close(),
  };
}

/** The worst of several circuit states: open, then half-open, then closed. */
function worst(states: CircuitStateName[]): CircuitStateName {
  if (states.includes('open')) return 'open';
  return states.includes('half-open') ? 'half-open' : 'closed';
}
