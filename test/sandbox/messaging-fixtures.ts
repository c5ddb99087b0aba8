import { API_VERSION } from '../../src/provider/schemas/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/options.js';

/** Headers of the sandbox's default full-permission credentials. */
export const AUTH: Readonly<Record<string, string>> = {
  'x-api-key': 'test-api-key',
  'x-api-secret': 'test-api-secret',
  'x-api-version': API_VERSION,
};

/** Headers of the default limited key (no balance permission). */
export const LIMITED_AUTH: Readonly<Record<string, string>> = {
  'x-api-key': 'test-limited-key',
  'x-api-secret': 'test-limited-secret',
  'x-api-version': API_VERSION,
};

/** A parsed HTTP answer. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** Starts a sandbox at a hundredth of real time unless told otherwise. */
export function start(options: SandboxOptions = {}): Promise<StartedSandbox> {
  return startSandbox({ timeScale: 0.01, ...options });
}

/** Calls the sandbox with plain fetch and parses the JSON answer. */
export async function call(
  sandbox: StartedSandbox,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Readonly<Record<string, string>> = AUTH,
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${sandbox.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** A quick-send body to `to` with `message`. */
export function quick(to: string, message = 'Hello from the sandbox', isGlobal = false) {
  return { to, from: 'SANDBOX', type: 'Quick', message, isGlobal };
}

/** An OTP generate body for `recipient`, overridable field by field. */
export function otpRequest(recipient: string, overrides: Record<string, unknown> = {}) {
  return {
    recipient,
    from: 'SANDBOX',
    message: 'Your code is {code}. It expires in {amount} {duration}.',
    pinLength: 6,
    pinType: 'NUMERIC',
    expiry: { amount: 5, duration: 'minutes' },
    maxAmountOfValidationRetries: 3,
    ...overrides,
  };
}
