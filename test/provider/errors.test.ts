import { describe, expect, it } from 'vitest';
import {
  errorFromResponse,
  fieldsOfIssues,
  isProviderError,
  parseRetryAfter,
  ProviderAuthenticationError,
  ProviderError,
  ProviderNotFoundError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  ProviderValidationError,
} from '../../src/provider/index.js';
import { emailSendRequest } from '../../src/provider/schemas/index.js';

const json = (body: unknown) => JSON.stringify(body);
const noHeaders = new Headers();
const gatewayError = (statusCode: string, statusMessage: string) =>
  json({ statusCode, statusMessage, transactionId: null, data: null, links: [] });

describe('errorFromResponse', () => {
  it('maps a messaging error body by status, keeping code, message, details and raw', () => {
    const body = { error: 'INVALID_PHONE_NUMBER', message: 'Phone number is not valid', details: { field: 'to' } };
    const error = errorFromResponse('sms.send', 400, noHeaders, json(body));
    expect(error).toBeInstanceOf(ProviderValidationError);
    expect(error).toMatchObject({
      status: 400,
      code: 'INVALID_PHONE_NUMBER',
      message: 'Phone number is not valid',
      details: { field: 'to' },
      raw: body,
      operation: 'sms.send',
      sent: true,
      fields: undefined,
    });
  });

  it('maps the gateway insufficient-funds refusal, as 400 or 402, to a refusal that was sent', () => {
    const body = { error: 'INSUFFICIENT_FUNDS', message: 'Customer has insufficient funds', details: {} };
    for (const status of [400, 402]) {
      const error = errorFromResponse('payment.initiate', status, noHeaders, json(body));
      expect(error).toBeInstanceOf(ProviderValidationError);
      expect(error).toMatchObject({ status, code: 'INSUFFICIENT_FUNDS', sent: true });
    }
  });

  it('reads details.fields of an upstream 400 as the bad fields', () => {
    const body = { error: 'VALIDATION_ERROR', message: 'Bad', details: { fields: [{ path: 'to', message: 'bad' }, 'junk'] } };
    const error = errorFromResponse('sms.send', 400, noHeaders, json(body)) as ProviderValidationError;
    expect(error.fields).toEqual([{ path: 'to', message: 'bad' }]);
  });

  it('maps gateway envelopes 0400, 0401 and 0404 with their statusCode as code', () => {
    const bad = errorFromResponse('payments.initiate', 400, noHeaders, gatewayError('0400', 'Bad Request'));
    const unauthorized = errorFromResponse('payments.status', 401, noHeaders, gatewayError('0401', 'Unauthorized'));
    const missing = errorFromResponse('payments.status', 404, noHeaders, gatewayError('0404', 'Transaction not found'));
    expect(bad).toBeInstanceOf(ProviderValidationError);
    expect(bad.code).toBe('0400');
    expect(unauthorized).toBeInstanceOf(ProviderAuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, code: '0401', message: 'Unauthorized' });
    expect(missing).toBeInstanceOf(ProviderNotFoundError);
    expect(missing).toMatchObject({ code: '0404', message: 'Transaction not found' });
  });

  it('maps a gateway error envelope sent with HTTP 200 by its statusCode', () => {
    const error = errorFromResponse('payments.status', 200, noHeaders, gatewayError('0404', 'Transaction not found'));
    expect(error).toBeInstanceOf(ProviderNotFoundError);
    expect(error.status).toBe(200);
  });

  it('treats 401 and 403 as authentication errors and keeps which', () => {
    const body = json({ error: 'FORBIDDEN', message: 'No permission', details: {} });
    const forbidden = errorFromResponse('account.balance', 403, noHeaders, body);
    expect(forbidden).toBeInstanceOf(ProviderAuthenticationError);
    expect(forbidden.status).toBe(403);
  });

  it('still maps an unknown error shape by status and keeps the text', () => {
    const error = errorFromResponse('checkout.status', 404, noHeaders, '<html>Not here</html>');
    expect(error).toBeInstanceOf(ProviderNotFoundError);
    expect(error.code).toBeUndefined();
    expect(error.raw).toBe('<html>Not here</html>');
    expect(error.message).toMatch(/HTTP 404 to checkout\.status/);
  });

  it('reads Retry-After as seconds or as an HTTP-date on 429', () => {
    const body = json({ error: 'RATE_LIMITED', message: 'Slow down', details: {} });
    const seconds = errorFromResponse('email.send', 429, new Headers({ 'retry-after': '42' }), body);
    expect(seconds).toBeInstanceOf(ProviderRateLimitedError);
    expect((seconds as ProviderRateLimitedError).retryAfter).toBe(42);
    const date = new Date(Date.now() + 30_000).toUTCString();
    const dated = errorFromResponse('email.send', 429, new Headers({ 'retry-after': date }), body) as ProviderRateLimitedError;
    expect(dated.retryAfter).toBeGreaterThanOrEqual(28);
    expect(dated.retryAfter).toBeLessThanOrEqual(31);
    const absent = errorFromResponse('email.send', 429, noHeaders, body) as ProviderRateLimitedError;
    expect(absent.retryAfter).toBeUndefined();
  });

  it('decides outcomeUnknown on 5xx by status and method', () => {
    const unknown = (status: number, method: string) =>
      (errorFromResponse('x', status, noHeaders, '', { method }) as ProviderUnavailableError).outcomeUnknown;
    expect(unknown(500, 'POST')).toBe(true);
    expect(unknown(504, 'POST')).toBe(true);
    expect(unknown(502, 'POST')).toBe(true);
    expect(unknown(503, 'POST')).toBe(false);
    expect(unknown(500, 'GET')).toBe(false);
    const error = errorFromResponse('x', 503, noHeaders, json({ statusCode: '0503', statusMessage: 'Service Unavailable' }));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'http', code: '0503', message: 'Service Unavailable' });
  });

  it('falls back to the base class for other statuses', () => {
    const error = errorFromResponse('x', 302, noHeaders, '');
    expect(error.constructor).toBe(ProviderError);
    expect(error.name).toBe('ProviderError');
  });
});

describe('parseRetryAfter', () => {
  it('rounds dates up and never goes below zero', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('isProviderError', () => {
  it('recognises the taxonomy and nothing else', () => {
    expect(isProviderError(new ProviderNotFoundError({ operation: 'x', message: 'm' }))).toBe(true);
    expect(isProviderError(new Error('m'))).toBe(false);
    expect(isProviderError({ status: 404 })).toBe(false);
    expect(isProviderError(null)).toBe(false);
  });
});

describe('fieldsOfIssues', () => {
  it('names the limit of a one-or-many recipients union rather than "Invalid input"', () => {
    const to = Array.from({ length: 151 }, (_, i) => `u${i}@example.com`);
    const result = emailSendRequest.safeParse({ from: 'a@example.com', to, subject: 's', extra: 1 });
    expect(result.success).toBe(false);
    expect(fieldsOfIssues(result.error!.issues)).toEqual([
      { path: 'to', message: 'must have at most 150 entries' },
      { path: 'extra', message: 'is not a known field' },
    ]);
  });
});
