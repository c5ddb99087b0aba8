import type { Logger } from 'pino';
import type { ResolvedProxyConfig } from '../config.js';

/**
 * Whether a `checkoutUrl` may be given to a customer: only `https:` (and `http:` when the provider is the
 * sandbox), and only the checkout interface's own host or one listed in `provider.checkoutUrlHosts`. A
 * `javascript:` or `data:` URL from a compromised or misconfigured checkout interface would otherwise run in
 * the merchant's page. A refusal is logged with the scheme and host, so the operator can allow a host that
 * really is the provider's.
 */
export function checkoutUrlCheck(provider: ResolvedProxyConfig['provider'], logger: Logger): (checkoutUrl: string) => boolean {
  const allowedHosts = new Set([new URL(provider.checkoutBaseUrl).host, ...(provider.checkoutUrlHosts ?? [])]);
  return (checkoutUrl) => {
    let url: URL | null = null;
    try {
      url = new URL(checkoutUrl);
    } catch {
      url = null;
    }
    const schemeOk = url !== null && (url.protocol === 'https:' || (url.protocol === 'http:' && provider.env === 'sandbox'));
    if (url && schemeOk && allowedHosts.has(url.host)) return true;
    logger.error(
      { scheme: url?.protocol ?? 'unparsable', host: url?.host ?? null, allowedHosts: [...allowedHosts] },
      'checkout interface answered a checkoutUrl the customer must not be sent to; refused (allow a provider host with provider.checkoutUrlHosts)',
    );
    return false;
  };
}
