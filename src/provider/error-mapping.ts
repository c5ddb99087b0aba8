// How a provider answer that is not a success becomes one of the errors of errors.ts.
import {
  type ProviderErrorInit,
  type ProviderFieldError,
  ProviderAuthenticationError,
  ProviderError,
  ProviderNotFoundError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  ProviderValidationError,
} from './errors.js';
import { gatewayErrorEnvelope, GATEWAY_STATUS, providerErrorBody } from './schemas/index.js';

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
  const gatewayLike = isGatewayLike(raw);
  const envelope = gatewayLike ? gatewayErrorEnvelope.safeParse(raw) : undefined;
  const body = envelope?.success || !hasErrorField(raw) ? undefined : providerErrorBody.safeParse(raw);
  if (envelope?.success) {
    code = envelope.data.statusCode;
    message = envelope.data.statusMessage;
    if (status < 400) category = GATEWAY_HTTP_STATUS[envelope.data.statusCode] ?? status;
  } else if (body?.success) {
    code = body.data.error;
    message = body.data.message;
    details = body.data.details;
  } else if (gatewayLike) {
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

  // Each kind's own fields are added to `init` with Object.assign, not spread into a copy: V8 reads the
  // properties of such a copy slowly, and the error's constructor reads them all (a spread here cost more
  // than the Error itself, about 2 µs of every refused validation).
  // 402: a refusal of the request itself (the gateway's insufficient funds may come as Payment Required).
  if (category === 400 || category === 402 || category === 413 || category === 422) {
    return new ProviderValidationError(Object.assign(init, { sent: true, fields: fieldsFromDetails(details) }));
  }
  if (category === 401 || category === 403) return new ProviderAuthenticationError(init);
  if (category === 404) return new ProviderNotFoundError(init);
  if (category === 429) {
    return new ProviderRateLimitedError(
      Object.assign(init, {
        retryAfter: parseRetryAfter(headers.get('retry-after')) ?? numberOrUndefined(details?.['retryAfter']),
      }),
    );
  }
  if (category >= 500 && category <= 599) {
    const isGet = (options.method ?? 'POST').toUpperCase() === 'GET';
    return new ProviderUnavailableError(
      Object.assign(init, { reason: 'http' as const, outcomeUnknown: !isGet && !NOT_PROCESSED_5XX.has(category) }),
    );
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
