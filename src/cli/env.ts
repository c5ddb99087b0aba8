import {
  createProviderClient,
  fieldsOfIssues,
  providerClientConfigSchema,
  type ClosableProviderClient,
  type ProviderClientConfig,
} from '../provider/index.js';
import { ConfigError } from '../proxy/config.js';
import { providerSettingsFromEnv } from '../proxy/config-env.js';
import { CliConfigError, UsageError } from './errors.js';

/** The provider client the configured environment points at, and where it points. */
export interface ConfiguredClient {
  client: ClosableProviderClient;
  /** `sandbox`, `staging` or `production`. */
  env: string;
  /** `{base_url}` of messaging and checkout. */
  messagingBaseUrl: string;
}

/** The environment variable behind each field of the client's configuration, for error messages. */
const VARIABLE_OF_FIELD: Record<string, string> = {
  'messaging.apiKey': 'MESSAGING_API_KEY',
  'messaging.apiSecret': 'MESSAGING_API_SECRET',
  'payment.username': 'PAYMENT_USERNAME',
  'payment.password': 'PAYMENT_PASSWORD',
  'checkout.apiKey': 'CHECKOUT_API_KEY',
};

/**
 * Builds the provider client from DESIGN's variables, read the way the proxy reads them
 * (`providerSettingsFromEnv`): the sandbox at SANDBOX_URL (default http://127.0.0.1:4010) with its
 * default credentials unless PROVIDER_ENV says otherwise. `sandboxUrl` (the `--sandbox-url` flag) wins
 * over SANDBOX_URL and over MESSAGING_BASE_URL / PAYMENT_BASE_URL, and only makes sense in the sandbox.
 * @throws CliConfigError naming each wrong or missing variable; UsageError for a bad `sandboxUrl`.
 */
export function clientFromEnv(env: NodeJS.ProcessEnv, sandboxUrl?: string): ConfiguredClient {
  let source = env;
  if (sandboxUrl !== undefined) {
    if ((env.PROVIDER_ENV?.trim() || 'sandbox') !== 'sandbox') {
      throw new UsageError(`--sandbox-url applies only when PROVIDER_ENV is sandbox (it is ${env.PROVIDER_ENV})`);
    }
    if (!/^https?:\/\/[^/]/i.test(sandboxUrl) || !URL.canParse(sandboxUrl)) {
      throw new UsageError(`--sandbox-url must be an http(s) URL, got "${sandboxUrl}"`);
    }
    source = { ...env, SANDBOX_URL: sandboxUrl, MESSAGING_BASE_URL: undefined, PAYMENT_BASE_URL: undefined };
  }
  let settings: ReturnType<typeof providerSettingsFromEnv>;
  try {
    settings = providerSettingsFromEnv(source);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliConfigError(err.problems);
    throw err;
  }
  const config: ProviderClientConfig = {
    messaging: { baseUrl: settings.messagingBaseUrl, ...settings.messaging },
    payment: { baseUrl: settings.paymentBaseUrl, ...settings.payment },
    checkout: { apiKey: settings.checkout.apiKey },
    // One command makes one or a few calls: a breaker would only hide the real error.
    circuitBreaker: false,
  };
  const parsed = providerClientConfigSchema.safeParse(config);
  if (!parsed.success) {
    const baseUrlVariable = (name: string) => (source[name]?.trim() ? name : 'SANDBOX_URL');
    const variableOf = (path: string) =>
      VARIABLE_OF_FIELD[path] ??
      (path.startsWith('payment') ? baseUrlVariable('PAYMENT_BASE_URL') : baseUrlVariable('MESSAGING_BASE_URL'));
    throw new CliConfigError(fieldsOfIssues(parsed.error.issues).map((f) => `${variableOf(f.path)}: ${f.message}`));
  }
  return {
    client: createProviderClient(config),
    env: settings.env ?? 'sandbox',
    messagingBaseUrl: settings.messagingBaseUrl,
  };
}
