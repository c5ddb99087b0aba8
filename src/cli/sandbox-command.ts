import { FAULT_KINDS, type FaultKind, type SandboxOptions } from '../sandbox/index.js';
import { startSandbox, type StartedSandbox } from '../sandbox/index.js';

/** Options of `merchant-elements sandbox`, as parsed from the command line. */
export interface SandboxCommandOptions {
  port: number;
  host: string;
  timeScale: number;
  faults?: string;
}

/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/**
 * Parses `--faults RATE[:KIND,KIND…]`, e.g. `0.2` (20 % of requests, any kind) or `0.1:503,hang`.
 */
export function parseFaults(spec: string): Pick<SandboxOptions, 'faultRate' | 'faultKinds'> {
  const [rateText = '', kindsText] = spec.split(':', 2);
  const rate = Number(rateText);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new UsageError(`--faults: the rate must be a number from 0 to 1, got "${rateText}"`);
  }
  if (kindsText === undefined) return { faultRate: rate };
  const kinds = kindsText.split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0 || kinds.length === 0) {
    throw new UsageError(`--faults: unknown fault kind(s) ${unknown.join(', ') || '(none)'}; known: ${FAULT_KINDS.join(', ')}`);
  }
  return { faultRate: rate, faultKinds: kinds as FaultKind[] };
}

/** Starts the sandbox and returns it with the text to print (URLs and credentials). */
export async function runSandboxCommand(
  options: SandboxCommandOptions,
): Promise<{ sandbox: StartedSandbox; banner: string }> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${options.port}"`);
  }
  if (!Number.isFinite(options.timeScale) || options.timeScale <= 0) {
    throw new UsageError(`--time-scale must be a positive number, got "${options.timeScale}"`);
  }
  const faults = options.faults === undefined ? {} : parseFaults(options.faults);
  const sandbox = await startSandbox({ port: options.port, host: options.host, timeScale: options.timeScale, ...faults });
  const o = sandbox.app.sandbox.options;
  const banner = [
    `merchant-elements sandbox listening`,
    ``,
    `  {base_url} (messaging, checkout)   ${sandbox.url}`,
    `  {payment_base_url} (gateway)       ${sandbox.paymentUrl}`,
    `  outbox                             ${sandbox.url}/__sandbox/outbox`,
    `  payments received                  ${sandbox.url}/__sandbox/payments`,
    `  phone page                         ${sandbox.url}/__sandbox/phone`,
    ``,
    `  messaging   x-api-key: ${o.apiKey}   x-api-secret: ${o.apiSecret}`,
    `  gateway     Basic ${o.paymentUsername}:${o.paymentPassword}`,
    `  checkout    Bearer ${o.checkoutApiKey}`,
    o.timeScale === 1 ? '' : `  time scale  ${o.timeScale} (delays and expiries multiplied by it)`,
    o.faultRate > 0 ? `  faults      ${o.faultRate * 100} % of requests: ${o.faultKinds.join(', ')}` : '',
  ]
    .filter((line, i, all) => line !== '' || all[i - 1] !== '')
    .join('\n');
  return { sandbox, banner };
}
