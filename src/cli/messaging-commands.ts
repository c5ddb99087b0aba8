import type { ProviderClient, SmsSendResponse, SmsSendResult } from '../provider/index.js';
import { UsageError } from './errors.js';
import { program } from './program.js';
import { defaultCountry, emailFlag, notLocalForm } from './flags.js';
import { listFlag, operation, stringFlag } from './operation.js';
import { formatFields } from './output.js';

/** The SMS type the quick-send endpoint expects (and the bulk one is sent with). */
export const SMS_TYPE = 'Quick';

/** A sent message of a send result with the jobId of its batch, in the order the provider listed them. */
export function sentMessages(result: SmsSendResult) {
  return result.batches.flatMap((batch) => batch.messages.map((message) => ({ ...message, jobId: batch.jobId })));
}

/** A send's answer, and the messageId `sms resend` takes (read from its delivery receipt). */
interface Sent {
  response: SmsSendResponse;
  /** Undefined when the receipt could not be read yet. */
  messageId: string | undefined;
}

/**
 * The send's answer with its messageId: the provider's send result carries no messageId, which resend
 * needs, and the delivery receipt of the sequenceNo does. A receipt not readable yet leaves it unknown.
 */
async function withMessageId(client: ProviderClient, response: SmsSendResponse): Promise<Sent> {
  const sequenceNo = response.sequenceNo ?? sentMessages(response.data)[0]?.sequenceNo;
  if (!sequenceNo) return { response, messageId: undefined };
  try {
    return { response, messageId: (await client.sms.receipt(sequenceNo)).data.messageId };
  } catch {
    return { response, messageId: undefined };
  }
}

/** The human output of a quick send or a resend. */
function renderSent({ response, messageId }: Sent): string {
  const [message] = sentMessages(response.data);
  const sequenceNo = response.sequenceNo ?? message?.sequenceNo;
  return formatFields([
    ['status', response.statusMessage],
    ['sequenceNo', response.sequenceNo],
    ['messageId', messageId ?? `not known yet (${program()} sms status ${sequenceNo} shows it)`],
    ['transactionId', response.transactionId],
    ['to', message?.to],
    ['from', message?.from],
    ['message', message?.message],
  ]);
}

/** `sms send`: one SMS. */
export const smsSendCommand = operation({
  name: 'sms send',
  summary: 'Send one SMS',
  synopsis: '--to NUMBER --from SENDER --message TEXT [--global]',
  options: {
    to: { type: 'string' },
    from: { type: 'string' },
    message: { type: 'string' },
    global: { type: 'boolean' },
  },
  required: ['to', 'from', 'message'],
  optionHelp: [
    '--to NUMBER         recipient, digits only without + (233240000001)',
    '--from SENDER       sender ID or name',
    '--message TEXT      the text (at most 1600 characters)',
    '--global            use global routing (a number outside the local country)',
  ],
  notes: ['Prints the messageId that sms resend takes (read from the delivery receipt); --json prints the send response.'],
  call: async ({ client, values, io }) =>
    withMessageId(
      client,
      await client.sms.send({
        to: notLocalForm(stringFlag(values, 'to') ?? '', '--to', defaultCountry(io.env)),
        from: stringFlag(values, 'from') ?? '',
        message: stringFlag(values, 'message') ?? '',
        type: SMS_TYPE,
        isGlobal: values.global === true,
      }),
    ),
  json: (sent) => sent.response,
  render: renderSent,
});

/** `sms status <sequenceNo>`: the delivery receipt. */
export const smsStatusCommand = operation({
  name: 'sms status',
  summary: "Show an SMS's delivery receipt by the sequenceNo its send returned",
  positionals: ['sequenceNo'],
  call: ({ client, args }) => client.sms.receipt(args.sequenceNo ?? ''),
  render: ({ data }) =>
    formatFields([
      ['sequenceNo', data.sequenceNo],
      ['deliveryStatus', data.deliveryStatus],
      ['to', data.receiverAddress.join(', ')],
      ['from', data.senderAddress],
      ['messageId', data.messageId],
      ['createdAt', data.createdAt],
      ['message', data.message],
    ]),
});

/** `sms resend <messageId> --message …`: the same recipient, new content. */
export const smsResendCommand = operation({
  name: 'sms resend',
  summary: 'Resend an earlier SMS to the same recipient with new content',
  positionals: ['messageId'],
  options: { message: { type: 'string' } },
  required: ['message'],
  optionHelp: ['--message TEXT      the new text (at most 1600 characters)'],
  call: async ({ client, values, args }) =>
    withMessageId(client, await client.sms.resend(args.messageId ?? '', { message: stringFlag(values, 'message') ?? '' })),
  json: (sent) => sent.response,
  render: renderSent,
});

/** `email send`: one email through the messaging interface. */
export const emailSendCommand = operation({
  name: 'email send',
  summary: 'Send an email (at least one of --text and --html)',
  synopsis: '--from ADDRESS --to ADDRESS [--to …] --subject TEXT (--text TEXT | --html HTML)',
  options: {
    from: { type: 'string' },
    to: { type: 'string', multiple: true },
    subject: { type: 'string' },
    text: { type: 'string' },
    html: { type: 'string' },
  },
  required: ['from', 'to', 'subject'],
  optionHelp: [
    '--from ADDRESS      sender address',
    '--to ADDRESS        recipient; repeat for several (at most 150)',
    '--subject TEXT      subject line',
    '--text TEXT         plain-text body',
    '--html HTML         HTML body',
  ],
  call: ({ client, values }) => {
    const text = stringFlag(values, 'text');
    const html = stringFlag(values, 'html');
    if (text === undefined && html === undefined) throw new UsageError('give --text or --html (or both)');
    const to = listFlag(values, 'to');
    return client.email.send({
      from: emailFlag(stringFlag(values, 'from') ?? '', '--from'),
      to: to.length === 1 ? (to[0] ?? '') : to,
      subject: stringFlag(values, 'subject') ?? '',
      ...(text === undefined ? {} : { text }),
      ...(html === undefined ? {} : { html }),
    });
  },
  render: (response) =>
    formatFields([
      ['status', response.statusMessage],
      ['transactionId', response.transactionId],
      ['sequenceNo', response.sequenceNo],
    ]),
});

/** `balance`: the messaging account's credit. */
export const balanceCommand = operation({
  name: 'balance',
  summary: 'Show the messaging account credit balance',
  call: ({ client }) => client.account.balance(),
  render: ({ data }) =>
    formatFields([
      ['account', data.id],
      ['name', data.userId.name],
      ['phone', data.userId.phone],
      ['credit', data.credit],
      ['intlCredit', data.intlCredit],
      ['intlTotalAmount', data.intlTotalAmount],
    ]),
});

