import {
  isProviderError,
  type ProviderError,
  type ProviderRateLimitedError,
  type ProviderUnavailableError,
  type ProviderValidationError,
} from '../provider/index.js';
import type { CliCommand } from './command.js';
import { program } from './program.js';
import { CliConfigError, EXIT, InputError, UsageError } from './errors.js';
import type { CliIo } from './io.js';


const hints = new WeakMap<object, string>();

/** Attaches a line of advice that {@link reportError} prints under the error (e.g. "is the sandbox running?"). */
export function withHint<E extends object>(error: E, hint: string): E {
  hints.set(error, hint);
  return error;
}

/** The variables holding the credentials of each interface, named in an authentication error. */
function credentialVariables(operation: string): string {
  if (operation.startsWith('payments.')) return 'PAYMENT_USERNAME and PAYMENT_PASSWORD';
  if (operation.startsWith('checkout.')) return 'CHECKOUT_API_KEY';
  return 'MESSAGING_API_KEY and MESSAGING_API_SECRET';
}

/** `(0404 Transaction not found)`: the provider's code and message, when it gave them. */
function providerSays(error: ProviderError): string {
  return error.code ? ` (${error.code} ${error.message})` : ` (${error.message})`;
}

/**
 * One line saying what kind of failure a provider error is, by its class in the taxonomy, followed by what
 * the provider said: `not found (0404 Transaction not found)`. Never includes a credential.
 */
export function describeProviderError(error: ProviderError): string {
  switch (error.name) {
    case 'ProviderNotFoundError':
      return `not found${providerSays(error)}`;
    case 'ProviderAuthenticationError':
      return error.status === 403
        ? `permission denied${providerSays(error)}`
        : `authentication failed${providerSays(error)}; check ${credentialVariables(error.operation)}`;
    case 'ProviderValidationError':
      return `refused as invalid${providerSays(error)}`;
    case 'ProviderRateLimitedError': {
      const after = (error as ProviderRateLimitedError).retryAfter;
      return `rate limited${providerSays(error)}${after === undefined ? '' : `; retry after ${after} s`}`;
    }
    case 'ProviderUnavailableError': {
      const unknown = (error as ProviderUnavailableError).outcomeUnknown;
      return `provider unavailable${providerSays(error)}${unknown ? '; the request may have been processed, check before sending it again' : ''}`;
    }
    case 'ProviderMalformedResponseError':
      return `malformed answer from the provider (${error.message})`;
    default:
      return `provider error${providerSays(error)}`;
  }
}

/** Writes `error` as one clear line (more for lists) on stderr and resolves to its exit code. */
export function reportError(command: CliCommand | undefined, error: unknown, io: CliIo, usage: string): number {
  const where = command ? `${program()}: ${command.name}:` : `${program()}:`;
  const help = command?.help ?? usage;
  if (error instanceof UsageError || isParseArgsError(error)) {
    io.stderr(`${where} ${(error as Error).message}\n\n${help}`);
    return EXIT.usage;
  }
  if (error instanceof InputError) {
    io.stderr(`${where} ${error.message}\n${error.problems.map((p) => `  ${p}\n`).join('')}`);
    return EXIT.usage;
  }
  if (error instanceof CliConfigError) {
    io.stderr(`${where} ${error.message}\n`);
    return EXIT.config;
  }
  if (isProviderError(error)) {
    const validation = error as ProviderValidationError;
    if (error.name === 'ProviderValidationError' && validation.sent === false) {
      // Refused by the client before sending: a bad flag value, so a usage error.
      const list = (validation.fields ?? []).map((f) => `${f.path}: ${f.message}`).join('; ');
      io.stderr(`${where} invalid request, nothing was sent (${list || error.message})\n\n${help}`);
      return EXIT.usage;
    }
    const hint = hints.get(error);
    io.stderr(`${where} ${describeProviderError(error)}\n${hint ? `  ${hint}\n` : ''}`);
    return EXIT.failed;
  }
  io.stderr(`${where} ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.failed;
}

/** An error of `node:util` parseArgs (unknown option, missing value, unexpected argument). */
function isParseArgsError(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
