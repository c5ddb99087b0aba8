/** Where each of the provider's three interfaces lives. Trailing slashes are removed. */
export interface ProviderBaseUrls {
  /** `{base_url}` of the messaging interface (SMS, OTP, email, balance). */
  messaging: string;
  /** `{payment_base_url}` of the payment gateway, its gateway path segment included. */
  payment: string;
  /** `{base_url}` of the checkout interface (the same host as messaging). */
  checkout: string;
}

/** The environments the provider runs. */
export type ProviderEnvironment = 'production' | 'staging';

/**
 * Hosts of both environments, given explicitly: the provider's hosts are not published, so none is
 * built in. Staging hosts are needed only when `env` is `staging`.
 */
export interface ProviderEndpointOptions {
  env: ProviderEnvironment;
  /** `{base_url}`: production host of messaging and checkout. */
  baseUrl: string;
  /** `{payment_base_url}`: production host of the payment gateway, gateway path included. */
  paymentBaseUrl: string;
  /** `{staging_base_url}`. */
  stagingBaseUrl?: string | undefined;
  /** `{payment_staging_base_url}`. */
  paymentStagingBaseUrl?: string | undefined;
}

/**
 * Picks the base URLs of the chosen environment.
 * @throws TypeError naming the option that is missing or not an http(s) URL.
 */
export function providerEndpoints(options: ProviderEndpointOptions): ProviderBaseUrls {
  if (options.env === 'staging') {
    const messaging = baseUrl(options.stagingBaseUrl, 'stagingBaseUrl');
    return { messaging, payment: baseUrl(options.paymentStagingBaseUrl, 'paymentStagingBaseUrl'), checkout: messaging };
  }
  if (options.env !== 'production') {
    throw new TypeError(`Invalid provider endpoints: env: must be "production" or "staging"`);
  }
  const messaging = baseUrl(options.baseUrl, 'baseUrl');
  return { messaging, payment: baseUrl(options.paymentBaseUrl, 'paymentBaseUrl'), checkout: messaging };
}

/**
 * Base URLs of a running sandbox (see `startSandbox`): messaging and checkout at its root, the payment
 * gateway under `/gateway`.
 */
export function sandboxEndpoints(rootUrl: string): ProviderBaseUrls {
  const root = baseUrl(rootUrl, 'rootUrl');
  return { messaging: root, payment: `${root}/gateway`, checkout: root };
}

/** Removes trailing slashes, so that `base + '/v1/...'` never doubles one. */
export function trimTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

function baseUrl(value: string | undefined, name: string): string {
  if (!value) throw new TypeError(`Invalid provider endpoints: ${name}: is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`Invalid provider endpoints: ${name}: must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`Invalid provider endpoints: ${name}: must be an absolute http(s) URL`);
  }
  return trimTrailingSlashes(value);
}
