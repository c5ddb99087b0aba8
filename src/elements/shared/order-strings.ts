// English words of the two elements that pay an order: see strings.ts.

/** What the two elements that pay an order meet (`<pay-by-mobile>`, `<checkout-button>`): its money rules. */
export const orderEn = {
  ORDER_CHANGED: 'This order has changed. Reload the page to see what to pay.',
  /** `details.method` `checkout` or `mobile-money`, `details.status` its status. */
  ORDER_IN_OTHER_PAYMENT: (d: { method?: string; status?: string }): string =>
    /^completed$/i.test(d.status ?? '')
      ? 'This order is already paid.'
      : `This order is being paid ${d.method == 'checkout' ? 'on the checkout page' : 'by mobile money'}. Finish there, or start a new order.`,
  /** An earlier try of the order (either way) is not read final yet: nothing new may start until it is. */
  PAYMENT_UNCONFIRMED: 'An earlier payment is still being confirmed. Try again in a minute.',
  /** The provider has this order's reference with other terms: nothing here can pay it. */
  REFERENCE_CONFLICT: 'This order cannot be paid here. Contact the shop.',
  /** While a payment is under way and the connection is gone: said after what to do, which stays. */
  offline: 'Connection lost. This will update when it returns.',
};
