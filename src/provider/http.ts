import { Agent } from 'undici';
import type { z } from 'zod';
import { Deadline } from './deadline.js';
import { transportError } from './transport-error.js';
import { errorFromResponse } from './error-mapping.js';
import {
  isProviderError,
  ProviderAuthenticationError,
  ProviderMalformedResponseError,
  ProviderNotFoundError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  ProviderValidationError,
  type ProviderError,
  type ProviderFieldError,
} from './errors.js';
import { fieldsOfIssues } from './fields.js';
import {
  fetchTransport,
  undiciTransport,
  type Answer,
  type Outgoing,
  type Transport,
} from './transport.js';
import { createResilience, type BreakerSettings, type RetrySettings } from './resilience.js';
import { gatewayErrorEnvelope } from './schemas/index.js';
import type { CallOutcome, CallRecord, CircuitCalls, CircuitStateName, ProviderInterface } from './types.js';

/** A pino-compatible logger; only these three levels are used. */
export interface ProviderLogger {
  debug(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

/** One of the provider's interfaces: which, where it is and the headers (auth, version) every call carries. */
export interface Upstream {
  /** Which interface: its calls share one circuit breaker, its background reads another. */
  name: ProviderInterface;
  baseUrl: string;
  headers: Readonly<Record<string, string>>;
}

/** Everything the request function needs to make one provider call. */
export interface RequestSpec<T> {
  /** Name of the call, e.g. `payments.status`; used in errors and logs. */
  operation: string;
  upstream: Upstream;
  method: 'GET' | 'POST';
  /** Path with `{name}` placeholders, e.g. `/v1/payment/{reference}/status`. */
  path: string;
  /** Values of the path's placeholders; each must be a non-empty string and is URI-encoded. */
  params?: Record<string, string>;
  body?: unknown;
  /** Schema the body must satisfy before anything is sent. */
  bodySchema?: z.ZodType;
  /** Schema of a successful answer. */
  response: z.ZodType<T>;
  signal?: AbortSignal | undefined;
  /** `false`: a GET is sent once, without retries. */
  retry?: boolean | undefined;
  /** A read of the caller's own schedule: under the interface's background circuit (see `CallOptions`). */
  background?: boolean | undefined;
}

/** Resolved transport settings (see the client's config for their meaning and defaults). */
export interface HttpSettings {
  /** An injected fetch; undefined means the client's own undici pool, with its connect timeout. */
  fetch: typeof fetch | undefined;
  timeouts: { connectMs: number; totalMs: number };
  retry: RetrySettings;
  circuitBreaker: BreakerSettings | false;
  /** Sockets the client's own pool opens to one origin at most; unlimited when absent. */
  maxConnections?: number | undefined;
  logger?: ProviderLogger | undefined;
  /** Whether the errors thrown capture a stack (see the client's `errorStacks`); true when absent. */
  errorStacks?: boolean | undefined;
  /** Told of every attempt and every refused call (the client's `onCall`). */
  onCall?: ((call: CallRecord) => void) | undefined;
}

/** The one request function with the state it keeps (breakers, connection pool). */
export interface Http {
  request<T>(spec: RequestSpec<T>): Promise<T>;
  /** The state of one interface's circuit for one kind of call; without `calls`, the worse of the two. */
  circuitState(upstream: ProviderInterface, calls?: CircuitCalls): CircuitStateName;
  /** Closes the connection pool, if the client made one. */
  close(): Promise<void>;
}

/**
 * Builds the request function every provider call goes through: it validates the request (nothing is
 * sent when it is invalid), adds the interface's headers, applies the timeouts, retries GETs through
 * unavailability with jittered backoff (never POSTs), fails fast while the interface's circuit breaker is open,
 * validates the answer and maps failures to the `ProviderError` taxonomy.
 *
 * The total timeout bounds the whole call, retries and their backoff included, so a caller waits at most
 * `totalMs`. The connect timeout applies to each connection of the client's own undici pool (the default
 * transport); an injected fetch gets the total timeout only.
 */
export function createHttp(settings: HttpSettings): Http {
  const { timeouts, logger } = settings;
  const agent = settings.fetch
    ? undefined
    : new Agent({ connect: { timeout: timeouts.connectMs }, ...(settings.maxConnections ? { connections: settings.maxConnections } : {}) });

  // The breaker's turns are logged, not each call it refuses: with thousands of payments pending, an outage
  // refused a status read a second per payment, and a warning line for each (`npm run bench`, scale). An
  // outage is told once when its circuit opens and once when it closes (how long, how many refused); the
  // trials in between, each failed one opening it again, are at debug.
  const resilience = createResilience(settings.retry, settings.circuitBreaker, (upstream, calls, turn) => {
    const fields = { upstream, calls, circuit: turn.state };
    if (turn.state === 'open' && turn.first) {
      logger?.warn({ ...fields, retryInMs: turn.retryInMs }, `provider circuit open: ${calls} calls to the ${upstream} interface are refused, one tried again after ${turn.retryInMs} ms (then twice as long each time it fails)`);
    } else if (turn.state === 'open') {
      logger?.debug({ ...fields, retryInMs: turn.retryInMs }, `provider circuit open again: the trial ${calls} call to the ${upstream} interface failed`);
    } else if (turn.state === 'closed') {
      logger?.warn({ ...fields, downMs: turn.downMs, refused: turn.refused }, `provider circuit closed: ${calls} calls to the ${upstream} interface go through again (${turn.refused} refused in ${turn.downMs} ms)`);
    } else logger?.debug(fields, `provider circuit half-open: trying one ${calls} call to the ${upstream} interface`);
  });
  const onCall = settings.onCall;
  const stackless = settings.errorStacks === false;

  const send: Transport = agent ? undiciTransport(agent) : fetchTransport(settings.fetch!);

  async function attempt<T>(spec: RequestSpec<T>, outgoing: Outgoing, n: number, calls: CircuitCalls): Promise<T> {
    const started = performance.now();
    try {
      // A retry whose backoff outlived the deadline must not send anything.
      outgoing.deadline.throwIfAborted();
      const answer = await send(outgoing);
      const result = stackless ? withoutStacks(parseAnswer, spec, answer) : parseAnswer(spec, answer);
      logger?.debug({ operation: spec.operation, method: spec.method, status: answer.status, durationMs: elapsed(started), attempt: n }, 'provider call');
      onCall?.({ upstream: spec.upstream.name, operation: spec.operation, calls, outcome: 'ok', seconds: (performance.now() - started) / 1000 });
      return result;
    } catch (caught) {
      const error = isProviderError(caught)
        ? caught
        : stackless
          ? withoutStacks(transportError, spec, caught, outgoing.deadline, settings.timeouts.totalMs)
          : transportError(spec, caught, outgoing.deadline, settings.timeouts.totalMs);
      if (isProviderError(error)) logFailure(spec, error, elapsed(started), n);
      onCall?.({ upstream: spec.upstream.name, operation: spec.operation, calls, outcome: outcomeOf(error), seconds: (performance.now() - started) / 1000 });
      throw error;
    }
  }

  function logFailure(spec: RequestSpec<unknown>, error: ProviderError, durationMs: number, n: number): void {
    if (!logger) return;
    const fields = {
      operation: spec.operation,
      method: spec.method,
      status: error.status,
      durationMs,
      attempt: n,
      error: error.name,
      // Not `code`: a logger that redacts OTP codes by that name (the proxy's does) would hide it.
      errorCode: error.code,
      ...(error instanceof ProviderUnavailableError ? { reason: error.reason, outcomeUnknown: error.outcomeUnknown } : {}),
    };
    const severe = error instanceof ProviderAuthenticationError || error instanceof ProviderMalformedResponseError;
    if (severe) logger.error(fields, 'provider call failed');
    // "Not found" is an answer, often the expected one (a status read of a reference not sent yet).
    else if (error instanceof ProviderNotFoundError) logger.debug(fields, 'provider call answered not found');
    else logger.warn(fields, 'provider call failed');
  }

  return {
    async request<T>(spec: RequestSpec<T>): Promise<T> {
      const { url, body } = prepare(spec);
      spec.signal?.throwIfAborted();
      // A timer cleared when the call settles (not AbortSignal.timeout, whose timer and weak references
      // outlive every call by the whole timeout), and no AbortSignal unless something needs one.
      const deadline = new Deadline(timeouts.totalMs, spec.signal);
      const headers: Record<string, string> = { accept: 'application/json', ...spec.upstream.headers };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const outgoing: Outgoing = { url, method: spec.method, headers, body, deadline };

      const upstream = spec.upstream.name;
      const calls: CircuitCalls = spec.background && spec.method === 'GET' ? 'background' : 'foreground';
      const refused = () => {
        logger?.debug({ operation: spec.operation, upstream, calls, reason: 'circuit-open' }, 'provider call refused: circuit open');
        onCall?.({ upstream, operation: spec.operation, calls, outcome: 'refused', seconds: 0 });
      };
      const once = (n: number) => resilience.guard(upstream, calls, spec.operation, () => attempt(spec, outgoing, n, calls), refused);
      try {
        return await (spec.method === 'GET' && spec.retry !== false ? resilience.retried(once, deadline) : once(1));
      } finally {
        deadline.clear();
      }
    },

    circuitState: (upstream, calls) => resilience.circuitState(upstream, calls),

    async close() {
      await agent?.close();
    },
  };
}

/** The outcome a failed attempt is counted under. */
function outcomeOf(error: unknown): CallOutcome {
  if (error instanceof ProviderNotFoundError) return 'not-found';
  if (error instanceof ProviderUnavailableError) return 'unavailable';
  if (error instanceof ProviderAuthenticationError) return 'auth';
  if (error instanceof ProviderMalformedResponseError) return 'malformed';
  if (error instanceof ProviderRateLimitedError) return 'rate-limited';
  return 'rejected';
}

/** Validates path parameters and body, then builds the URL and the JSON body. */
function prepare(spec: RequestSpec<unknown>): { url: string; body: string | undefined } {
  const fields: ProviderFieldError[] = [];
  const params = spec.params;
  for (const name in params) {
    const value = params[name];
    if (typeof value !== 'string' || value.trim() === '') fields.push({ path: name, message: 'must be a non-empty string' });
    // The URL parser would resolve these as dot segments, landing on another endpoint.
    else if (value === '.' || value === '..') fields.push({ path: name, message: 'must not be "." or ".."' });
  }
  let body: unknown = spec.body;
  if (spec.bodySchema) {
    const parsed = spec.bodySchema.safeParse(spec.body);
    if (parsed.success) body = parsed.data;
    else fields.push(...fieldsOfIssues(parsed.error.issues));
  }
  if (fields.length > 0) {
    throw new ProviderValidationError({
      operation: spec.operation,
      sent: false,
      fields,
      message: `Invalid request to ${spec.operation}: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`,
    });
  }
  const path = params ? spec.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(params[name] ?? '')) : spec.path;
  return { url: spec.upstream.baseUrl + path, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** Turns a received answer into the parsed result, or throws the error it stands for. */
function parseAnswer<T>(spec: RequestSpec<T>, response: Answer): T {
  const { text } = response;
  if (response.status < 200 || response.status > 299) {
    throw errorFromResponse(spec.operation, response.status, response.headers, text, { method: spec.method });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderMalformedResponseError({
      operation: spec.operation,
      status: response.status,
      raw: text,
      message: `The provider's answer to ${spec.operation} is not JSON`,
    });
  }
  const parsed = spec.response.safeParse(json);
  if (parsed.success) return parsed.data;
  if (gatewayErrorEnvelope.safeParse(json).success) {
    throw errorFromResponse(spec.operation, response.status, response.headers, text, { method: spec.method });
  }
  const problems = fieldsOfIssues(parsed.error.issues)
    .slice(0, 3)
    .map((f) => `${f.path}: ${f.message}`)
    .join('; ');
  throw new ProviderMalformedResponseError({
    operation: spec.operation,
    status: response.status,
    raw: text,
    message: `The provider's answer to ${spec.operation} does not match its schema: ${problems}`,
  });
}

/** Calls `make` with stack capture off: the errors it builds carry no frames (no closure made per call). */
function withoutStacks<A extends unknown[], T>(make: (...args: A) => T, ...args: A): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make(...args);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
