import { existsSync } from 'node:fs';
import type { CliCommand, CommandEntry } from './command.js';
import { program } from './program.js';

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

/** An entry whose module exports the command under `key`. */
function entry<M>(name: string, synopsis: string, summary: string, load: () => Promise<M>, key: keyof M): CommandEntry {
  return { name, synopsis, summary, load: async () => (await load())[key] as CliCommand };
}

/**
 * Every `merchant-elements` command, in the order the usage lists them. A new command is one more entry
 * here (its name may be one word, `demo`, or two, `sms send`). What the overview prints is here; the
 * command's module (its help, flags and what it runs, with the proxy, the provider client or Express behind
 * it) is imported only when that command runs or its help is asked for, so `help` and a server API call
 * start without loading what they never run (test/cli/commands.test.ts checks the two agree).
 */
export const COMMANDS: readonly CommandEntry[] = [
  entry('sandbox', '[--port N] [--host H] [--time-scale N] [--faults SPEC]', 'Run the provider sandbox (messaging, payment gateway, checkout) locally', () => import('./sandbox-command.js'), 'sandboxCommand'),
  entry('serve', '[--port N] [--host H] [--path P] [--server-api-port N] [--server-api-host H]', 'Run the merchant proxy as a service (any backend: PHP, Python, Next.js), configured by the environment', () => import('./serve-command.js'), 'serveCommand'),
  ...(demoHere() ? [entry('demo', '[--port N] [--host H] [--time-scale N]', 'Run the demo shop with the sandbox and a proxy on one port (npm start)', () => import('./demo-command.js'), 'demoCommand')] : []),
  entry('sms send', '--to NUMBER --from SENDER --message TEXT [--global]', 'Send one SMS', () => import('./messaging-commands.js'), 'smsSendCommand'),
  entry('sms bulk', '--file FILE.csv --from SENDER [--message TEMPLATE] [--global] [--batch-size N] [--skip-invalid]', 'Send SMS to the rows of a CSV file (checked first; nothing is sent when a row is bad)', () => import('./sms-bulk-command.js'), 'smsBulkCommand'),
  entry('sms status', '<sequenceNo>', "Show an SMS's delivery receipt by the sequenceNo its send returned", () => import('./messaging-commands.js'), 'smsStatusCommand'),
  entry('sms resend', '<messageId> --message …', 'Resend an earlier SMS to the same recipient with new content', () => import('./messaging-commands.js'), 'smsResendCommand'),
  entry('email send', '--from ADDRESS --to ADDRESS [--to …] --subject TEXT (--text TEXT | --html HTML)', 'Send an email (at least one of --text and --html)', () => import('./messaging-commands.js'), 'emailSendCommand'),
  entry('balance', '', 'Show the messaging account credit balance', () => import('./messaging-commands.js'), 'balanceCommand'),
  entry('payment status', '<reference>', "Show a payment's status by its reference (referenceNo or referenceId)", () => import('./payment-commands.js'), 'paymentStatusCommand'),
  entry('account lookup', '<msisdn>', 'Look up the mobile-money account holder of a number', () => import('./payment-commands.js'), 'accountLookupCommand'),
  entry('checkout status', '<checkoutId>', "Show a hosted checkout session's status", () => import('./payment-commands.js'), 'checkoutStatusCommand'),
  entry('webhooks list', '[--state pending|delivered|dead] [--limit N] [--cursor C | --all]', 'List signed webhooks of a running proxy (pending, delivered, dead), a page at a time', () => import('./webhook-commands.js'), 'webhooksListCommand'),
  entry('webhooks replay', '<id> | --state dead|delivered [--since TIME]', 'Deliver a webhook (or every dead or delivered one) again, with the same webhook-id', () => import('./webhook-commands.js'), 'webhooksReplayCommand'),
  entry('webhooks retry', '', 'Try every pending webhook now, after the receiver is back (not at the end of each backoff)', () => import('./webhook-commands.js'), 'webhooksRetryCommand'),
  entry('orders show', '<reference>', "Show an order's payment and checkout as a running proxy reads them", () => import('./order-commands.js'), 'ordersShowCommand'),
  entry('orders unresolved', '[--limit N]', 'List orders whose money state is not final (a running proxy)', () => import('./order-commands.js'), 'ordersUnresolvedCommand'),
  entry('orders resolve', '<order> (--attempt REF (--reference-id ID | --absent) | --session N (--checkout-id ID | --absent))', "Resolve an order's unknown payment or checkout with the provider's word", () => import('./order-commands.js'), 'ordersResolveCommand'),
];
