import { gatewayErrorEnvelope, GATEWAY_STATUS, providerErrorBody } from './schemas/index.js';

/** One bad field of a request: where it is and what is wrong with it. */
export interface ProviderFieldError {
  /** Dotted path of the field (`messages.0.to`), or `(body)` for the request as a whole. */
  path: string;
  message: string;
}

/** What every provider error is built from. */
export interface ProviderErrorInit {
  /** The provider's message (`message` or `statusMessage`), or ours when it gave none. */
  message: string;
  /** The operation that failed, e.g. `payments.initiate`. */
  operation: string;
  /** HTTP status of the answer; 0 when nothing came back. */
  status?: number;
  /** The provider's error code (`INVALID_PHONE_NUMBER`) or the gateway's statusCode (`0404`). */
  code?: string | undefined;
  /** The parsed body when it was JSON, else its text. */
  raw?: unknown;
  /** The `details` object of the provider's error body, when it sent one. */
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
}

const BRAND = Symbol.for('merchant-elements.provider-error');

/**
 * Base of every error the provider client throws. Subclasses say what kind of failure it was;
 * `status`, `code` and `raw` say what the provider answered.
 */
export class ProviderError extends Error {
  /** HTTP status of the answer; 0 when nothing came back (network, timeout, circuit open, local validation). */
  readonly status: number;
  /** The provider's error code, or the gateway's four-character statusCode; undefined when unknown. */
  readonly code: string | undefined;
  /** The parsed body when it was JSON, else its text; undefined when nothing came back. */
  readonly raw: unknown;
  /** The `details` of the provider's error body, when there was one. */
  readonly details: Record<string, unknown> | undefined;
  /** The operation that failed, e.g. `sms.send`. */
  readonly operation: string;

  constructor(init: ProviderErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status ?? 0;
    this.code = init.code;
    this.raw = init.raw;
    this.details = init.details;
    this.operation = init.operation;
  }
}

// A brand on the prototype lets isProviderError recognise errors from a duplicate copy of this module.
Object.defineProperty(ProviderError.prototype, BRAND, { value: true });

/** Credentials missing, wrong (401) or without the permission the call needs (403); `status` tells which. */
export class ProviderAuthenticationError extends ProviderError {}

/**
 * The request was refused as invalid: by the provider (a 400, `sent: true`) or by the client before
 * sending anything (`sent: false`, `status` 0).
 */
export class ProviderValidationError extends ProviderError {
  /** Whether the request reached the provider. */
  readonly sent: boolean;
  /** Each bad field, when known. */
  readonly fields: ProviderFieldError[] | undefined;

  constructor(init: ProviderErrorInit & { sent: boolean; fields?: ProviderFieldError[] | undefined }) {
    super(init);
    this.sent = init.sent;
    this.fields = init.fields;
  }
}

/** The resource does not exist (404; the gateway's `0404`). */
export class ProviderNotFoundError extends ProviderError {}

/** Too many requests (429). */
export class ProviderRateLimitedError extends ProviderError {
  /** Seconds to wait before trying again, from `Retry-After` (seconds or HTTP-date); undefined when absent. */
  readonly retryAfter: number | undefined;

  constructor(init: ProviderErrorInit & { retryAfter?: number | undefined }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}

/** Why the provider could not be reached or could not answer. */
export type UnavailableReason = 'http' | 'timeout' | 'network' | 'circuit-open';

/**
 * The provider is unavailable: a 5xx answer, a timeout, a network failure, or the circuit breaker open.
 *
 * `outcomeUnknown` is true when a request that changes something (anything but a GET) may have been
 * processed upstream even though no usable answer came back, so it must not be blindly re-sent:
 * - a total timeout (the connection may have been made and the request delivered),
 * - a connection reset or closed after the request may have been written,
 * - an HTTP 500, 502 or 504, or any 5xx other than 501 and 503 (the server, or the backend behind a
 *   gateway that lost its answer, may have acted before failing; money paths must not assume otherwise).
 *
 * It is false for GETs (they change nothing), for 501 and 503 (the service refusing before processing), for connection failures before anything was sent (refused, unresolvable host,
 * connect timeout), and when the circuit breaker is open (nothing was sent).
 */
export class ProviderUnavailableError extends ProviderError {
  readonly reason: UnavailableReason;
  readonly outcomeUnknown: boolean;

  constructor(init: ProviderErrorInit & { reason: UnavailableReason; outcomeUnknown: boolean }) {
    super(init);
    this.reason = init.reason;
    this.outcomeUnknown = init.outcomeUnknown;
  }
}

/** A success status with a body that is not JSON or does not match the endpoint's schema. */
export class ProviderMalformedResponseError extends ProviderError {}

/** True for any error of this taxonomy, even one thrown by another copy of this module. */
export function isProviderError(error: unknown): error is ProviderError {
  return (
    error instanceof ProviderError ||
    (typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true)
  );
}

/** Options of {@link errorFromResponse}. */
export interface ErrorFromResponseOptions {
  /** HTTP method of the request; decides `outcomeUnknown` on 5xx (a GET never has an unknown outcome). */
  method?: string;
}

/** 5xx answers after which a non-GET request was not processed (the service itself refused it). */
const NOT_PROCESSED_5XX = new Set([501, 503]);

/** The one thing read of an answer's headers (a fetch `Headers` is one). */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * The one factory mapping a provider answer to an error. Recognises the gateway error envelope
 * (`0400`, `0401`, `0404`) and the messaging/checkout error body `{ error, message, details }`; any other
 * shape still maps by HTTP status and keeps the body in `raw`. A 2xx answer carrying a gateway error
 * envelope (a gateway may answer errors with HTTP 200) maps by the envelope's statusCode instead.
 */
export function errorFromResponse(
  operation: string,
  status: number,
  headers: HeaderReader,
  text: string,
  options: ErrorFromResponseOptions = {},
): ProviderError {
  const raw = parseJson(text);
  let code: string | undefined;
  let message: string | undefined;
  let details: Record<string, unknown> | undefined;
  let category = status;

  // Each schema is tried only on a body of its shape: a failed zod parse builds its issues, which cost a
  // proxied wrong-code answer more than the rest of this function.
  const envelope = isGatewayLike(raw) ? gatewayErrorEnvelope.safeParse(raw) : undefined;
  const body = envelope?.success || !hasErrorField(raw) ? undefined : providerErrorBody.safeParse(raw);
  if (envelope?.success) {
    code = envelope.data.statusCode;
    message = envelope.data.statusMessage;
    if (status < 400) category = GATEWAY_HTTP_STATUS[envelope.data.statusCode] ?? status;
  } else if (body?.success) {
    code = body.data.error;
    message = body.data.message;
    details = body.data.details;
  } else if (isGatewayLike(raw)) {
    // Another gateway envelope (the spec lists only 0400/0401/0404; a 5xx may come as `0503`).
    code = raw.statusCode;
    message = raw.statusMessage;
  }
  const init: ProviderErrorInit = {
    operation,
    status,
    code,
    raw: raw === undefined ? text : raw,
    details,
    message: message || `The provider answered HTTP ${status} to ${operation}`,
  };

  if (category === 400 || category === 413 || category === 422) {
    return new ProviderValidationError({ ...init, sent: true, fields: fieldsFromDetails(details) });
  }
  if (category === 401 || category === 403) return new ProviderAuthenticationError(init);
  if (category === 404) return new ProviderNotFoundError(init);
  if (category === 429) {
    return new ProviderRateLimitedError({
      ...init,
      retryAfter: parseRetryAfter(headers.get('retry-after')) ?? numberOrUndefined(details?.['retryAfter']),
    });
  }
  if (category >= 500 && category <= 599) {
    const isGet = (options.method ?? 'POST').toUpperCase() === 'GET';
    return new ProviderUnavailableError({
      ...init,
      reason: 'http',
      outcomeUnknown: !isGet && !NOT_PROCESSED_5XX.has(category),
    });
  }
  return new ProviderError(init);
}

const GATEWAY_HTTP_STATUS: Record<string, number> = {
  [GATEWAY_STATUS.BAD_REQUEST]: 400,
  [GATEWAY_STATUS.UNAUTHORIZED]: 401,
  [GATEWAY_STATUS.NOT_FOUND]: 404,
};

/**
 * Seconds from a `Retry-After` header: delta-seconds or an HTTP-date (rounded up, never negative);
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function hasErrorField(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)['error'] === 'string';
}

function isGatewayLike(value: unknown): value is { statusCode: string; statusMessage: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { statusCode, statusMessage } = value as Record<string, unknown>;
  return typeof statusCode === 'string' && /^\d{4}$/.test(statusCode) && typeof statusMessage === 'string';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** `details.fields` as the provider (and the sandbox) list bad fields, when it has that shape. */
function fieldsFromDetails(details: Record<string, unknown> | undefined): ProviderFieldError[] | undefined {
  const fields = details?.['fields'];
  if (!Array.isArray(fields)) return undefined;
  const out: ProviderFieldError[] = [];
  for (const field of fields) {
    if (typeof field !== 'object' || field === null) continue;
    const { path, message } = field as Record<string, unknown>;
    if (typeof path === 'string' && typeof message === 'string') out.push({ path, message });
  }
  return out.length > 0 ? out : undefined;
}

/** The subset of a zod issue that {@link fieldsOfIssues} reads (zod's own issue type is assignable). */
interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  errors?: IssueLike[][];
}

/**
 * Lists the bad fields of a failed zod parse as `{ path, message }`: one entry per unknown key, and for a
 * union (email `to`: one address or a list) the issues of the alternative that had the right type, so
 * that "must have at most 150 entries" is reported rather than "Invalid input".
 */
export function fieldsOfIssues(issues: readonly IssueLike[], prefix: PropertyKey[] = []): ProviderFieldError[] {
  const out: ProviderFieldError[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      for (const key of issue.keys) out.push({ path: joinPath([...path, key]), message: 'is not a known field' });
    } else if (issue.code === 'invalid_union' && issue.errors) {
      const typed = issue.errors.filter((branch) => !branch.some(isTypeMismatch));
      if (typed.length === 1) out.push(...fieldsOfIssues(typed[0]!, path));
      else out.push({ path: joinPath(path), message: issue.message });
    } else {
      out.push({ path: joinPath(path), message: issue.message });
    }
  }
  return out;
}

/** A root-level issue saying the value is of another type (or another literal) than this alternative's. */
function isTypeMismatch(issue: IssueLike): boolean {
  return issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value');
}

function joinPath(path: PropertyKey[]): string {
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}
