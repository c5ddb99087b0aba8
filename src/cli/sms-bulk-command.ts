import { readFile } from 'node:fs/promises';
import { isProviderError, type ProviderClient, type ProviderUnavailableError } from '../provider/index.js';
import { parseCsv } from './csv.js';
import { InputError, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { SMS_TYPE, sentMessages } from './messaging-commands.js';
import { operation, stringFlag } from './operation.js';
import { formatTable } from './output.js';
import { planBulk, type PlannedMessage, type RowProblem } from './sms-bulk-plan.js';

/** Most messages in one bulk request: the sandbox's limit (DESIGN: bulk limits). */
export const BULK_REQUEST_MAX = 1_000;

/** Bad rows listed in full before "… and N more". */
const LISTED_PROBLEMS = 50;

/** One message sent: its row and the identifiers the provider gave it. */
export interface BulkSent {
  row: number;
  to: string;
  sequenceNo: string | null;
  transactionId: string | null;
  jobId: string | null;
}

/** What `sms bulk --json` prints. */
export interface BulkOutcome {
  /** Data rows in the file. */
  rows: number;
  /** Messages sent. */
  sent: number;
  /** Bulk requests made. */
  requests: number;
  messages: BulkSent[];
  /** Rows left out by `--skip-invalid`. */
  skipped: RowProblem[];
}

function parseBatchSize(text: string | undefined): number {
  if (text === undefined) return BULK_REQUEST_MAX;
  const size = Number(text);
  if (!/^\d+$/.test(text) || size < 1 || size > BULK_REQUEST_MAX) {
    throw new UsageError(`--batch-size must be a whole number from 1 to ${BULK_REQUEST_MAX}, got "${text}"`);
  }
  return size;
}

async function readRecipients(file: string) {
  try {
    return parseCsv(await readFile(file, 'utf8'));
  } catch (err) {
    if (err instanceof InputError) throw new InputError(`${file}: ${err.message}`);
    throw new InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

const listProblems = (problems: readonly RowProblem[]) => [
  ...problems.slice(0, LISTED_PROBLEMS).map((p) => `row ${p.row}: ${p.problem}`),
  ...(problems.length > LISTED_PROBLEMS ? [`… and ${problems.length - LISTED_PROBLEMS} more`] : []),
];

/** Says on stderr where sending stopped, so the operator knows which rows went out. */
function reportStop(io: CliIo, error: unknown, chunk: readonly PlannedMessage[], done: number, total: number): void {
  const first = chunk[0]?.row;
  const last = chunk[chunk.length - 1]?.row;
  const rows = first === last ? `row ${first}` : `rows ${first}–${last}`;
  const later = done + chunk.length < total ? '; later rows were not sent' : '';
  const index = isProviderError(error) ? error.details?.['index'] : undefined;
  const culprit = typeof index === 'number' && chunk[index] ? `; the provider refused row ${chunk[index].row}` : '';
  const maybe = isProviderError(error) && (error as ProviderUnavailableError).outcomeUnknown ? ' (it may have been processed)' : '';
  io.stderr(`stopped: ${done}/${total} sent; the request with ${rows} failed${maybe}${culprit}${later}\n`);
}

/** Sends the planned messages in requests of `batchSize`, with progress on stderr. */
async function sendAll(
  client: ProviderClient,
  io: CliIo,
  messages: readonly PlannedMessage[],
  options: { from: string; isGlobal: boolean; batchSize: number },
): Promise<{ sent: BulkSent[]; requests: number }> {
  const sent: BulkSent[] = [];
  let requests = 0;
  for (let start = 0; start < messages.length; start += options.batchSize) {
    const chunk = messages.slice(start, start + options.batchSize);
    const body = chunk.map((m) => ({ to: m.to, from: options.from, message: m.message, type: SMS_TYPE }));
    const response = await client.sms.bulk({ messages: body, isGlobal: options.isGlobal }).catch((error: unknown) => {
      reportStop(io, error, chunk, sent.length, messages.length);
      throw error;
    });
    requests += 1;
    const results = sentMessages(response.data);
    chunk.forEach((m, i) => {
      const result = results[i];
      sent.push({
        row: m.row,
        to: m.to,
        sequenceNo: result?.sequenceNo ?? null,
        transactionId: result?.transactionId ?? null,
        jobId: result?.jobId ?? null,
      });
    });
    io.stderr(`sent ${sent.length}/${messages.length}\n`);
  }
  return { sent, requests };
}

/** `sms bulk --file recipients.csv --from SENDER [--message TEMPLATE]`: many SMS from a CSV file. */
export const smsBulkCommand = operation<BulkOutcome>({
  name: 'sms bulk',
  summary: 'Send SMS to the rows of a CSV file (checked first; nothing is sent when a row is bad)',
  synopsis: '--file FILE.csv --from SENDER [--message TEMPLATE] [--global] [--batch-size N] [--skip-invalid]',
  options: {
    file: { type: 'string' },
    from: { type: 'string' },
    message: { type: 'string' },
    global: { type: 'boolean' },
    'batch-size': { type: 'string' },
    'skip-invalid': { type: 'boolean' },
  },
  required: ['file', 'from'],
  optionHelp: [
    '--file FILE.csv     CSV with a header row: "to" (required), "message" (optional), any others',
    '--from SENDER       sender ID or name',
    '--message TEMPLATE  text for rows without a message; {column} is filled from the row',
    '--global            use global routing',
    `--batch-size N      messages per request, 1 to ${BULK_REQUEST_MAX} (default ${BULK_REQUEST_MAX})`,
    '--skip-invalid      send the valid rows and list the bad ones, instead of sending nothing',
  ],
  notes: [
    'Every row is checked before anything is sent; a bad row (named by the line it starts on, the',
    'header being line 1) stops everything with exit code 2 unless --skip-invalid. Progress goes',
    'to stderr (sent 300/1200); --json prints each message with its row and sequenceNo.',
  ],
  async call({ client, values, io }) {
    const batchSize = parseBatchSize(stringFlag(values, 'batch-size'));
    const file = stringFlag(values, 'file') ?? '';
    const plan = planBulk(await readRecipients(file), stringFlag(values, 'message'));
    if (plan.problems.length > 0 && values['skip-invalid'] !== true) {
      throw new InputError(
        `${plan.problems.length} of ${plan.rows} rows of ${file} are invalid; nothing was sent (--skip-invalid sends the valid ones)`,
        listProblems(plan.problems),
      );
    }
    for (const line of listProblems(plan.problems)) io.stderr(`skipping ${line}\n`);
    if (plan.messages.length === 0) throw new InputError(`no valid rows in ${file}; nothing was sent`);
    const { sent, requests } = await sendAll(client, io, plan.messages, {
      from: stringFlag(values, 'from') ?? '',
      isGlobal: values.global === true,
      batchSize,
    });
    return { rows: plan.rows, sent: sent.length, requests, messages: sent, skipped: plan.problems };
  },
  render: (outcome) =>
    [
      `sent ${outcome.sent} of ${outcome.rows} rows in ${outcome.requests} request(s)` +
        (outcome.skipped.length > 0 ? `; skipped ${outcome.skipped.length} invalid row(s)` : ''),
      '',
      formatTable(
        ['row', 'to', 'sequenceNo'],
        outcome.messages.map((m) => [m.row, m.to, m.sequenceNo]),
      ),
    ].join('\n'),
});
