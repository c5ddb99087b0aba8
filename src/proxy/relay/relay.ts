import type { CheckoutSnapshot, PaymentSnapshot } from '../../protocol/index.js';

/** The status relay: one poller per reference per process, snapshots for routes and the merchant. */
export interface Relay {
  payments: {
    /** Latest snapshot of a payment, by the merchant's order reference or by an attempt reference. */
    get(referenceNo: string): Promise<PaymentSnapshot | null>;
  };
  checkouts: {
    /** Latest snapshot of a checkout session, by checkoutId or by the merchant's reference. */
    get(idOrReference: string): Promise<CheckoutSnapshot | null>;
  };
  /** Stops every poller and subscription of this process. */
  close(): Promise<void>;
}

/** Builds the relay of one proxy instance. (Stub: filled in shortly.) */
export function createRelay(ctx: unknown): Relay {
  void ctx;
  return {
    payments: { get: async () => null },
    checkouts: { get: async () => null },
    close: async () => {},
  };
}
