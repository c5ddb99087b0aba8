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
