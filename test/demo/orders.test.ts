import { describe, expect, it } from 'vitest';
import { isSpent, statusOf } from '../../demo/server/orders.js';
import type { CheckoutSnapshot, PaymentSnapshot } from '../../src/protocol/index.js';

const payment = (status: PaymentSnapshot['status'], updatedAt = '2026-01-01T10:00:00.000Z', attemptsLeft = 2): PaymentSnapshot => ({
  reference: 'ORDER-1-1',
  orderReference: 'ORDER-1',
  status,
  amount: 10,
  charge: 0.1,
  totalAmount: 10.1,
  currency: 'GHS',
  attempt: 1,
  attemptsLeft,
  updatedAt,
  completedAt: null,
});
const checkout = (status: CheckoutSnapshot['status'], updatedAt = '2026-01-01T10:00:00.000Z'): CheckoutSnapshot => ({
  checkoutId: 'c1',
  reference: 'ORDER-1',
  status,
  amount: 10,
  currency: 'GHS',
  updatedAt,
  completedAt: null,
});

describe('the order status the shop shows', () => {
  it('is paid when either way of paying completed, whatever the other says', () => {
    expect(statusOf(payment('FAILED'), checkout('completed'))).toBe('paid');
    expect(statusOf(payment('COMPLETED'), checkout('expired'))).toBe('paid');
  });

  it('is pending while a payment awaits approval or a checkout is being paid', () => {
    expect(statusOf(payment('PENDING'), null)).toBe('pending');
    expect(statusOf(payment('FAILED'), checkout('processing'))).toBe('pending');
  });

  it('is unpaid with nothing, or only a checkout page opened and not used', () => {
    expect(statusOf(null, null)).toBe('unpaid');
    expect(statusOf(null, checkout('pending'))).toBe('unpaid');
  });

  it('otherwise tells the latest ending', () => {
    expect(statusOf(payment('TIMED_OUT'), null)).toBe('timed-out');
    expect(statusOf(payment('CANCELLED', '2026-01-01T10:00:00.000Z'), checkout('expired', '2026-01-01T10:05:00.000Z'))).toBe('expired');
    expect(statusOf(payment('FAILED', '2026-01-01T10:05:00.000Z'), checkout('cancelled', '2026-01-01T10:00:00.000Z'))).toBe('failed');
    expect(statusOf(payment('FAILED'), checkout('pending'))).toBe('failed');
  });
});

describe('a spent order', () => {
  it('is one whose last mobile-money try ended unpaid with no attempt left', () => {
    expect(isSpent(payment('FAILED', undefined, 0))).toBe(true);
    expect(isSpent(payment('CANCELLED', undefined, 0))).toBe(true);
    expect(isSpent(payment('FAILED', undefined, 1))).toBe(false);
    // Still open, paid, or a try that never reached the provider: not spent.
    for (const status of ['PENDING', 'UNKNOWN', 'TIMED_OUT', 'COMPLETED', 'VOID'] as const) expect(isSpent(payment(status, undefined, 0)), status).toBe(false);
    expect(isSpent(null)).toBe(false);
  });
});
