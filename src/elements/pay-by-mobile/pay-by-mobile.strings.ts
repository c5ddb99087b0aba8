import { commonEn } from '../shared/strings.js';
import { orderEn } from '../shared/order-strings.js';
import { phoneEn } from '../shared/phone-strings.js';

/** English words of `<pay-by-mobile>`; set some per instance with the `strings` property. */
export const payByMobileEn = {
  ...commonEn,
  ...phoneEn,
  ...orderEn,
  ACCOUNT_NOT_FOUND: 'No mobile money account on this number.',
  INSUFFICIENT_FUNDS: 'Not enough money in the account.',
  PAYMENT_FAILED: 'The payment did not go through.',
  ATTEMPTS_EXHAUSTED: 'No attempts left for this order. Start a new order or choose another way to pay.',
  PAYMENT_IN_PROGRESS: 'This order waits for approval on another phone.',
  number: 'Mobile money number',
  next: 'Continue',
  lookingUp: 'Finding the account…',
  /** `amount`: the order's, or with a charge estimate {@link estimate}'s words. */
  confirm: (amount: string, name: string, network: string) => `Pay ${amount} from ${name} on ${network}?`,
  /** What the customer will most likely approve, when the shop's configuration knows the network's charge. */
  estimate: (total: string, amount: string, charge: string) => `about ${total} (${amount} + about ${charge} network charge)`,
  about: (total: string) => `about ${total}`,
  /** Before Pay, when the charge is unknown until the provider answers. */
  mayCharge: 'Your network may add a charge.',
  pay: (amount: string) => `Pay ${amount}`,
  paying: 'Sending the request…',
  /** What the phone asks: the total, with the amount and charge when there is one, on the number (masked) it went to. */
  approveTotal: (total: string, amount: string, charge: string, number: string) =>
    `Approve ${total}${charge ? ` (${amount} + ${charge} charge)` : ''} on ${number || 'your phone'}.`,
  /** The prompt's age (`m:ss`): the proxy's, so the same after a reload and in another tab. */
  sentAgo: (clock: string) => `Sent ${clock} ago.`,
  left: (clock: string) => `${clock} left`,
  /** The proxy does not know the network's prompt lifetime: no time is invented. */
  openUnknown: 'How long it stays open is up to your network.',
  /** The prompt's lifetime is over (a time of day), the provider has not said the payment ended yet. */
  promptExpired: (time: string) => `The prompt expired at ${time}; the network has yet to confirm.`,
  mayBeOpen: (number: string) => `The prompt may still be open on ${number || 'your phone'}: approve or decline it there, or wait.`,
  completed: 'Payment received. Thank you!',
  declined: 'Payment declined on the phone.',
  timedOut: 'No answer from the phone yet.',
  stillWaiting: 'Still waiting for the phone.',
  /** While waiting: the ways out (the provider has no cancel; one attempt at a time per order). */
  wayOut: 'Wrong number? Decline on that phone, then use another. Nothing is charged unless approved.',
  /** After the countdown: leaving is safe (the shop still hears how it ends). */
  safeToLeave: 'You may leave: the shop will be told how it ends.',
  /** UNKNOWN: the request's answer was lost and no read finds it; nothing here can start another try. */
  unknown: 'The provider is confirming this payment; the shop will tell you how it ends.',
  checkAgain: 'Check again',
};
export type PayByMobileStrings = typeof payByMobileEn;
