import { commonEn } from '../shared/strings.js';

/** English words of `<pay-by-mobile>`; set some per instance with the `strings` property. */
export const payByMobileEn = {
  ...commonEn,
  ACCOUNT_NOT_FOUND: 'No mobile money account on this number.',
  INSUFFICIENT_FUNDS: 'Not enough money in the account.',
  PAYMENT_FAILED: 'The payment did not go through.',
  ATTEMPTS_EXHAUSTED: 'No attempts left for this order. Start a new order or choose another way to pay.',
  PAYMENT_IN_PROGRESS: 'A payment for this order is waiting for approval on another phone.',
  number: 'Mobile money number',
  next: 'Continue',
  lookingUp: 'Finding the account…',
  confirm: (amount: string, name: string, network: string) => `Pay ${amount} from ${name} on ${network}?`,
  pay: (amount: string) => `Pay ${amount}`,
  paying: 'Sending the request…',
  approve: 'Approve on your phone with your PIN.',
  /** What the phone asks: the total, and the amount and charge when there is a charge. */
  approveTotal: (total: string, amount: string, charge: string) =>
    charge ? `Approve ${total} (${amount} + ${charge} charge) on your phone.` : `Approve ${total} on your phone.`,
  /** The prompt went to another number (another tab or device of the same order), masked: `026 *** **04`. */
  promptSent: (number: string) => `A payment prompt was already sent to ${number}: approve it there.`,
  left: (clock: string) => `${clock} left`,
  completed: 'Payment received. Thank you!',
  declined: 'Payment declined on the phone.',
  timedOut: 'No answer from the phone yet.',
  stillWaiting: 'Still waiting for the phone.',
  /** While waiting: the ways out (the provider has no cancel; one attempt at a time per order). */
  wayOut: 'Wrong number? Decline on that phone, then use another. Nothing is charged unless approved.',
  /** After the countdown: leaving is safe (the shop still hears of a late approval). */
  safeToLeave: 'You may leave: if it is approved later, the shop is told.',
  checkAgain: 'Check again',
};
export type PayByMobileStrings = typeof payByMobileEn;
