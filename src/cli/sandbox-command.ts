import { parseArgs } from 'node:util';
import { FAULT_KINDS, type FaultKind, type SandboxOptions } from '../sandbox/index.js';
import { startSandbox, type StartedSandbox } from '../sandbox/index.js';
import type { CliCommand } from './command.js';
import { EXIT, UsageError } from './errors.js';
import { portFlag, positiveNumberFlag } from './flags.js';
import { serveUntilStopped } from './serve.js';

/** Options of `merchant-elements sandbox`, as parsed from the command line. */
export interface SandboxCommandOptions {
  port: number;
  host: string;
  timeScale: number;
  faults?: string;
}

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

const SANDBOX_SYNOPSIS = '[--port N] [--host H] [--time-scale N] [--faults SPEC]';

const SANDBOX_HELP = `Usage: merchant-elements sandbox ${SANDBOX_SYNOPSIS}

Run the provider sandbox (messaging, payment gateway, checkout) locally.

Options:
  --port N          port to listen on (default PORT or 4010; 0 picks a free one)
  --host H          address to bind (default 127.0.0.1)
  --time-scale N    multiply every delay and expiry by N (default 1; 0.01 is 100x faster)
  --faults SPEC     inject faults: RATE[:KIND,...], e.g. 0.2 or 0.1:503,hang
                    kinds: ${FAULT_KINDS.join(', ')}
  --help            show this text
`;

/** `merchant-elements sandbox`: runs the sandbox until SIGINT or SIGTERM. */
export const sandboxCommand: CliCommand = {
  name: 'sandbox',
  synopsis: SANDBOX_SYNOPSIS,
  summary: 'Run the provider sandbox (messaging, payment gateway, checkout) locally',
  help: SANDBOX_HELP,
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        port: { type: 'string', default: io.env.PORT ?? '4010' },
        host: { type: 'string', default: '127.0.0.1' },
        'time-scale': { type: 'string', default: '1' },
        faults: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      io.stdout(SANDBOX_HELP);
      return EXIT.ok;
    }
    const port = portFlag(values.port);
    return serveUntilStopped(io, 'sandbox', port, async () => {
      const { sandbox, banner } = await runSandboxCommand({
        port,
        host: values.host,
        timeScale: positiveNumberFlag(values['time-scale'], '--time-scale'),
        ...(values.faults === undefined ? {} : { faults: values.faults }),
      });
      return { banner, close: () => sandbox.close() };
    });
  },
};
