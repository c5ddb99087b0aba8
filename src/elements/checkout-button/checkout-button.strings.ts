import { commonEn } from '../shared/strings.js';
import { orderEn } from '../shared/order-strings.js';

/** English words of `<checkout-button>`; set some per instance with the `strings` property. */
export const checkoutButtonEn = {
  ...commonEn,
  ...orderEn,
  UNSAFE_URL: 'The checkout page address is not safe, so it was not opened. Contact the shop.',
  label: 'Pay now',
  creating: 'Opening the checkout…',
  open: 'Finish paying on the checkout page.',
  completed: 'Payment received. Thank you!',
  failed: 'The payment did not go through.',
  cancelled: 'The payment was cancelled.',
  expired: 'The checkout expired. Start again.',
};
export type CheckoutButtonStrings = typeof checkoutButtonEn;
