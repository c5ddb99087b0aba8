import { randomBytes } from 'node:crypto';
import { ConfigError, type ProxyConfig } from './config.js';

/** Default base URL of a locally running sandbox. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The sandbox's fixed credentials (DESIGN: sandbox). */
const SANDBOX_CREDENTIALS = {
  apiKey: 'test-api-key',
  apiSecret: 'test-api-secret',
  username: 'test-user',
  password: 'test-password',
  checkoutKey: 'test-checkout-key',
};

/**
 * Builds a configuration from DESIGN's environment variables. In the `sandbox` environment base URLs
 * default to `SANDBOX_URL` (or http://127.0.0.1:4010) and credentials to the sandbox's; elsewhere every
 * base URL and credential is required and a missing one is reported by its variable name. In the sandbox
 * only, a missing PROXY_TOKEN_SECRET is replaced by a random one (tokens then die with the process).
 */
export function configFromEnv(env: NodeJS.ProcessEnv): ProxyConfig {
  const providerEnv = (env.PROVIDER_ENV ?? 'sandbox').trim() || 'sandbox';
  if (!['sandbox', 'staging', 'production'].includes(providerEnv)) {
    throw new ConfigError([`PROVIDER_ENV: must be sandbox, staging or production`]);
  }
  const sandbox = providerEnv === 'sandbox';
  const problems: string[] = [];
  const read = (name: string, sandboxDefault?: string): string | undefined => {
    const value = env[name]?.trim();
    if (value) return value;
    if (sandbox && sandboxDefault !== undefined) return sandboxDefault;
    problems.push(`${name}: is required when PROVIDER_ENV is ${providerEnv}`);
    return undefined;
  };
  const base = (env.SANDBOX_URL?.trim() || DEFAULT_SANDBOX_URL).replace(/\/+$/, '');
  const messagingBaseUrl = read('MESSAGING_BASE_URL', base);
  const paymentBaseUrl = read('PAYMENT_BASE_URL', `${base}/gateway`);
  const apiKey = read('MESSAGING_API_KEY', SANDBOX_CREDENTIALS.apiKey);
  const apiSecret = read('MESSAGING_API_SECRET', SANDBOX_CREDENTIALS.apiSecret);
  const username = read('PAYMENT_USERNAME', SANDBOX_CREDENTIALS.username);
  const password = read('PAYMENT_PASSWORD', SANDBOX_CREDENTIALS.password);
  const checkoutKey = read('CHECKOUT_API_KEY', SANDBOX_CREDENTIALS.checkoutKey);
  const tokenSecret = read('PROXY_TOKEN_SECRET', randomBytes(32).toString('base64url'));
  const payeeName = read('PAYEE_NAME', 'Sandbox Merchant');
  if (problems.length > 0) throw new ConfigError(problems);

  const config: ProxyConfig = {
    provider: {
      env: providerEnv as 'sandbox' | 'staging' | 'production',
      messagingBaseUrl: messagingBaseUrl as string,
      paymentBaseUrl: paymentBaseUrl as string,
      messaging: { apiKey: apiKey as string, apiSecret: apiSecret as string },
      payment: { username: username as string, password: password as string },
      checkout: { apiKey: checkoutKey as string },
    },
    tokenSecret: tokenSecret as string,
    payeeName: payeeName as string,
    allowedOrigins: (env.PROXY_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  };
  const webhookUrl = env.WEBHOOK_URL?.trim();
  const webhookSecret = env.WEBHOOK_SECRET?.trim();
  if (webhookUrl && webhookSecret) config.webhooks = { url: webhookUrl, secret: webhookSecret };
  else if (webhookUrl) throw new ConfigError(['WEBHOOK_SECRET: is required when WEBHOOK_URL is set (signed webhooks need both)']);
  else if (webhookSecret) throw new ConfigError(['WEBHOOK_URL: is required when WEBHOOK_SECRET is set (signed webhooks need both)']);
  if (env.PROXY_SERVER_KEY?.trim()) config.serverKey = env.PROXY_SERVER_KEY.trim();
  if (env.REDIS_URL?.trim()) config.redisUrl = env.REDIS_URL.trim();
  if (env.REDIS_PREFIX?.trim()) config.redisPrefix = env.REDIS_PREFIX.trim();
  if (env.REFERENCE_PREFIX?.trim()) config.referencePrefix = env.REFERENCE_PREFIX.trim();
  const statusReference = env.PROVIDER_STATUS_REFERENCE?.trim();
  if (statusReference) config.provider.statusReference = statusReference as 'either' | 'referenceNo' | 'referenceId';
  const listing = env.PROVIDER_CHECKOUT_LISTING?.trim();
  if (listing) config.provider.checkoutListing = listing === 'true' ? true : listing === 'false' ? false : (listing as never);
  if (env.DEFAULT_COUNTRY?.trim()) config.defaultCountry = env.DEFAULT_COUNTRY.trim().toUpperCase();
  const sender = env.OTP_SENDER?.trim();
  const template = env.OTP_TEMPLATE?.trim();
  if (sender || template) {
    config.otp = {
      ...(sender ? { sender } : {}),
      ...(template ? { template } : {}),
    };
  }
  return config;
}

/**
 * The provider part of {@link configFromEnv} alone (PROVIDER_ENV, SANDBOX_URL, base URLs, credentials),
 * for tools that call the provider without running a proxy (the CLI).
 * @throws ConfigError naming each missing or wrong variable.
 */
export function providerSettingsFromEnv(env: NodeJS.ProcessEnv): ProxyConfig['provider'] {
  // Stand-ins for the proxy-only variables, so that only provider variables can be reported missing.
  return configFromEnv({ ...env, PROXY_TOKEN_SECRET: 'unused', PAYEE_NAME: 'unused', PROXY_SERVER_KEY: undefined }).provider;
}
