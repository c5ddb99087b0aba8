import type { TransitionEnv, UpstreamPayment, UpstreamSession } from '../../../src/proxy/order/events.js';
import { newOrder, type CheckoutTry, type Order, type PaymentTerms, type PaymentTry } from '../../../src/proxy/order/order-record.js';
import { references } from '../../../src/proxy/order/references.js';
import { numberKeys } from '../../../src/proxy/number-keys.js';

/** The clock of every fixture. */
export const NOW = 10_000_000;

/** The number keys of every fixture. */
export const NUMBER_KEYS = numberKeys('fixture-token-secret-0123456789-abcdefgh');

export const ENV: TransitionEnv = {
  now: NOW,
  leaseMs: 1_000,
  graceMs: 5_000,
  deadlineMs: 60_000,
  references: references(''),
  readsByReferenceNo: true,
  listsSessions: true,
  // A store of format 1: the number a token locks is kept in full.
  numbers: { atRest: null, holds: NUMBER_KEYS.holds },
};

/** On a store of format 2: the number a token locks is kept as a lock. */
export const LOCKING_ENV: TransitionEnv = { ...ENV, numbers: { atRest: NUMBER_KEYS.lock, holds: NUMBER_KEYS.holds } };

export const TERMS: PaymentTerms = { amount: 12.5, currency: 'GHS', payee: 'Shop', narration: 'Order', msisdn: null };
export const CHECKOUT_TERMS = { amount: 12.5, title: 'Order', description: 'An order' };

/** An order whose histories were read (nothing left to probe). */
export function order(parts: Partial<Order> = {}): Order {
  return { ...newOrder('id', 'O', NOW - 100_000, { payments: true, sessions: true }), history: { payments: 'read', sessions: 'read' }, terms: TERMS, checkoutTerms: CHECKOUT_TERMS, ...parts };
}

export function paymentTry(parts: Partial<PaymentTry> = {}): PaymentTry {
  return {
    ordinal: 1,
    n: 1,
    reference: 'O-1',
    jti: 'j',
    maxAttempts: 3,
    msisdn: '233240000001',
    phase: 'pending',
    sendId: 's1',
    sentAt: NOW - 500,
    referenceId: 'R1',
    callbackId: 'cb1',
    amount: 12.5,
    charge: 0,
    totalAmount: 12.5,
    completedAt: null,
    deadlineAt: NOW + 60_000,
    promptExpiresAt: null,
    seq: 1,
    updatedAt: NOW - 500,
    ...parts,
  };
}

export function session(parts: Partial<CheckoutTry> = {}): CheckoutTry {
  return {
    ordinal: 1,
    jti: 'j',
    phase: 'open',
    createId: 'c1',
    startedAt: NOW - 500,
    checkoutId: 'CO1',
    checkoutUrl: 'http://127.0.0.1/checkout/CO1',
    status: 'pending',
    amount: 12.5,
    currency: 'GHS',
    expiresAt: new Date(NOW + 60_000).toISOString(),
    completedAt: null,
    seq: 1,
    updatedAt: NOW - 500,
    ...parts,
  };
}

export function tx(status: UpstreamPayment['status'], parts: Partial<UpstreamPayment> = {}): UpstreamPayment {
  return {
    reference: 'O-1',
    status,
    amount: 12.5,
    charge: 0.13,
    totalAmount: 12.63,
    payee: 'Shop',
    narration: 'Order',
    msisdn: '233240000001',
    completedAt: status === 'COMPLETED' ? new Date(NOW).toISOString() : null,
    ...parts,
  };
}

export function upstreamSession(status: UpstreamSession['status'], parts: Partial<UpstreamSession> = {}): UpstreamSession {
  return { checkoutId: 'CO1', status, amount: 12.5, currency: 'GHS', expiresAt: new Date(NOW + 60_000).toISOString(), completedAt: status === 'completed' ? new Date(NOW).toISOString() : null, ...parts };
}
