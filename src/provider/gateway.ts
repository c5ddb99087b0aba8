import type { Http, Upstream } from './http.js';
import {
  accountHolderResponse,
  paymentInitiateRequest,
  paymentInitiateResponse,
  paymentStatusResponse,
} from './schemas/index.js';
import type { ProviderClient } from './types.js';

/** The payment gateway's part of the client, under `{payment_base_url}`. */
export type GatewayApi = Pick<ProviderClient, 'payments'>;

/** Binds the payment gateway endpoints to the request function and the gateway's base URL and headers. */
export function gatewayApi(http: Http, upstream: Upstream): GatewayApi {
  return {
    payments: {
      initiate: (body, options) =>
        http.request({
          operation: 'payments.initiate',
          upstream,
          method: 'POST',
          path: '/v1/payment',
          body,
          bodySchema: paymentInitiateRequest,
          response: paymentInitiateResponse,
          signal: options?.signal,
        }),
      status: (reference, options) =>
        http.request({
          operation: 'payments.status',
          upstream,
          method: 'GET',
          path: '/v1/payment/{reference}/status',
          params: { reference },
          response: paymentStatusResponse,
          signal: options?.signal,
          retry: options?.retry,
          background: options?.background,
        }),
      accountHolder: (msisdn, options) =>
        http.request({
          operation: 'payments.accountHolder',
          upstream,
          method: 'GET',
          path: '/v1/accountholders/{accountHolderId}',
          params: { accountHolderId: msisdn },
          response: accountHolderResponse,
          signal: options?.signal,
          retry: options?.retry,
          background: options?.background,
        }),
    },
  };
}
