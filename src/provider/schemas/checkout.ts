import { z } from 'zod';
import { isoDateTime } from './common.js';

/** Minimum checkout amount. */
export const CHECKOUT_MIN_AMOUNT = 0.01;

export const checkoutInitializeRequest = z.strictObject({
  title: z.string().min(1, 'must not be empty'),
  reference: z.string().min(1, 'must not be empty'),
  amount: z.number().finite().min(CHECKOUT_MIN_AMOUNT, `must be at least ${CHECKOUT_MIN_AMOUNT}`),
  description: z.string().min(1, 'must not be empty'),
  returnUrl: z.url({ protocol: /^https?$/ }),
});
export type CheckoutInitializeRequest = z.infer<typeof checkoutInitializeRequest>;

/** Status values the initialize response documents. */
export const CHECKOUT_INIT_STATUSES = ['active', 'completed', 'expired', 'cancelled'] as const;
/** Status values the status response documents. */
export const CHECKOUT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired', 'cancelled'] as const;
export const checkoutStatus = z.enum(CHECKOUT_STATUSES);
export type CheckoutStatus = z.infer<typeof checkoutStatus>;
/** Statuses after which a session never changes. */
export const FINAL_CHECKOUT_STATUSES: readonly CheckoutStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

export const checkoutSession = z.object({
  checkoutId: z.string(),
  checkoutUrl: z.string(),
  status: z.enum(CHECKOUT_INIT_STATUSES),
  title: z.string(),
  reference: z.string(),
  amount: z.number(),
  description: z.string(),
  returnUrl: z.string(),
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
});
export type CheckoutSession = z.infer<typeof checkoutSession>;

export const checkoutStatusResult = z.object({
  checkoutId: z.string(),
  status: checkoutStatus,
  amount: z.number(),
  currency: z.string(),
  paymentMethod: z.string().optional(),
  transactionId: z.string().optional(),
  createdAt: isoDateTime,
  completedAt: isoDateTime.optional(),
  expiresAt: isoDateTime,
});
export type CheckoutStatusResult = z.infer<typeof checkoutStatusResult>;

/**
 * Not in the specification: the sessions a checkout interface has under one `reference`
 * (`GET /v1/checkout/reference/{reference}/sessions`). The sandbox answers it; a provider that does not is
 * configured so (`provider.checkoutListing: false`), and the proxy then never asks.
 */
export const checkoutSessionList = z.object({
  sessions: z.array(checkoutStatusResult.extend({ reference: z.string(), checkoutUrl: z.string().optional() })),
});
export type CheckoutSessionList = z.infer<typeof checkoutSessionList>;
