import { describe, expect, it } from 'vitest';
import { providerEndpoints, sandboxEndpoints } from '../../src/provider/endpoints.js';

describe('providerEndpoints', () => {
  const hosts = {
    baseUrl: 'https://api.example.test/',
    paymentBaseUrl: 'https://pay.example.test/gw//',
    stagingBaseUrl: 'https://staging.example.test',
    paymentStagingBaseUrl: 'https://pay-staging.example.test/gw',
  };

  it('chooses the production pair and trims trailing slashes', () => {
    expect(providerEndpoints({ env: 'production', ...hosts })).toEqual({
      messaging: 'https://api.example.test',
      payment: 'https://pay.example.test/gw',
      checkout: 'https://api.example.test',
    });
  });

  it('chooses the staging pair', () => {
    expect(providerEndpoints({ env: 'staging', ...hosts })).toEqual({
      messaging: 'https://staging.example.test',
      payment: 'https://pay-staging.example.test/gw',
      checkout: 'https://staging.example.test',
    });
  });

  it('names a missing staging host or a bad URL', () => {
    expect(() => providerEndpoints({ env: 'staging', baseUrl: hosts.baseUrl, paymentBaseUrl: hosts.paymentBaseUrl })).toThrow(
      /stagingBaseUrl: is required/,
    );
    expect(() => providerEndpoints({ env: 'production', baseUrl: 'ftp://x', paymentBaseUrl: hosts.paymentBaseUrl })).toThrow(
      /baseUrl: must be an absolute http\(s\) URL/,
    );
  });
});

describe('sandboxEndpoints', () => {
  it('puts the gateway under /gateway of the root', () => {
    expect(sandboxEndpoints('http://127.0.0.1:4010/')).toEqual({
      messaging: 'http://127.0.0.1:4010',
      payment: 'http://127.0.0.1:4010/gateway',
      checkout: 'http://127.0.0.1:4010',
    });
  });
});
