import type { ProviderClientConfig } from '../../src/provider/index.js';

/** A provider client's configuration for a server of the test's own on loopback `port` (every interface there), without retries. */
export function localConfig(port: number, overrides: Partial<ProviderClientConfig> = {}): ProviderClientConfig {
  const base = `http://127.0.0.1:${port}`;
  return {
    messaging: { baseUrl: base, apiKey: 'k', apiSecret: 's' },
    payment: { baseUrl: base, username: 'u', password: 'p' },
    checkout: { apiKey: 'c' },
    retry: { maxRetries: 0 },
    ...overrides,
  };
}
