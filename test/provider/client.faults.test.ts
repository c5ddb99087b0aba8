import { spawn, type ChildProcess } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createProviderClient,
  ProviderMalformedResponseError,
  ProviderUnavailableError,
  sandboxEndpoints,
  type ClosableProviderClient,
  type ProviderClientConfig,
} from '../../src/provider/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { localConfig } from './local-config.js';

let sandbox: StartedSandbox;
const opened: ClosableProviderClient[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ timeScale: 0.01 });
});

afterAll(async () => {
  await Promise.all(opened.map((client) => client.close()));
  await sandbox.close();
});

/** A fetch around the global one that asks the sandbox for `fault` on the first `times` attempts, counting attempts. */
function faulty(fault: string, times = 1) {
  let attempts = 0;
  const fetch: typeof globalThis.fetch = (input, init) => {
    attempts += 1;
    const headers = new Headers(init?.headers);
    if (attempts <= times) headers.set('x-sandbox-fault', fault);
    return globalThis.fetch(input, { ...init, headers });
  };
  return { fetch, attempts: () => attempts };
}

/** A client of the sandbox; without `fetch`, on the client's own transport. */
function clientWith(fetch: typeof globalThis.fetch | undefined, overrides: Partial<ProviderClientConfig> = {}): ClosableProviderClient {
  const urls = sandboxEndpoints(sandbox.url);
  const client = createProviderClient({
    messaging: { baseUrl: urls.messaging, apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
    payment: { baseUrl: urls.payment, username: 'test-user', password: 'test-password' },
    checkout: { baseUrl: urls.checkout, apiKey: 'test-checkout-key' },
    ...(fetch ? { fetch } : {}),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...overrides,
  });
  opened.push(client);
  return client;
}

/** A client of a server of the test's own on loopback `port` (every interface there), without retries. */
function localClient(port: number, overrides: Partial<ProviderClientConfig> = {}): ClosableProviderClient {
  const client = createProviderClient(localConfig(port, overrides));
  opened.push(client);
  return client;
}

/** Runs `test` against an HTTP server answering with `handler` on loopback, then closes it and its connections. */
async function withServer(handler: RequestListener, test: (port: number) => Promise<void>): Promise<void> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await test((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const KWAME = '233240000001';
/** A server with an accept queue of one, printing its port (then the test stops its process). */
const DARK_SERVER =
  "const s = require('node:net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => process.stdout.write(String(s.address().port)));";
const sms = (message: string) => ({ to: KWAME, from: 'Shop', type: 'Quick', message, isGlobal: false });
const smsCount = (message: string) =>
  sandbox.app.sandbox.outbox.filter((e) => e.kind === 'sms' && e.message === message).length;

describe('provider client against sandbox faults', () => {
  it('retries a GET through a 503 and succeeds on the second attempt', async () => {
    const wrapper = faulty('503');
    const balance = await clientWith(wrapper.fetch).account.balance();
    expect(balance.statusCode).toBe('200');
    expect(wrapper.attempts()).toBe(2);
  });

  it('does not retry a POST through a 503, and knows it was not processed', async () => {
    const wrapper = faulty('503');
    const error = await clientWith(wrapper.fetch).sms.send(sms('refused by 503')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'http', status: 503, outcomeUnknown: false, code: 'SERVICE_UNAVAILABLE' });
    expect(wrapper.attempts()).toBe(1);
    expect(smsCount('refused by 503')).toBe(0);
  });

  it('reports a 500 after processing as an unknown outcome, and the SMS was indeed sent', async () => {
    const wrapper = faulty('500;after');
    const error = await clientWith(wrapper.fetch).sms.send(sms('lost answer')).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'http', status: 500, outcomeUnknown: true });
    expect(wrapper.attempts()).toBe(1);
    expect(smsCount('lost answer')).toBe(1);
  });

  it('maps the gateway envelope of an injected 503', async () => {
    const wrapper = faulty('503');
    const error = await clientWith(wrapper.fetch)
      .payments.initiate({ amount: 5, referenceNo: `F-${process.pid}-1`, payee: 'Shop', narration: 'n', msisdn: KWAME, callbackId: 'cb', payer: 'Kwame' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ status: 503, code: '0503', outcomeUnknown: false });
  });

  it('reports a malformed body with its raw text', async () => {
    const wrapper = faulty('malformed');
    const error = await clientWith(wrapper.fetch).account.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderMalformedResponseError);
    const { raw, status } = error as ProviderMalformedResponseError;
    expect(status).toBe(200);
    expect(typeof raw).toBe('string');
    expect(raw as string).toMatch(/^\{/);
    expect(() => JSON.parse(raw as string)).toThrow();
    expect(wrapper.attempts()).toBe(1);
  });

  it('ends a hanging call at the total timeout', async () => {
    const wrapper = faulty('hang');
    const client = clientWith(wrapper.fetch, { timeouts: { totalMs: 300 } });
    const started = Date.now();
    const error = await client.sms.send(sms('hung')).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'timeout', outcomeUnknown: true, status: 0 });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('reports a reset connection as a network failure with an unknown outcome on a POST', async () => {
    const wrapper = faulty('reset');
    const error = await clientWith(wrapper.fetch).sms.send(sms('reset')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'network', outcomeUnknown: true, status: 0 });
    expect(wrapper.attempts()).toBe(1);
  });

  it('retries a GET through a reset connection', async () => {
    const wrapper = faulty('reset');
    await expect(clientWith(wrapper.fetch).payments.accountHolder(KWAME)).resolves.toMatchObject({ statusCode: '0000' });
    expect(wrapper.attempts()).toBe(2);
  });

  it('opens the circuit after enough failures and then fails fast without calling the sandbox', async () => {
    const wrapper = faulty('502', Infinity);
    const client = clientWith(wrapper.fetch, {
      retry: { maxRetries: 0 },
      circuitBreaker: { threshold: 0.5, minimumCalls: 3, windowMs: 10_000, halfOpenAfterMs: 60_000 },
    });
    for (let i = 0; i < 3; i++) await expect(client.account.balance()).rejects.toMatchObject({ reason: 'http', status: 502 });
    expect(client.circuitState()).toBe('open');
    const error = await client.account.balance().catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'circuit-open', outcomeUnknown: false });
    expect(wrapper.attempts()).toBe(3);
  });

  it('keeps one circuit per interface: checkout status reads failing at the sandbox open only the checkout circuit', async () => {
    // The sandbox fails every checkout status read (a scripted fault on that path only); the rest answers.
    const scripted = await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: '503', method: 'GET', path: '/v1/checkout/', count: 1_000 }),
    });
    expect(scripted.status).toBe(201);
    try {
      const client = clientWith(undefined, {
        retry: { maxRetries: 0 },
        circuitBreaker: { threshold: 0.5, minimumCalls: 3, windowMs: 60_000, halfOpenAfterMs: 60_000 },
      });
      for (let i = 0; i < 3; i++) await expect(client.checkout.status(`co-${i}`)).rejects.toMatchObject({ reason: 'http', status: 503 });
      expect(client.circuitState('checkout')).toBe('open');
      await expect(client.checkout.status('co-x')).rejects.toMatchObject({ reason: 'circuit-open' });

      // The payment gateway and messaging are other services: their circuits stay closed and their calls go out.
      expect(client.circuitState('payment')).toBe('closed');
      expect(client.circuitState('messaging')).toBe('closed');
      await expect(
        client.payments.initiate({ amount: 1, referenceNo: `BRK-${process.pid}`, payee: 'Shop', narration: 'Order', msisdn: KWAME, callbackId: 'cb', payer: 'K' }),
      ).resolves.toMatchObject({ statusCode: '0001' });
      const otp = {
        recipient: KWAME,
        from: 'Shop',
        message: 'Your code is {code}',
        pinLength: 6,
        pinType: 'NUMERIC' as const,
        expiry: { amount: 5, duration: 'minutes' as const },
        maxAmountOfValidationRetries: 3,
      };
      await expect(client.otp.generate(otp)).resolves.toMatchObject({ statusCode: '200' });
      // Without an argument: the worst of the three.
      expect(client.circuitState()).toBe('open');
    } finally {
      await fetch(`${sandbox.url}/__sandbox/faults`, { method: 'DELETE' });
    }
  });
});

/**
 * The same faults through the client's own transport (undici's request API on its own pool, what the
 * proxy uses unless a fetch is injected): the sandbox is told by a scripted fault, so nothing wraps the call.
 */
describe("provider client's own transport against sandbox faults", () => {
  async function script(kind: string, options: { method?: string; path?: string; after?: boolean; count?: number } = {}) {
    const answer = await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind, count: options.count ?? 1, after: options.after ?? false, ...options }),
    });
    expect(answer.status).toBe(201);
  }
  const own = (overrides: Partial<ProviderClientConfig> = {}) => clientWith(undefined, overrides);
  const faultsLeft = () => sandbox.app.sandbox.scriptedFaults.length;

  beforeEach(() => {
    sandbox.app.sandbox.scriptedFaults.length = 0;
  });

  it('does not retry a POST through a 503, and knows it was not processed', async () => {
    await script('503', { method: 'POST' });
    const error = await own().sms.send(sms('own: refused by 503')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'http', status: 503, outcomeUnknown: false, code: 'SERVICE_UNAVAILABLE' });
    expect(smsCount('own: refused by 503')).toBe(0);
  });

  it('reports a 500 after processing as an unknown outcome, and the SMS was indeed sent', async () => {
    await script('500', { method: 'POST', after: true });
    const error = await own().sms.send(sms('own: lost answer')).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'http', status: 500, outcomeUnknown: true });
    expect(smsCount('own: lost answer')).toBe(1);
  });

  it('retries a GET through a 503 and a reset, and succeeds on the third attempt', async () => {
    await script('503', { method: 'GET' });
    await script('reset', { method: 'GET' });
    await expect(own().payments.accountHolder(KWAME)).resolves.toMatchObject({ statusCode: '0000' });
    expect(faultsLeft()).toBe(0);
  });

  it('reports a malformed body with its raw text', async () => {
    await script('malformed', { method: 'GET' });
    const error = await own({ retry: { maxRetries: 0 } }).account.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderMalformedResponseError);
    expect(error).toMatchObject({ status: 200 });
    expect(() => JSON.parse((error as ProviderMalformedResponseError).raw as string)).toThrow();
  });

  it('ends a hanging call at the total timeout', async () => {
    await script('hang', { method: 'POST' });
    const started = Date.now();
    const error = await own({ timeouts: { totalMs: 300 } }).sms.send(sms('own: hung')).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'timeout', outcomeUnknown: true, status: 0 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports a reset connection on a POST as a network failure with an unknown outcome', async () => {
    await script('reset', { method: 'POST' });
    const error = await own().sms.send(sms('own: reset')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'network', outcomeUnknown: true, status: 0 });
  });

  it('knows a refused connection sent nothing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = createProviderClient({
      messaging: { baseUrl: `http://127.0.0.1:${port}/v1/external`, apiKey: 'k', apiSecret: 's' },
      payment: { baseUrl: `http://127.0.0.1:${port}/gateway/v1`, username: 'u', password: 'p' },
      checkout: { apiKey: 'c' },
    });
    opened.push(client);
    const error = await client.sms.send(sms('nobody listens')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'network', outcomeUnknown: false });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('sends the path of a base URL with spaces or non-ASCII percent-encoded, as fetch did', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: 'NOT_FOUND', message: 'nothing here' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = createProviderClient({
        messaging: { baseUrl: `http://127.0.0.1:${port}/my shop/é`, apiKey: 'k', apiSecret: 's' },
        payment: { baseUrl: `http://127.0.0.1:${port}/gateway`, username: 'u', password: 'p' },
        checkout: { apiKey: 'c' },
        retry: { maxRetries: 0 },
      });
      opened.push(client);
      await expect(client.sms.receipt('SEQ 1')).rejects.toMatchObject({ status: 200 });
      await expect(client.payments.status('REF/1')).rejects.toBeInstanceOf(Error);
      expect(seen).toEqual(['/my%20shop/%C3%A9/v1/external/sms/logs/SEQ%201', '/gateway/v1/payment/REF%2F1/status']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('ends a call whose answer stalls after its headers at the total timeout', async () => {
    const stall: RequestListener = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"balance":');
    };
    await withServer(stall, async (port) => {
      const started = Date.now();
      const error = await localClient(port, { timeouts: { totalMs: 200 } }).account.balance().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderUnavailableError);
      expect(error).toMatchObject({ reason: 'timeout', outcomeUnknown: false, status: 0 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });

  describe('while the connection is still being made', () => {
    // A server whose process is stopped, its accept queue (backlog 1) filled: the kernel drops further
    // SYNs, so a new connection hangs in connect, as to a provider host that went dark.
    let stopped: ChildProcess | undefined;
    const fillers: Socket[] = [];
    let port = 0;
    beforeAll(async () => {
      stopped = spawn(process.execPath, ['-e', DARK_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
      port = Number(await new Promise<string>((resolve) => stopped!.stdout!.once('data', (d: Buffer) => resolve(d.toString()))));
      stopped.kill('SIGSTOP');
      for (let i = 0; i < 8; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        fillers.push(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    afterAll(() => {
      for (const socket of fillers) socket.destroy();
      stopped?.kill('SIGKILL');
    });
    const darkClient = (timeouts: { connectMs: number; totalMs: number }) => localClient(port, { timeouts });

    it.each([
      {
        at: 'the total timeout, not at the longer connect timeout',
        timeouts: { connectMs: 10_000, totalMs: 200 },
        message: 'No connection to the provider for sms.send within 200 ms',
      },
      { at: 'the connect timeout', timeouts: { connectMs: 200, totalMs: 10_000 }, message: 'Connecting to the provider for sms.send timed out' },
    ])('ends the call at $at, knowing nothing was sent', async ({ timeouts, message }) => {
      const started = Date.now();
      const error = await darkClient(timeouts).sms.send(sms(`dark: ${message}`)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderUnavailableError);
      expect(error).toMatchObject({ reason: 'timeout', outcomeUnknown: false, status: 0, message });
      // 200 ms, not 10 s; undici's connect timer ticks every half second or so, hence the loose bound.
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });

  it('stops reading an answer past 8 MiB and reports it malformed, closing the connection', async () => {
    let written = 0;
    let closedEarly = false;
    const flood: RequestListener = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        // 32 MiB in all, unless the client hangs up first.
        while (written < 32 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (closedEarly = !res.writableFinished));
      pump();
    };
    await withServer(flood, async (port) => {
      const error = await localClient(port).account.balance().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderMalformedResponseError);
      expect(error).toMatchObject({ status: 200, message: "The provider's answer to account.balance is larger than 8388608 bytes" });
      await expect.poll(() => closedEarly).toBe(true);
      expect(written).toBeLessThan(32 * 1024 * 1024);
    });
  });

  it("lets go of a caller's long-lived signal when each call settles", async () => {
    const shutdown = new AbortController();
    const client = own();
    for (let i = 0; i < 12; i++) await client.account.balance({ signal: shutdown.signal });
    await client.sms.send(sms('own: with a signal'), { signal: shutdown.signal });
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it("passes the caller's abort through untouched", async () => {
    await script('hang', { method: 'GET' });
    const controller = new AbortController();
    const pending = own().account.balance({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
  });
});
