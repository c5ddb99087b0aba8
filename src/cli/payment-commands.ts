import { defaultCountry, providerNumber } from './flags.js';
import { operation } from './operation.js';
import { formatFields } from './output.js';

/** `payment status <reference>`: a payment's state by referenceNo or referenceId. */
export const paymentStatusCommand = operation({
  name: 'payment status',
  summary: "Show a payment's status by its reference (referenceNo or referenceId)",
  positionals: ['reference'],
  call: ({ client, args }) => client.payments.status(args.reference ?? ''),
  render: ({ data }) =>
    formatFields([
      ['reference', data.reference],
      ['status', data.status],
      ['amount', data.amount],
      ['charge', data.charge],
      ['totalAmount', data.totalAmount],
      ['payer', data.payer],
      ['payee', data.payee],
      ['msisdn', data.msisdn],
      ['narration', data.narration],
      ['completedAt', data.completedAt],
    ]),
});

/** `account lookup <msisdn>`: the account holder's name and network. */
export const accountLookupCommand = operation({
  name: 'account lookup',
  summary: 'Look up the mobile-money account holder of a number',
  positionals: ['msisdn'],
  notes: ['The number is digits with the country code, without + (233240000001); a local form is refused.'],
  call: ({ client, args, io }) => client.payments.accountHolder(providerNumber(args.msisdn ?? '', 'msisdn', defaultCountry(io.env))),
  render: ({ data }) =>
    formatFields([
      ['accountName', data.accountName],
      ['network', data.network],
      ['msisdn', data.msisdn],
    ]),
});

/** `checkout status <checkoutId>`: a hosted checkout session's state. */
export const checkoutStatusCommand = operation({
  name: 'checkout status',
  summary: "Show a hosted checkout session's status",
  positionals: ['checkoutId'],
  call: ({ client, args }) => client.checkout.status(args.checkoutId ?? ''),
  render: (data) =>
    formatFields([
      ['checkoutId', data.checkoutId],
      ['status', data.status],
      ['amount', `${data.amount} ${data.currency}`],
      ['paymentMethod', data.paymentMethod],
      ['transactionId', data.transactionId],
      ['createdAt', data.createdAt],
      ['completedAt', data.completedAt],
      ['expiresAt', data.expiresAt],
    ]),
});
