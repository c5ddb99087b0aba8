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

/** A balance answer of the messaging interface, as the client's schema takes it. */
export const BALANCE = {
  statusCode: '200',
  statusMessage: 'OK',
  transactionId: 'tx-1',
  sequenceNo: null,
  data: { id: 1, credit: 10, intlCredit: 0, intlTotalAmount: '0', userId: { id: 1, name: 'Shop', username: null, phone: '233240000001' } },
  timestamp: '2026-01-01T00:00:00Z',
};
