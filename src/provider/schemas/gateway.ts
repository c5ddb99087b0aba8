import { z } from 'zod';
import { GATEWAY_STATUS, gatewayEnvelope, isoDateTime, phoneNumber } from './common.js';

export const paymentInitiateRequest = z.strictObject({
  amount: z.number().positive('must be greater than 0').finite(),
  referenceNo: z.string().min(1, 'must not be empty'),
  payee: z.string().min(1, 'must not be empty'),
  narration: z.string().min(1, 'must not be empty'),
  msisdn: phoneNumber,
  callbackId: z.string().min(1, 'must not be empty'),
  payer: z.string().min(1, 'must not be empty'),
});
export type PaymentInitiateRequest = z.infer<typeof paymentInitiateRequest>;

export const paymentInitiation = z.object({
  totalAmount: z.number(),
  amount: z.number(),
  charge: z.number(),
  referenceId: z.string(),
});
export type PaymentInitiation = z.infer<typeof paymentInitiation>;

/** Initiation accepted: statusCode `0001`, statusMessage `PENDING`. */
export const paymentInitiateResponse = gatewayEnvelope(z.literal(GATEWAY_STATUS.PENDING), paymentInitiation);
export type PaymentInitiateResponse = z.infer<typeof paymentInitiateResponse>;

export const PAYMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const paymentStatus = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof paymentStatus>;
/** Statuses after which a payment never changes. */
export const FINAL_PAYMENT_STATUSES: readonly PaymentStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

export const paymentTransaction = z.object({
  reference: z.string(),
  status: paymentStatus,
  amount: z.number(),
  charge: z.number(),
  totalAmount: z.number(),
  payee: z.string(),
  payer: z.string(),
  narration: z.string(),
  msisdn: z.string(),
  completedAt: isoDateTime.nullable(),
});
export type PaymentTransaction = z.infer<typeof paymentTransaction>;

export const paymentStatusResponse = gatewayEnvelope(z.literal(GATEWAY_STATUS.SUCCESSFUL), paymentTransaction);
export type PaymentStatusResponse = z.infer<typeof paymentStatusResponse>;

export const accountHolder = z.object({
  accountName: z.string(),
  msisdn: z.string(),
  network: z.string(),
});
export type AccountHolder = z.infer<typeof accountHolder>;

export const accountHolderResponse = gatewayEnvelope(z.literal(GATEWAY_STATUS.SUCCESSFUL), accountHolder);
export type AccountHolderResponse = z.infer<typeof accountHolderResponse>;
