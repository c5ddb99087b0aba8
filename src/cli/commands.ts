import { existsSync } from 'node:fs';
import type { CliCommand } from './command.js';
import { program } from './program.js';
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
import { serveCommand } from './serve-command.js';
import { smsBulkCommand } from './sms-bulk-command.js';
import { ordersResolveCommand, ordersUnresolvedCommand } from './order-commands.js';
import { webhooksListCommand, webhooksReplayCommand } from './webhook-commands.js';

/**
 * Whether this copy can run the demo: its server (demo/, with Vite) sits beside src/ in a checkout of the
 * repository and is not published, so an installed package neither lists `demo` nor pretends to run it.
 */
function demoHere(): boolean {
  return existsSync(new URL('../../demo/server/index.ts', import.meta.url));
}

/** Commands of a checkout that this copy lacks, with the sentence that says so (a usage error, exit 2). */
export const CHECKOUT_ONLY = (): Readonly<Record<string, string>> =>
  demoHere()
    ? {}
    : {
        demo:
          'the demo shop runs from a checkout of the merchant-elements repository (npm install && npm start there), ' +
          `not from an installed package; here, run the provider sandbox: ${program()} sandbox`,
      };

/**
 * Every `merchant-elements` command, in the order the usage lists them. A new command is one more entry
 * here (its name may be one word, `demo`, or two, `sms send`).
 */
export const COMMANDS: readonly CliCommand[] = [
  sandboxCommand,
  serveCommand,
  ...(demoHere() ? [demoCommand] : []),
  smsSendCommand,
  smsBulkCommand,
  smsStatusCommand,
  smsResendCommand,
  emailSendCommand,
  balanceCommand,
  paymentStatusCommand,
  accountLookupCommand,
  checkoutStatusCommand,
  webhooksListCommand,
  webhooksReplayCommand,
  ordersUnresolvedCommand,
  ordersResolveCommand,
];
