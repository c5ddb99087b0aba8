import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { freePort } from '../support/free-port.js';
import express, { type Express } from 'express';
import { pino, type Logger } from 'pino';
import { createMerchantProxy, type MerchantProxy } from '../../src/proxy/create-proxy.js';
import type { ProxyConfig } from '../../src/proxy/config.js';
import type { CheckoutTokenInput, OtpTokenInput, PaymentTokenInput } from '../../src/proxy/tokens/claims.js';
import { startSandbox, type SandboxOptions, type StartedSandbox } from '../../src/sandbox/index.js';

export { freePort };

/** Mount path of the proxy in the test app. */
export const MOUNT = '/merchant-elements';
/** A token secret of the required length, for tests. */
export const TEST_SECRET = 'test-secret-of-at-least-thirty-two-bytes!!';

/** An HTTP answer, body parsed when it is JSON. */
export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
}

/** Captured log lines (JSON strings) of a logger built by {@link captureLogger}. */
export interface CapturedLogs {
  logger: Logger;
  lines: string[];
  /** Parsed lines. */
  entries(): Record<string, unknown>[];
}

/** A pino logger at `debug` writing into memory, for assertions on log lines. */
export function captureLogger(): CapturedLogs {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

export interface Harness {
  sandbox: StartedSandbox;
  proxy: MerchantProxy;
  app: Express;
  server: Server;
  /** `http://127.0.0.1:port` of the test app (the proxy's own origin). */
  origin: string;
  /** `origin` + the mount path. */
  baseUrl: string;
  logs: CapturedLogs;
  mintOtp(input?: Partial<OtpTokenInput>): Promise<string>;
  mintPayment(input?: Partial<PaymentTokenInput>): Promise<string>;
  mintCheckout(input?: Partial<CheckoutTokenInput>): Promise<string>;
  /** POSTs JSON (or a string sent as is, with the headers given) to a path under the mount. */
  post(path: string, body?: unknown, options?: RequestOptions): Promise<TestResponse>;
  get(path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Any request, for the hardening tests. */
  request(method: string, path: string, init?: { body?: string; headers?: Record<string, string> }): Promise<TestResponse>;
  /** SMS the sandbox sent to a number (digits). */
  smsTo(digits: string): { message: string; sequenceNo: string }[];
  /** The code of the last OTP SMS sent to a number. */
  lastCode(digits: string): string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  /** Merged over the defaults (sandbox URLs and credentials, TEST_SECRET, payee). */
  config?: Partial<ProxyConfig>;
  /** Replaces the whole provider part of the config (credentials, URLs) when given. */
  provider?: (sandbox: StartedSandbox) => ProxyConfig['provider'];
  /** Express `trust proxy` of the test app. */
  trustProxy?: boolean | string;
}

/**
 * Limits raised for suites that pay one test number many times at once and watch from one address (the
 * suites of those limits set their own): per-number payment prompts, streams per address.
 */
export const TEST_LIMITS = {
  paymentPromptsPerNumber: { points: 100_000, durationSec: 3_600 },
  paymentsInFlightPerNumber: { points: 10_000, durationSec: 3_600 },
  streamsPerAddress: { points: 10_000, durationSec: 3_600 },
};

/** The provider part of a proxy config pointing at a sandbox, with the sandbox's fixed credentials. */
export function sandboxProvider(sandbox: Pick<StartedSandbox, 'url' | 'paymentUrl'>): ProxyConfig['provider'] {
  return {
    env: 'sandbox',
    messagingBaseUrl: sandbox.url,
    paymentBaseUrl: sandbox.paymentUrl,
    messaging: { apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
    payment: { username: 'test-user', password: 'test-password' },
    checkout: { apiKey: 'test-checkout-key' },
  };
}

/** Starts a sandbox and an Express app with the proxy mounted at /merchant-elements, on loopback. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox({ timeScale: 0.01, ...options.sandbox });
  const logs = captureLogger();
  const provider = options.provider?.(sandbox) ?? sandboxProvider(sandbox);
  const proxy = createMerchantProxy({
    provider,
    tokenSecret: TEST_SECRET,
    payeeName: 'Test Shop',
    logger: logs.logger,
    ...options.config,
    // Suites pay the sandbox's few test numbers many times at once from one address: those limits are
    // raised here (suites of their own check them), every other limit stays as configured.
    limits: { ...TEST_LIMITS, ...options.config?.limits },
  });
  const app = express();
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  app.use(MOUNT, proxy.router);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const baseUrl = `${origin}${MOUNT}`;

  async function request(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const res = await fetch(`${baseUrl}${path}`, { method, headers: init.headers ?? {}, body: init.body ?? null });
    const text = await res.text();
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, text, body };
  }

  const auth = (o: RequestOptions = {}) => ({
    ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
    ...o.headers,
  });

  const smsTo = (digits: string) =>
    sandbox.app.sandbox.outbox.filter((e) => e.kind === 'sms' && e.to === digits) as {
      message: string;
      sequenceNo: string;
    }[];

  return {
    sandbox,
    proxy,
    app,
    server,
    origin,
    baseUrl,
    logs,
    mintOtp: (input = {}) => proxy.tokens.otp({ purpose: 'sign-in', ...input }),
    mintPayment: (input = {}) =>
      proxy.tokens.payment({ amount: 12.5, referenceNo: `ORDER-${Math.random().toString(36).slice(2, 10)}`, narration: 'Order', ...input }),
    mintCheckout: (input = {}) =>
      proxy.tokens.checkout({
        title: 'Order',
        reference: `CO-${Math.random().toString(36).slice(2, 10)}`,
        // The payment token's default amount: one order has one price, whichever way it is paid.
        amount: 12.5,
        description: 'An order',
        returnUrl: 'https://shop.example/return',
        ...input,
      }),
    post: (path, body = {}, o = {}) =>
      request('POST', path, {
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...auth(o) },
      }),
    get: (path, o = {}) => request('GET', path, { headers: auth(o) }),
    request,
    smsTo,
    lastCode(digits) {
      const last = smsTo(digits).at(-1);
      const code = last?.message.match(/\b([A-Z0-9]{4,10})\b/)?.[1];
      if (!code) throw new Error(`no OTP SMS to ${digits}`);
      return code;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await proxy.close();
      await sandbox.close();
    },
  };
}


/** A redis-server the test started, on a free port, without persistence. */
export interface TestRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/**
 * Starts `redis-server --port N --save '' --appendonly no` (then `args`, which may override those) and waits
 * until it answers PING. A Cluster node (`--cluster-enabled yes`) is given its bus port too: by default it is
 * the port plus 10000, in the kernel's ephemeral range, where an outgoing connection's source port can hold it
 * and the node exits ("Failed listening on port … (cluster)"; one `npm test` run under load).
 */
export async function startRedis(args: string[] = []): Promise<TestRedis> {
  const port = await freePort();
  const cluster = args.some((a, i) => a === '--cluster-enabled' && args[i + 1] === 'yes') ? ['--cluster-port', String(await freePort())] : [];
  // A directory of its own: a server that becomes a master or turns on its append-only file writes there
  // (dump.rdb, appendonlydir), and a server started where one was left would load another test's records.
  const dir = mkdtempSync(join(tmpdir(), 'me-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...cluster, ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // The server's own last words, for the error when it does not start.
  let said = '';
  child.stdout?.on('data', (chunk: Buffer) => void (said = (said + chunk.toString()).slice(-2_000)));
  const deadline = Date.now() + 10_000;
  while (!(await pingOnce(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      const why = child.exitCode !== null ? `exited with ${child.exitCode}` : 'did not answer PING within 10 s';
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start: ${why}\n${said.trim().split('\n').slice(-3).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}
