import type { Http, Upstream } from './http.js';
import { checkoutInitializeRequest, checkoutSession, checkoutSessionList, checkoutStatusResult } from './schemas/index.js';
import type { ProviderClient } from './types.js';

/** The checkout interface's part of the client, under `/v1/checkout`. */
export type CheckoutApi = Pick<ProviderClient, 'checkout'>;

/** Binds the checkout endpoints to the request function and the interface's base URL and headers. */
export function checkoutApi(http: Http, upstream: Upstream): CheckoutApi {
  return {
    checkout: {
      initialize: (body, options) =>
        http.request({
          operation: 'checkout.initialize',
          upstream,
          method: 'POST',
          path: '/v1/checkout/initialize',
          body,
          bodySchema: checkoutInitializeRequest,
          response: checkoutSession,
          signal: options?.signal,
        }),
      status: (checkoutId, options) =>
        http.request({
          operation: 'checkout.status',
          upstream,
          method: 'GET',
          path: '/v1/checkout/{checkoutId}/status',
          params: { checkoutId },
          response: checkoutStatusResult,
          signal: options?.signal,
          retry: options?.retry,
          background: options?.background,
        }),
      sessions: (reference, options) =>
        http.request({
          operation: 'checkout.sessions',
          upstream,
          method: 'GET',
          path: '/v1/checkout/reference/{reference}/sessions',
          params: { reference },
          response: checkoutSessionList,
          signal: options?.signal,
          retry: options?.retry,
          background: options?.background,
        }),
    },
  };
}
