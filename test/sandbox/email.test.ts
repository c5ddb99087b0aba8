import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emailSendResponse, providerErrorBody } from '../../src/provider/schemas/index.js';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import type { OutboxEmail } from '../../src/sandbox/state.js';
import { AUTH, LIMITED_AUTH, call, start } from './messaging-fixtures.js';

const SEND = '/v1/external/email/send';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const email = (overrides: Record<string, unknown> = {}) => ({
  from: 'shop@example.com',
  to: 'kwame@example.com',
  subject: 'Your receipt',
  text: 'Thank you for your order.',
  ...overrides,
});
const addresses = (n: number, prefix = 'user') => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

afterEach(() => {
  vi.useRealTimers();
});

describe('POST /v1/external/email/send', () => {
  let sandbox: StartedSandbox;
  beforeAll(async () => {
    sandbox = await start({ emailRatePerMinute: 1_000 });
  });
  afterAll(() => sandbox.close());

  const lastEmail = () => sandbox.app.sandbox.outbox.filter((e): e is OutboxEmail => e.kind === 'email').at(-1);

  it('schedules the email: statusCode "200", ULID identifiers, data null, and an outbox entry', async () => {
    const res = await call(sandbox, 'POST', SEND, email({ cc: 'ama@example.com', html: '<p>Thanks</p>' }));
    expect(res.status).toBe(200);
    const body = emailSendResponse.parse(res.body);
    expect(body).toMatchObject({ statusCode: '200', data: null });
    expect(body.statusMessage).toMatch(/scheduled/i);
    expect(body.transactionId).toMatch(ULID);
    expect(body.sequenceNo).toMatch(ULID);
    expect(lastEmail()).toMatchObject({
      kind: 'email',
      sequenceNo: body.sequenceNo,
      transactionId: body.transactionId,
      from: 'shop@example.com',
      to: ['kwame@example.com'],
      cc: ['ama@example.com'],
      bcc: [],
      subject: 'Your receipt',
      text: 'Thank you for your order.',
      html: '<p>Thanks</p>',
    });
  });

  it('accepts a sender written as "Name <address>" and every optional field', async () => {
    const res = await call(
      sandbox,
      'POST',
      SEND,
      email({
        from: 'Shop <shop@example.com>',
        replyTo: 'help@example.com',
        attachments: [{ filename: 'receipt.txt', content: 'SGVsbG8=', contentType: 'text/plain' }],
        tags: { order: '123' },
        headers: { 'X-Order': '123' },
        scheduledAt: '2030-01-01T10:00:00Z',
      }),
    );
    expect(res.status).toBe(200);
    emailSendResponse.parse(res.body);
  });

  it.each(['to', 'cc', 'bcc'])('accepts 150 addresses in %s and refuses 151 with TOO_MANY_RECIPIENTS', async (field) => {
    const ok = await call(sandbox, 'POST', SEND, email({ [field]: addresses(150) }));
    expect(ok.status).toBe(200);
    expect(lastEmail()![field as 'to' | 'cc' | 'bcc']).toHaveLength(150);
    const before = sandbox.app.sandbox.outbox.length;
    const tooMany = await call(sandbox, 'POST', SEND, email({ [field]: addresses(151) }));
    expect(tooMany.status).toBe(400);
    expect(providerErrorBody.parse(tooMany.body).error).toBe('TOO_MANY_RECIPIENTS');
    expect(sandbox.app.sandbox.outbox.length).toBe(before);
  });

  it('refuses an invalid address with VALIDATION_ERROR naming it', async () => {
    const res = await call(sandbox, 'POST', SEND, email({ to: ['kwame@example.com', 'not-an-address'] }));
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('VALIDATION_ERROR');
    expect(res.body.details.fields).toEqual([expect.objectContaining({ path: 'to.1' })]);
  });

  it('refuses an invalid sender and a missing subject with VALIDATION_ERROR', async () => {
    const badFrom = await call(sandbox, 'POST', SEND, email({ from: 'the shop' }));
    expect(badFrom.status).toBe(400);
    expect(badFrom.body).toMatchObject({ error: 'VALIDATION_ERROR', details: { fields: [{ path: 'from' }] } });
    const { subject: _omitted, ...noSubject } = email();
    const missing = await call(sandbox, 'POST', SEND, noSubject);
    expect(missing.status).toBe(400);
    expect(missing.body.details.fields).toEqual([expect.objectContaining({ path: 'subject' })]);
  });

  it('answers 502 EMAIL_SERVICE_UNAVAILABLE for a recipient at fail.sandbox.invalid, sending nothing', async () => {
    const before = sandbox.app.sandbox.outbox.length;
    const res = await call(sandbox, 'POST', SEND, email({ bcc: ['ok@example.com', 'anyone@fail.sandbox.invalid'] }));
    expect(res.status).toBe(502);
    expect(providerErrorBody.parse(res.body).error).toBe('EMAIL_SERVICE_UNAVAILABLE');
    expect(sandbox.app.sandbox.outbox.length).toBe(before);
  });

  it('refuses a request without x-api-version with 400 MISSING_API_VERSION', async () => {
    const { 'x-api-version': _omitted, ...headers } = AUTH;
    const res = await call(sandbox, 'POST', SEND, email(), headers);
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('MISSING_API_VERSION');
  });

  it('refuses another x-api-version value with 400 MISSING_API_VERSION', async () => {
    const res = await call(sandbox, 'POST', SEND, email(), { ...AUTH, 'x-api-version': '2024-01-01' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('MISSING_API_VERSION');
  });

  it.each([
    ['an unknown key', { 'x-api-key': 'nope' }, /key/i],
    ['a wrong secret', { 'x-api-secret': 'nope' }, /secret/i],
  ])('answers 401 UNAUTHORIZED naming the cause for %s', async (_label, override, cause) => {
    const res = await call(sandbox, 'POST', SEND, email(), { ...AUTH, ...override });
    expect(res.status).toBe(401);
    const body = providerErrorBody.parse(res.body);
    expect(body).toMatchObject({ error: 'UNAUTHORIZED', details: {} });
    expect(body.message).toMatch(cause);
  });
});

describe('email rate limit', () => {
  it('answers the 6th email within a minute with 429 RATE_LIMITED and Retry-After, per API key', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const sandbox = await start({ timeScale: 1 });
    try {
      for (let i = 0; i < 5; i++) expect((await call(sandbox, 'POST', SEND, email())).status).toBe(200);
      const sixth = await call(sandbox, 'POST', SEND, email());
      expect(sixth.status).toBe(429);
      expect(providerErrorBody.parse(sixth.body)).toMatchObject({ error: 'RATE_LIMITED', details: { retryAfter: 60 } });
      expect(sixth.headers.get('retry-after')).toBe('60');

      // Another key has its own allowance.
      expect((await call(sandbox, 'POST', SEND, email(), LIMITED_AUTH)).status).toBe(200);

      vi.setSystemTime(Date.now() + 45_000);
      const later = await call(sandbox, 'POST', SEND, email());
      expect(later.status).toBe(429);
      expect(later.headers.get('retry-after')).toBe('15');

      vi.setSystemTime(Date.now() + 15_001);
      expect((await call(sandbox, 'POST', SEND, email())).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('scales the window with the time scale and never answers Retry-After below 1', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const sandbox = await start({ timeScale: 0.01, emailRatePerMinute: 2 });
    try {
      expect((await call(sandbox, 'POST', SEND, email())).status).toBe(200);
      expect((await call(sandbox, 'POST', SEND, email())).status).toBe(200);
      const third = await call(sandbox, 'POST', SEND, email());
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('1');
      expect(third.body.details.retryAfter).toBe(1);
      vi.setSystemTime(Date.now() + 601);
      expect((await call(sandbox, 'POST', SEND, email())).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('starts a fresh window after POST /__sandbox/reset', async () => {
    const sandbox = await start({ timeScale: 1, emailRatePerMinute: 2 });
    try {
      for (let i = 0; i < 2; i++) expect((await call(sandbox, 'POST', SEND, email())).status).toBe(200);
      expect((await call(sandbox, 'POST', SEND, email())).status).toBe(429);
      expect((await call(sandbox, 'POST', '/__sandbox/reset', {})).status).toBe(204);
      expect((await call(sandbox, 'POST', SEND, email())).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});
