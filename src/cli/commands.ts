import type { CliCommand } from './command.js';
import { demoCommand } from './demo-command.js';
import {
  balanceCommand,
  emailSendCommand,
  smsResendCommand,
  smsSendCommand,
  smsStatusCommand,
} from './messaging-commands.js';
import { accountLookupCommand, checkoutStatusCommand, paymentStatusCommand } from './payment-commands.js';
import { sandboxCommand } from './sandbox-command.js';
import { smsBulkCommand } from './sms-bulk-command.js';

/**
 * Every `merchant-elements` command, in the order the usage lists them. A new command is one more entry
 * here (its name may be one word, `demo`, or two, `sms send`).
 */
export const COMMANDS: readonly CliCommand[] = [
  sandboxCommand,
  demoCommand,
  smsSendCommand,
  smsBulkCommand,
  smsStatusCommand,
  smsResendCommand,
  emailSendCommand,
  balanceCommand,
  paymentStatusCommand,
  accountLookupCommand,
  checkoutStatusCommand,
];
