import { describe, expect, it, vi } from 'vitest';
import {
  createProviderClient,
  ProviderMalformedResponseError,
  ProviderNotFoundError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  ProviderValidationError,
  type ProviderClientConfig,
} from '../../src/provider/index.js';

/** A fetch that answers from a list of canned responses (the last one repeats) and records each request. */
function cannedFetch(...answers: Array<() => Response | Promise<Response>>) {
  const calls: Array<{ url: string; init: RequestInit; headers: Headers }> = [];
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {}, headers: new Headers(init?.headers) });
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return answer();
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls, spy: fetch };
}

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const now = '2025-08-01T10:00:00.000Z';
const balance = {
  statusCode: '200',
  statusMessage: 'Successful',
  transactionId: 't1',
  sequenceNo: null,
  timestamp: now,
  data: { id: 1, credit: 10, intlCredit: 2, intlTotalAmount: '0', userId: { id: 1, name: 'Shop', username: null, phone: '233240000001' } },
};
const smsSent = {
  statusCode: 201,
  statusMessage: 'Sent',
  transactionId: 't2',
  sequenceNo: 's1',
  timestamp: now,
  data: { totalBatches: 1, senderAddress: 'Shop', batches: [{ jobId: 'j', messages: [{ to: '233240000001', from: 'Shop', message: 'hi', type: 'Quick', sequenceNo: 's1', transactionId: 't2' }] }] },
};
const paymentStatus = {
  statusCode: '0000',
  statusMessage: 'Successful',
  transactionId: 't3',
  data: { reference: 'R', status: 'PENDING', amount: 1, charge: 0, totalAmount: 1, payee: 'Shop', payer: 'Ama', narration: 'n', msisdn: '233240000001', completedAt: null },
  links: [],
};
const unavailable = reply(503, { error: 'SERVICE_UNAVAILABLE', message: 'Down', details: {} });

function client(fetch: typeof globalThis.fetch, overrides: Partial<ProviderClientConfig> = {}) {
  return createProviderClient({
    messaging: { baseUrl: 'https://api.example.test/', apiKey: 'key-1', apiSecret: 'secret-1' },
    payment: { baseUrl: 'https://pay.example.test/gw', username: 'user', password: 'pass' },
    checkout: { apiKey: 'checkout-key' },
    fetch,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...overrides,
  });
}

const sms = { to: '233240000001', from: 'Shop', type: 'Quick', message: 'hi', isGlobal: false };

describe('createProviderClient: configuration', () => {
  it('names every problem of the configuration', () => {
    expect(() =>
      createProviderClient({
        messaging: { baseUrl: 'not a url', apiKey: '', apiSecret: 's' },
        payment: { baseUrl: 'https://pay.example.test', username: 'a:b', password: 'p' },
        checkout: { apiKey: 'k' },
        timeouts: { totalMs: 0 },
      }),
    ).toThrow(
      /messaging\.baseUrl: must be an absolute http\(s\) URL; messaging\.apiKey: must not be empty; payment\.username: must not contain ":".*; timeouts\.totalMs: must be at least 1/,
    );
    expect(() => createProviderClient({} as ProviderClientConfig)).toThrow(/messaging: is required/);
  });
});

describe('createProviderClient: requests', () => {
  it('sends the messaging credentials and version on messaging calls, JSON on POSTs', async () => {
    const { fetch, calls } = cannedFetch(reply(201, smsSent), reply(200, balance));
    const provider = client(fetch);
    const sent = await provider.sms.send(sms);
    expect(sent.data.batches[0]?.messages[0]?.sequenceNo).toBe('s1');
    await provider.account.balance();
    const [post, get] = calls;
    expect(post?.url).toBe('https://api.example.test/v1/external/sms/quick');
    expect(post?.init.method).toBe('POST');
    expect(JSON.parse(String(post?.init.body))).toEqual(sms);
    for (const call of [post, get]) {
      expect(call?.headers.get('x-api-key')).toBe('key-1');
      expect(call?.headers.get('x-api-secret')).toBe('secret-1');
      expect(call?.headers.get('x-api-version')).toBe('2025-08-01');
      expect(call?.headers.get('authorization')).toBeNull();
    }
    expect(post?.headers.get('content-type')).toBe('application/json');
    expect(get?.url).toBe('https://api.example.test/v1/external/account/balance');
    expect(get?.init.method).toBe('GET');
    expect(get?.headers.get('content-type')).toBeNull();
  });

  it('sends Basic to the gateway and Bearer to checkout, with no version header, and encodes path parameters', async () => {
    const { fetch, calls } = cannedFetch(reply(200, paymentStatus), reply(404, { error: 'NOT_FOUND', message: 'No session', details: {} }));
    const provider = client(fetch);
    await provider.payments.status('ORDER 1/2?');
    await expect(provider.checkout.status('chk#1')).rejects.toBeInstanceOf(ProviderNotFoundError);
    const [gateway, checkout] = calls;
    expect(gateway?.url).toBe('https://pay.example.test/gw/v1/payment/ORDER%201%2F2%3F/status');
    expect(gateway?.headers.get('authorization')).toBe(`Basic ${Buffer.from('user:pass').toString('base64')}`);
    expect(checkout?.url).toBe('https://api.example.test/v1/checkout/chk%231/status');
    expect(checkout?.headers.get('authorization')).toBe('Bearer checkout-key');
    for (const call of [gateway, checkout]) {
      expect(call?.headers.get('x-api-version')).toBeNull();
      expect(call?.headers.get('x-api-key')).toBeNull();
    }
  });
});

describe('createProviderClient: local validation', () => {
  const cases: Array<[string, (p: ReturnType<typeof client>) => Promise<unknown>, RegExp]> = [
    ['an SMS of 1601 characters', (p) => p.sms.send({ ...sms, message: 'x'.repeat(1601) }), /sms\.send: message: must be at most 1600 characters/],
    ['a resend of 1601 characters', (p) => p.sms.resend('m1', { message: 'x'.repeat(1601) }), /message: must be at most 1600/],
    ['pinLength 3', (p) => p.otp.generate(otp({ pinLength: 3 })), /pinLength: must be at least 4/],
    ['pinLength 11', (p) => p.otp.generate(otp({ pinLength: 11 })), /pinLength: must be at most 10/],
    ['retries 0', (p) => p.otp.generate(otp({ maxAmountOfValidationRetries: 0 })), /maxAmountOfValidationRetries: must be at least 1/],
    [
      '151 recipients',
      (p) => p.email.send({ from: 'a@example.com', to: Array.from({ length: 151 }, (_, i) => `u${i}@example.com`), subject: 's' }),
      /email\.send: to: must have at most 150 entries/,
    ],
    [
      'checkout amount 0',
      (p) => p.checkout.initialize({ title: 't', reference: 'r', amount: 0, description: 'd', returnUrl: 'https://shop.test/done' }),
      /checkout\.initialize: amount: must be at least 0\.01/,
    ],
    ['an empty payment reference', (p) => p.payments.status(''), /payments\.status: reference: must be a non-empty string/],
    ['an empty sequenceNo', (p) => p.sms.receipt(' '), /sequenceNo: must be a non-empty string/],
  ];

  for (const [what, call, message] of cases) {
    it(`refuses ${what} without sending it`, async () => {
      const { fetch, spy } = cannedFetch(reply(200, {}));
      const error = await call(client(fetch)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ProviderValidationError);
      expect(error).toMatchObject({ sent: false, status: 0 });
      expect((error as ProviderValidationError).message).toMatch(message);
      expect((error as ProviderValidationError).fields?.length).toBeGreaterThan(0);
      expect(spy).not.toHaveBeenCalled();
    });
  }
});

function otp(overrides: Record<string, unknown>) {
  return {
    recipient: '233240000001',
    from: 'Shop',
    message: 'Code {code}',
    pinLength: 6,
    pinType: 'NUMERIC' as const,
    expiry: { amount: 5, duration: 'minutes' as const },
    maxAmountOfValidationRetries: 5,
    ...overrides,
  };
}

describe('createProviderClient: answers', () => {
  it('reports a body that is not JSON as malformed, keeping the text and status', async () => {
    const { fetch } = cannedFetch(reply(200, '{"statusCode":"20'));
    const error = await client(fetch).account.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderMalformedResponseError);
    expect(error).toMatchObject({ status: 200, raw: '{"statusCode":"20', operation: 'account.balance' });
  });

  it('reports JSON that does not match the schema as malformed', async () => {
    const { fetch } = cannedFetch(reply(200, { ...balance, data: { id: 'one' } }));
    const error = await client(fetch).account.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderMalformedResponseError);
    expect((error as Error).message).toMatch(/does not match its schema: data\.id/);
  });

  it('maps a gateway 0404 answered with HTTP 200 to not found', async () => {
    const { fetch } = cannedFetch(reply(200, { statusCode: '0404', statusMessage: 'Account holder not found', transactionId: null, data: null, links: [] }));
    const error = await client(fetch).payments.accountHolder('233240000404').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderNotFoundError);
    expect(error).toMatchObject({ code: '0404' });
  });
});

describe('createProviderClient: error stacks', () => {
  const frames = (error: unknown) => ((error as Error).stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)).length;

  it('captures a stack by default, for a merchant calling the client', async () => {
    const refused = await client(cannedFetch(reply(400, { error: 'INVALID_PHONE_NUMBER', message: 'Bad number' })).fetch)
      .sms.send({ to: '233240000001', from: 'Shop', type: 'Quick', message: 'hi', isGlobal: false })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'INVALID_PHONE_NUMBER', status: 400 });
    expect(frames(refused)).toBeGreaterThan(0);
  });

  it('captures none with errorStacks: false, answer and transport errors alike, and restores the stack limit', async () => {
    const limit = Error.stackTraceLimit;
    const refused = await client(cannedFetch(reply(400, { error: 'INVALID_PHONE_NUMBER', message: 'Bad number' })).fetch, { errorStacks: false })
      .sms.send({ to: '233240000001', from: 'Shop', type: 'Quick', message: 'hi', isGlobal: false })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'INVALID_PHONE_NUMBER', status: 400, message: 'Bad number' });
    expect(frames(refused)).toBe(0);
    const reset = () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }));
    const lost = await client(cannedFetch(reset).fetch, { errorStacks: false }).account.balance().catch((e: unknown) => e);
    expect(lost).toMatchObject({ reason: 'network' });
    expect(frames(lost)).toBe(0);
    expect(Error.stackTraceLimit).toBe(limit);
  });
});

describe('createProviderClient: timeouts and network failures', () => {
  const never = () => new Promise<Response>(() => undefined);

  it('ends a call that never answers at the total timeout, even with a fetch that ignores the signal', async () => {
    const { fetch } = cannedFetch(never);
    const provider = client(fetch, { timeouts: { totalMs: 80 }, circuitBreaker: false });
    const started = Date.now();
    const post = await provider.sms.send(sms).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(post).toBeInstanceOf(ProviderUnavailableError);
    expect(post).toMatchObject({ reason: 'timeout', outcomeUnknown: true, status: 0 });
    const get = await provider.account.balance().catch((e: unknown) => e);
    expect(get).toMatchObject({ reason: 'timeout', outcomeUnknown: false });
  });

  it('knows a refused connection sent nothing and a reset one may have', async () => {
    const failing = (code: string) => () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) }));
    const refused = await client(cannedFetch(failing('ECONNREFUSED')).fetch).sms.send(sms).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'network', outcomeUnknown: false });
    const reset = await client(cannedFetch(failing('ECONNRESET')).fetch).sms.send(sms).catch((e: unknown) => e);
    expect(reset).toMatchObject({ reason: 'network', outcomeUnknown: true });
    const connect = await client(cannedFetch(failing('UND_ERR_CONNECT_TIMEOUT')).fetch).sms.send(sms).catch((e: unknown) => e);
    expect(connect).toMatchObject({ reason: 'timeout', outcomeUnknown: false });
  });

  it("passes the caller's abort through untouched", async () => {
    const { fetch } = cannedFetch(never);
    const controller = new AbortController();
    const pending = client(fetch).account.balance({ signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });
});

describe('createProviderClient: retries', () => {
  it('retries a GET through unavailability, at most twice', async () => {
    const recovering = cannedFetch(unavailable, unavailable, reply(200, balance));
    await expect(client(recovering.fetch).account.balance()).resolves.toMatchObject({ statusCode: '200' });
    expect(recovering.calls).toHaveLength(3);

    const down = cannedFetch(unavailable);
    await expect(client(down.fetch).account.balance()).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(down.calls).toHaveLength(3);
  });

  it('sends a GET once when the call says retry: false (a probe wants the first answer)', async () => {
    const recovering = cannedFetch(unavailable, reply(200, balance));
    await expect(client(recovering.fetch).account.balance({ retry: false })).rejects.toMatchObject({ reason: 'http', status: 503 });
    expect(recovering.calls).toHaveLength(1);
  });

  it('never retries a POST, a 429 or a 404', async () => {
    const post = cannedFetch(unavailable, reply(201, smsSent));
    await expect(client(post.fetch).sms.send(sms)).rejects.toMatchObject({ reason: 'http', status: 503, outcomeUnknown: false });
    expect(post.calls).toHaveLength(1);

    const limited = cannedFetch(reply(429, { error: 'RATE_LIMITED', message: 'Later', details: {} }, { 'retry-after': '7' }), reply(200, balance));
    const rateLimited = await client(limited.fetch).account.balance().catch((e: unknown) => e);
    expect(rateLimited).toBeInstanceOf(ProviderRateLimitedError);
    expect(rateLimited).toMatchObject({ retryAfter: 7, status: 429 });
    expect(limited.calls).toHaveLength(1);

    const missing = cannedFetch(reply(404, { error: 'NOT_FOUND', message: 'No', details: {} }), reply(200, paymentStatus));
    await expect(client(missing.fetch).payments.status('R')).rejects.toBeInstanceOf(ProviderNotFoundError);
    expect(missing.calls).toHaveLength(1);
  });
});

describe('createProviderClient: circuit breaker', () => {
  const breaker = { threshold: 0.5, minimumCalls: 4, windowMs: 10_000, halfOpenAfterMs: 60 };

  it('opens on unavailability, fails fast without sending, then lets a trial through', async () => {
    const answers = cannedFetch(unavailable, unavailable, unavailable, unavailable, reply(200, balance));
    const provider = client(answers.fetch, { retry: { maxRetries: 0 }, circuitBreaker: breaker });
    for (let i = 0; i < 4; i++) await expect(provider.account.balance()).rejects.toMatchObject({ reason: 'http' });
    expect(provider.circuitState()).toBe('open');

    const fast = await provider.sms.send(sms).catch((e: unknown) => e);
    expect(fast).toBeInstanceOf(ProviderUnavailableError);
    expect(fast).toMatchObject({ reason: 'circuit-open', outcomeUnknown: false, status: 0 });
    expect(answers.calls).toHaveLength(4);

    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(provider.circuitState()).toBe('half-open');
    await expect(provider.account.balance()).resolves.toMatchObject({ statusCode: '200' });
    expect(provider.circuitState()).toBe('closed');
  });

  it('does not count answers like 404 or 429', async () => {
    const answers = cannedFetch(reply(404, { error: 'NOT_FOUND', message: 'No', details: {} }));
    const provider = client(answers.fetch, { circuitBreaker: breaker });
    for (let i = 0; i < 6; i++) await expect(provider.sms.receipt('s')).rejects.toBeInstanceOf(ProviderNotFoundError);
    expect(provider.circuitState()).toBe('closed');
  });

  it('can be disabled', async () => {
    const answers = cannedFetch(unavailable);
    const provider = client(answers.fetch, { retry: { maxRetries: 0 }, circuitBreaker: false });
    for (let i = 0; i < 12; i++) await expect(provider.sms.send(sms)).rejects.toMatchObject({ reason: 'http' });
    expect(answers.calls).toHaveLength(12);
    expect(provider.circuitState()).toBe('closed');
  });
});

describe('createProviderClient: logging', () => {
  it('logs operation, status and duration of each attempt, never credentials, bodies or numbers', async () => {
    const lines: Array<{ level: string; fields: object; message?: string }> = [];
    const log = (level: string) => (fields: object, message?: string) => lines.push({ level, fields, message });
    const logger = { debug: log('debug'), warn: log('warn'), error: log('error') };
    const { fetch } = cannedFetch(reply(201, smsSent), unavailable, reply(401, { error: 'UNAUTHORIZED', message: 'Bad key', details: {} }));
    const provider = client(fetch, { logger, retry: { maxRetries: 0 } });
    await provider.sms.send(sms);
    await provider.payments.accountHolder('233240000001').catch(() => undefined);
    await provider.account.balance().catch(() => undefined);

    expect(lines.map((l) => l.level)).toEqual(['debug', 'warn', 'error']);
    expect(lines[0]?.fields).toMatchObject({ operation: 'sms.send', method: 'POST', status: 201, attempt: 1 });
    expect(lines[1]?.fields).toMatchObject({ operation: 'payments.accountHolder', status: 503, reason: 'http' });
    expect(lines[2]?.fields).toMatchObject({ operation: 'account.balance', status: 401, error: 'ProviderAuthenticationError' });
    for (const line of lines) expect(typeof (line.fields as { durationMs?: unknown }).durationMs).toBe('number');
    const everything = JSON.stringify(lines);
    for (const secret of ['key-1', 'secret-1', 'checkout-key', 'pass', '233240000001', 'hi']) {
      expect(everything).not.toContain(secret);
    }
  });

  it('closes without error', async () => {
    await expect(createProviderClient({
      messaging: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', apiSecret: 's' },
      payment: { baseUrl: 'http://127.0.0.1:9', username: 'u', password: 'p' },
      checkout: { apiKey: 'c' },
    }).close()).resolves.toBeUndefined();
  });
});
