import type { CliCommand } from './command.js';
import { EXIT, UsageError } from './errors.js';
import { stringFlag } from './option-values.js';
import { formatJson, formatTable } from './output.js';
import { program } from './program.js';
import { parseServerApiArgs, SERVER_API_FLAGS, SERVER_API_NOTES, serverApiCall, serverApiTarget } from './server-api-client.js';

export { ProxyCallError } from './server-api-client.js';

const STATES = ['pending', 'delivered', 'dead'] as const;

interface ListedDelivery {
  id: string;
  type: string;
  state: string;
  attempts: number;
  nextAt: string | null;
  deliveredAt?: string;
  deadAt?: string;
  lastError?: string;
}

const LIST_HELP = () =>
  [
    'Usage: merchant-elements webhooks list [--state pending|delivered|dead] [--limit N] [--cursor C | --all] [--url URL] [--json]',
    '',
    'List signed webhooks of the last 8 days, newest first, a page at a time',
    '',
    'Options:',
    '  --state S    only pending (still being retried), delivered or dead (given up on) webhooks',
    '  --limit N    at most N of them per page (100 by default, 1000 at most)',
    '  --cursor C   the page after the one that printed this cursor',
    '  --all        every page, one after the other',
    ...SERVER_API_FLAGS.map((line) => `  ${line}`),
    '',
    'When more are left, a line on stderr gives the next page\'s --cursor.',
    ...SERVER_API_NOTES,
    '',
  ].join('\n');

interface ListedPage {
  deliveries: ListedDelivery[];
  next: string | null;
}

/** `webhooks list`: the proxy's webhook deliveries, by state, a page at a time (or all of them). */
export const webhooksListCommand: CliCommand = {
  name: 'webhooks list',
  synopsis: '[--state pending|delivered|dead] [--limit N] [--cursor C | --all]',
  summary: 'List signed webhooks of a running proxy (pending, delivered, dead), a page at a time',
  get help() {
    return LIST_HELP();
  },
  async run(argv, io) {
    const flags = { state: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' }, all: { type: 'boolean' } } as const;
    const parsed = parseServerApiArgs(argv, io, LIST_HELP(), flags, { count: 0, name: '' });
    if (!parsed) return EXIT.ok;
    const state = stringFlag(parsed.values, 'state');
    if (state !== undefined && !(STATES as readonly string[]).includes(state)) {
      throw new UsageError(`--state must be pending, delivered or dead, got "${state}"`);
    }
    const limit = stringFlag(parsed.values, 'limit');
    if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1_000)) {
      throw new UsageError(`--limit must be a whole number from 1 to 1000, got "${limit}"`);
    }
    let cursor = stringFlag(parsed.values, 'cursor');
    const all = parsed.values.all === true;
    if (all && cursor !== undefined) throw new UsageError('give --cursor C or --all, not both');
    const target = serverApiTarget(parsed.values, io.env);
    const deliveries: ListedDelivery[] = [];
    let next: string | null;
    do {
      const query = new URLSearchParams({ ...(state ? { state } : {}), ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) }).toString();
      const page = (await serverApiCall(target, 'GET', `/server/webhooks${query ? `?${query}` : ''}`)) as ListedPage;
      deliveries.push(...page.deliveries);
      next = page.next ?? null;
      cursor = next ?? undefined;
    } while (all && next !== null);
    if (parsed.values.json === true) {
      io.stdout(formatJson({ deliveries, next }));
      return EXIT.ok;
    }
    const rows = deliveries.map((d) => [d.id, d.type, d.state, d.attempts, d.nextAt ?? d.deliveredAt ?? d.deadAt, d.lastError]);
    io.stdout(rows.length === 0 ? 'no webhooks\n' : `${formatTable(['id', 'type', 'state', 'attempts', 'next/delivered/dead at', 'last error'], rows)}\n`);
    if (next !== null) io.stderr(`more: the same command with --cursor ${next} lists the next page (--all lists every page)\n`);
    return EXIT.ok;
  },
};

const REPLAY_HELP = () =>
  [
    'Usage: merchant-elements webhooks replay (<id> | --state dead|delivered [--since TIME]) [--url URL] [--json]',
    '',
    'Deliver a webhook again (a dead or delivered one), with the same webhook-id; or every dead (or delivered)',
    'one, oldest first, once the receiver can take them',
    '',
    'Options:',
    '  --state S      every dead (or delivered) webhook, instead of one id',
    '  --since TIME   with --state, only those recorded at or after TIME (ISO 8601, 2026-11-28T14:00:00Z)',
    ...SERVER_API_FLAGS.map((line) => `  ${line}`),
    '',
    `The id is the webhook-id, as \`${program()} webhooks list\` shows it (payment:ORDER-123-1:COMPLETED).`,
    ...SERVER_API_NOTES,
    '',
  ].join('\n');

/** `webhooks replay <id>`, or `--state dead`: re-queues one webhook (or all dead ones) for delivery, same `webhook-id`. */
export const webhooksReplayCommand: CliCommand = {
  name: 'webhooks replay',
  synopsis: '<id> | --state dead|delivered [--since TIME]',
  summary: 'Deliver a webhook (or every dead or delivered one) again, with the same webhook-id',
  get help() {
    return REPLAY_HELP();
  },
  async run(argv, io) {
    const flags = { state: { type: 'string' }, since: { type: 'string' } } as const;
    const bulk = argv.some((a) => a === '--state' || a.startsWith('--state='));
    const parsed = parseServerApiArgs(argv, io, REPLAY_HELP(), flags, bulk ? { count: 0, name: '' } : { count: 1, name: '<id>' });
    if (!parsed) return EXIT.ok;
    const target = () => serverApiTarget(parsed.values, io.env);
    if (bulk) {
      const state = stringFlag(parsed.values, 'state');
      if (state !== 'dead' && state !== 'delivered') throw new UsageError(`--state must be dead or delivered, got "${state}"`);
      const since = stringFlag(parsed.values, 'since');
      if (since !== undefined && !(/^\d{4}-\d{2}-\d{2}T/.test(since) && !Number.isNaN(Date.parse(since)))) {
        throw new UsageError(`--since must be an ISO 8601 time such as 2026-11-28T14:00:00Z, got "${since}"`);
      }
      const answer = (await serverApiCall(target(), 'POST', '/server/webhooks/replay', { body: { state, ...(since ? { since } : {}) } })) as { replayed: string[] };
      io.stdout(parsed.values.json === true ? formatJson(answer) : `queued ${answer.replayed.length} ${state} webhook(s) for delivery again\n`);
      return EXIT.ok;
    }
    if (parsed.values.since !== undefined) throw new UsageError('--since goes with --state, not with one id');
    const id = parsed.positionals[0] ?? '';
    if (id.trim() === '') throw new UsageError('the webhook id must not be empty');
    const answer = await serverApiCall(target(), 'POST', `/server/webhooks/${encodeURIComponent(id)}/replay`, { notFound: `no webhook with id "${id}" (webhooks are kept 8 days)` });
    io.stdout(parsed.values.json === true ? formatJson(answer) : `queued ${id} for delivery again\n`);
    return EXIT.ok;
  },
};

const RETRY_HELP = () =>
  [
    'Usage: merchant-elements webhooks retry [--url URL] [--json]',
    '',
    'Try every pending webhook now, on every instance of the proxy, instead of at the end of its backoff',
    '(up to 10 minutes): after the receiver is back from an outage. A delivery that succeeds while others',
    'wait does the same by itself; this is for when nothing new is being sent.',
    '',
    'Options:',
    ...SERVER_API_FLAGS.map((line) => `  ${line}`),
    '',
    ...SERVER_API_NOTES,
    '',
  ].join('\n');

/** `webhooks retry`: every pending webhook is tried now. */
export const webhooksRetryCommand: CliCommand = {
  name: 'webhooks retry',
  synopsis: '',
  summary: 'Try every pending webhook now, after the receiver is back (not at the end of each backoff)',
  get help() {
    return RETRY_HELP();
  },
  async run(argv, io) {
    const parsed = parseServerApiArgs(argv, io, RETRY_HELP(), {}, { count: 0, name: '' });
    if (!parsed) return EXIT.ok;
    const answer = (await serverApiCall(serverApiTarget(parsed.values, io.env), 'POST', '/server/webhooks/retry')) as { pending: number };
    io.stdout(parsed.values.json === true ? formatJson(answer) : `trying ${answer.pending} pending webhook(s) now\n`);
    return EXIT.ok;
  },
};
