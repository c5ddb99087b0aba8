import type { Http, Upstream } from './http.js';
import {
  balanceResponse,
  deliveryReceiptResponse,
  emailSendRequest,
  emailSendResponse,
  otpGenerateRequest,
  otpGenerateResponse,
  otpValidateRequest,
  otpValidateResponse,
  smsBulkRequest,
  smsBulkResponse,
  smsQuickRequest,
  smsResendRequest,
  smsSendResponse,
} from './schemas/index.js';
import type { ProviderClient } from './types.js';

/** The messaging interface's part of the client: SMS, OTP, email and balance, under `/v1/external`. */
export type MessagingApi = Pick<ProviderClient, 'sms' | 'otp' | 'email' | 'account'>;

/** Binds the messaging endpoints to the request function and the interface's base URL and headers. */
export function messagingApi(http: Http, upstream: Upstream): MessagingApi {
  return {
    sms: {
      send: (body, options) =>
        http.request({
          operation: 'sms.send',
          upstream,
          method: 'POST',
          path: '/v1/external/sms/quick',
          body,
          bodySchema: smsQuickRequest,
          response: smsSendResponse,
          signal: options?.signal,
        }),
      bulk: (body, options) =>
        http.request({
          operation: 'sms.bulk',
          upstream,
          method: 'POST',
          path: '/v1/external/sms/bulk',
          body,
          bodySchema: smsBulkRequest,
          response: smsBulkResponse,
          signal: options?.signal,
        }),
      resend: (messageId, body, options) =>
        http.request({
          operation: 'sms.resend',
          upstream,
          method: 'POST',
          path: '/v1/external/sms/quick/{messageId}/resend',
          params: { messageId },
          body,
          bodySchema: smsResendRequest,
          response: smsSendResponse,
          signal: options?.signal,
        }),
      receipt: (sequenceNo, options) =>
        http.request({
          operation: 'sms.receipt',
          upstream,
          method: 'GET',
          path: '/v1/external/sms/logs/{sequenceNo}',
          params: { sequenceNo },
          response: deliveryReceiptResponse,
          signal: options?.signal,
          retry: options?.retry,
        }),
    },
    otp: {
      generate: (body, options) =>
        http.request({
          operation: 'otp.generate',
          upstream,
          method: 'POST',
          path: '/v1/external/generate/otp',
          body,
          bodySchema: otpGenerateRequest,
          response: otpGenerateResponse,
          signal: options?.signal,
        }),
      validate: (body, options) =>
        http.request({
          operation: 'otp.validate',
          upstream,
          method: 'POST',
          path: '/v1/external/validate/otp',
          body,
          bodySchema: otpValidateRequest,
          response: otpValidateResponse,
          signal: options?.signal,
        }),
    },
    email: {
      send: (body, options) =>
        http.request({
          operation: 'email.send',
          upstream,
          method: 'POST',
          path: '/v1/external/email/send',
          body,
          bodySchema: emailSendRequest,
          response: emailSendResponse,
          signal: options?.signal,
        }),
    },
    account: {
      balance: (options) =>
        http.request({
          operation: 'account.balance',
          upstream,
          method: 'GET',
          path: '/v1/external/account/balance',
          response: balanceResponse,
          signal: options?.signal,
          retry: options?.retry,
        }),
    },
  };
}
