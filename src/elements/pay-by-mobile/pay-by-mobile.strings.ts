import { commonEn } from '../shared/strings.js';

/** English words of `<pay-by-mobile>`; set some per instance with the `strings` property. */
export const payByMobileEn = {
  ...commonEn,
  ACCOUNT_NOT_FOUND: 'No mobile money account on this number.',
  INSUFFICIENT_FUNDS: 'Not enough money in the account.',
  PAYMENT_FAILED: 'The payment did not go through.',
  ATTEMPTS_EXHAUSTED: 'No more attempts allowed.',
  next: 'Continue',
  lookingUp: 'Finding the account…',
  confirm: (amount: string, name: string, network: string) => `Pay ${amount} from ${name} on ${network}?`,
  pay: (amount: string) => `Pay ${amount}`,
  paying: 'Sending the request…',
  approve: 'Approve on your phone with your PIN.',
  left: (clock: string) => `${clock} left`,
  completed: 'Payment received. Thank you!',
  declined: 'Payment declined on the phone.',
  timedOut: 'No answer from the phone yet.',
  checkAgain: 'Check again',
};
export type PayByMobileStrings = typeof payByMobileEn;
