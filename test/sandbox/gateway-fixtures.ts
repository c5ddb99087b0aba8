import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/options.js';

/** Basic credentials of the sandbox's payment gateway defaults. */
export const GATEWAY_AUTH = `Basic ${Buffer.from('test-user:test-password').toString('base64')}`;
/** Bearer of the sandbox's checkout default. */
export const CHECKOUT_AUTH = 'Bearer test-checkout-key';

/** A parsed HTTP answer. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Starts a sandbox at a hundredth of real time unless told otherwise. */
export function start(options: SandboxOptions = {}): Promise<StartedSandbox> {
  return startSandbox({ timeScale: 0.01, ...options });
}

/** Calls the sandbox with plain fetch; parses JSON when the answer says it is JSON. */
export async function send(
  sandbox: StartedSandbox,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const init: RequestInit = { method, headers, redirect: 'manual' };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${sandbox.url}${path}`, init);
  const text = await res.text();
  const isJson = (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, headers: res.headers, text, body: isJson ? parseOrUndefined(text) : undefined };
}

/** JSON.parse, or undefined when the text is not JSON (an injected malformed answer). */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Calls the payment gateway (under `/gateway`) with the default Basic credentials. */
export function gateway(
  sandbox: StartedSandbox,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return send(sandbox, method, `/gateway${path}`, { body, headers: { authorization: GATEWAY_AUTH, ...headers } });
}

let counter = 0;

/** A payment initiation body for `msisdn`, with a fresh referenceNo, overridable field by field. */
export function paymentBody(msisdn = '233240000001', overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    amount: 12.5,
    referenceNo: `ORDER-${Date.now()}-${counter}`,
    payee: 'Kofi Shop',
    narration: 'Order payment',
    msisdn,
    callbackId: `cb-${counter}`,
    payer: 'Customer',
    ...overrides,
  };
}

/** Initiates a payment and returns its referenceId and referenceNo (throws unless accepted). */
export async function initiate(
  sandbox: StartedSandbox,
  msisdn = '233240000001',
  overrides: Record<string, unknown> = {},
): Promise<{ referenceId: string; referenceNo: string }> {
  const body = paymentBody(msisdn, overrides);
  const res = await gateway(sandbox, 'POST', '/v1/payment', body);
  if (res.status !== 200) throw new Error(`initiate answered ${res.status}: ${res.text}`);
  return { referenceId: res.body.data.referenceId as string, referenceNo: body.referenceNo };
}

/** Reads a payment's status body through the gateway. */
export async function paymentStatus(sandbox: StartedSandbox, reference: string): Promise<Reply> {
  return gateway(sandbox, 'GET', `/v1/payment/${encodeURIComponent(reference)}/status`);
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** Waits `ms` real milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls the status of a payment until it leaves PENDING and returns the final status data. */
export function finalStatus(sandbox: StartedSandbox, reference: string) {
  return eventually(async () => {
    const res = await paymentStatus(sandbox, reference);
    return res.body.data.status === 'PENDING' ? undefined : res.body.data;
  });
}
