import type { ProxyContext } from '../context.js';
import { ProxyError } from '../errors.js';

/**
 * Refuses a `checkoutUrl` the customer must not be sent to: only `https:` (and `http:` when the provider is
 * the sandbox), and only the checkout interface's own host or one listed in `provider.checkoutUrlHosts`.
 * A `javascript:` or `data:` URL from a compromised or misconfigured checkout interface would otherwise run
 * in the merchant's page. Refused as UPSTREAM_ERROR (the provider answered something unusable), logged with
 * the scheme and host so the operator can allow a host that is really the provider's.
 */
export function checkCheckoutUrl(ctx: ProxyContext, checkoutUrl: string): void {
  const { provider } = ctx.config;
  let url: URL | null = null;
  try {
    url = new URL(checkoutUrl);
  } catch {
    url = null;
  }
  const schemeOk = url !== null && (url.protocol === 'https:' || (url.protocol === 'http:' && provider.env === 'sandbox'));
  const allowedHosts = new Set([new URL(provider.checkoutBaseUrl).host, ...(provider.checkoutUrlHosts ?? [])]);
  if (url && schemeOk && allowedHosts.has(url.host)) return;
  ctx.logger.error(
    { scheme: url?.protocol ?? 'unparsable', host: url?.host ?? null, allowedHosts: [...allowedHosts] },
    'checkout interface answered a checkoutUrl the customer must not be sent to; refused (allow a provider host with provider.checkoutUrlHosts)',
  );
  throw new ProxyError('UPSTREAM_ERROR', 'The checkout could not be opened. Try again later.');
}
