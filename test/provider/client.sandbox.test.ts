import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createProviderClient,
  ProviderAuthenticationError,
  ProviderNotFoundError,
  ProviderRateLimitedError,
  ProviderValidationError,
  sandboxEndpoints,
  type ClosableProviderClient,
  type ProviderClientConfig,
} from '../../src/provider/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import type { OutboxSms } from '../../src/sandbox/state.js';

let sandbox: StartedSandbox;
let provider: ClosableProviderClient;
const opened: ClosableProviderClient[] = [];

/** A client of the running sandbox with its default credentials, less whatever is overridden. */
function clientOf(
  target: StartedSandbox,
  overrides: { messaging?: object; payment?: object; checkout?: object } = {},
): ClosableProviderClient {
  const urls = sandboxEndpoints(target.url);
  const config: ProviderClientConfig = {
    messaging: { baseUrl: urls.messaging, apiKey: 'test-api-key', apiSecret: 'test-api-secret', ...overrides.messaging },
    payment: { baseUrl: urls.payment, username: 'test-user', password: 'test-password', ...overrides.payment },
    checkout: { baseUrl: urls.checkout, apiKey: 'test-checkout-key', ...overrides.checkout },
  };
  const client = createProviderClient(config);
  opened.push(client);
  return client;
}

beforeAll(async () => {
  sandbox = await startSandbox({ timeScale: 0.01 });
  provider = clientOf(sandbox);
});

afterAll(async () => {
  await Promise.all(opened.map((client) => client.close()));
  await sandbox.close();
});

const KWAME = '233240000001';
let orderNo = 0;
const payment = (overrides: Record<string, unknown> = {}) => ({
  amount: 12.5,
  referenceNo: `ORDER-${process.pid}-${++orderNo}`,
  payee: 'Test Shop',
  narration: 'Order',
  msisdn: KWAME,
  callbackId: 'cb-1',
  payer: 'Kwame',
  ...overrides,
});

describe('provider client against the sandbox: every endpoint', () => {
  it('sends an SMS, resends it, reads its receipt, and sends in bulk', async () => {
    const sent = await provider.sms.send({ to: KWAME, from: 'Shop', type: 'Quick', message: 'Hello', isGlobal: false });
    expect(sent.statusCode).toBe(201);
    const first = sent.data.batches[0]?.messages[0];
    expect(first).toMatchObject({ to: KWAME, message: 'Hello' });

    const resent = await provider.sms.resend(first!.sequenceNo, { message: 'Hello again' });
    expect(resent.data.batches[0]?.messages[0]?.message).toBe('Hello again');

    const receipt = await provider.sms.receipt(sent.sequenceNo);
    expect(receipt.data).toMatchObject({ sequenceNo: sent.sequenceNo, message: 'Hello', receiverAddress: [KWAME] });

    const bulk = await provider.sms.bulk({
      isGlobal: false,
      messages: [
        { to: KWAME, from: 'Shop', message: 'One', type: 'Quick' },
        { to: '233200000003', from: 'Shop', message: 'Two', type: 'Quick' },
      ],
    });
    expect(bulk.sequenceNo).toBeNull();
    expect(bulk.data.batches.flatMap((b) => b.messages).map((m) => m.message)).toEqual(['One', 'Two']);
  });

  it('generates an OTP and validates the code that reached the phone', async () => {
    const generated = await provider.otp.generate({
      recipient: KWAME,
      from: 'Shop',
      message: 'Your code is {code}',
      pinLength: 6,
      pinType: 'NUMERIC',
      expiry: { amount: 5, duration: 'minutes' },
      maxAmountOfValidationRetries: 3,
    });
    expect(generated.data.code).toMatch(/^\*{6}$/);
    const sms = sandbox.app.sandbox.outbox.filter((e): e is OutboxSms => e.kind === 'sms' && e.otpId === generated.data.uuid);
    const code = /Your code is (\d{6})/.exec(sms.at(-1)?.message ?? '')?.[1];
    expect(code).toBeDefined();
    const validated = await provider.otp.validate({ recipient: KWAME, code: code! });
    expect(validated.statusCode).toBe('200');
    expect(validated.sequenceNo).toBeNull();
  });

  it('sends an email and reads the balance', async () => {
    const email = await provider.email.send({ from: 'shop@example.com', to: 'ama@example.com', subject: 'Receipt', text: 'Thanks' });
    expect(email.statusCode).toBe('200');
    const balance = await provider.account.balance();
    expect(balance.data.credit).toEqual(expect.any(Number));
  });

  it('initiates a payment, reads its status by referenceId and by referenceNo, and looks up the account holder', async () => {
    const request = payment();
    const initiated = await provider.payments.initiate(request);
    expect(initiated).toMatchObject({ statusCode: '0001', statusMessage: 'PENDING', data: { amount: 12.5 } });
    const byId = await provider.payments.status(initiated.data.referenceId);
    const byNo = await provider.payments.status(request.referenceNo);
    expect(byId.statusCode).toBe('0000');
    expect(byNo.data.reference).toBe(byId.data.reference);
    const holder = await provider.payments.accountHolder(KWAME);
    expect(holder.data).toEqual({ accountName: 'KWAME MENSAH', msisdn: KWAME, network: 'MTN' });
  });

  it('initializes a checkout session and reads its status', async () => {
    const session = await provider.checkout.initialize({
      title: 'Order 1',
      reference: 'ORDER-1',
      amount: 25,
      description: 'Two items',
      returnUrl: 'https://shop.example.com/done',
    });
    expect(session.status).toBe('active');
    const status = await provider.checkout.status(session.checkoutId);
    expect(status).toMatchObject({ checkoutId: session.checkoutId, status: 'pending', amount: 25 });
  });
});

describe('provider client against the sandbox: documented errors', () => {
  it('reports wrong credentials of each interface as authentication errors', async () => {
    const wrong = clientOf(sandbox, {
      messaging: { apiKey: 'wrong-key' },
      payment: { password: 'wrong-password' },
      checkout: { apiKey: 'wrong-checkout-key' },
    });
    const failures = await Promise.all([
      wrong.account.balance().catch((e: unknown) => e),
      wrong.payments.accountHolder(KWAME).catch((e: unknown) => e),
      wrong.checkout.status('anything').catch((e: unknown) => e),
    ]);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(ProviderAuthenticationError);
      expect(failure).toMatchObject({ status: 401 });
    }
    expect(failures[0]).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(failures[1]).toMatchObject({ code: '0401', message: 'Unauthorized' });
    expect(failures[2]).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('reports a balance read with a limited key as a 403', async () => {
    const limited = clientOf(sandbox, { messaging: { apiKey: 'test-limited-key', apiSecret: 'test-limited-secret' } });
    const error = await limited.account.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderAuthenticationError);
    expect(error).toMatchObject({ status: 403 });
  });

  it('reports unknown receipts, payments, checkouts and resends as not found', async () => {
    const failures = await Promise.all([
      provider.sms.receipt('no-such-sequence').catch((e: unknown) => e),
      provider.payments.status('no-such-payment').catch((e: unknown) => e),
      provider.checkout.status('no-such-checkout').catch((e: unknown) => e),
      provider.sms.resend('no-such-message', { message: 'again' }).catch((e: unknown) => e),
      provider.payments.accountHolder('233240000404').catch((e: unknown) => e),
    ]);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(ProviderNotFoundError);
      expect(failure).toMatchObject({ status: 404 });
    }
    expect(failures[1]).toMatchObject({ code: '0404', message: 'Transaction not found' });
    expect(failures[4]).toMatchObject({ code: '0404' });
  });

  it('reports a duplicate referenceNo as the gateway 0400', async () => {
    const request = payment();
    await provider.payments.initiate(request);
    const error = await provider.payments.initiate(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderValidationError);
    expect(error).toMatchObject({ status: 400, code: '0400', sent: true, message: 'Bad Request' });
  });

  it('reports the sixth email in a minute as rate limited, with Retry-After', async () => {
    // Real time here: at a time scale of 0.01 the one-minute window would last 0.6 s.
    const realTime = await startSandbox();
    try {
      const client = clientOf(realTime);
      const send = () => client.email.send({ from: 'shop@example.com', to: 'ama@example.com', subject: 'Hi', text: 'x' });
      for (let i = 0; i < 5; i++) await send();
      const error = await send().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderRateLimitedError);
      expect(error).toMatchObject({ status: 429 });
      const retryAfter = (error as ProviderRateLimitedError).retryAfter;
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    } finally {
      await realTime.close();
    }
  });

  it('refuses an invalid number upstream with the provider code', async () => {
    // 8-15 digits passes the client's check; the sandbox only takes Ghanaian numbers without isGlobal.
    const error = await provider.sms.send({ to: '4912345678', from: 'Shop', type: 'Quick', message: 'x', isGlobal: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderValidationError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_PHONE_NUMBER', sent: true });
  });
});
