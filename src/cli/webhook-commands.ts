import type { CliCommand } from './command.js';
import { EXIT, UsageError } from './errors.js';
import { stringFlag } from './operation.js';
import { formatJson, formatTable } from './output.js';
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

const LIST_HELP = [
  'Usage: merchant-elements webhooks list [--state pending|delivered|dead] [--limit N] [--url URL] [--json]',
  '',
  'List signed webhooks of the last 8 days, newest first',
  '',
  'Options:',
  '  --state S   only pending (still being retried), delivered or dead (given up on) webhooks',
  '  --limit N   at most N of them (100 by default, 1000 at most)',
  ...SERVER_API_FLAGS.map((line) => `  ${line}`),
  '',
  ...SERVER_API_NOTES,
  '',
].join('\n');

/** `webhooks list`: the proxy's webhook deliveries, by state. */
export const webhooksListCommand: CliCommand = {
  name: 'webhooks list',
  synopsis: '[--state pending|delivered|dead] [--limit N]',
  summary: 'List signed webhooks of a running proxy (pending, delivered, dead)',
  help: LIST_HELP,
  async run(argv, io) {
    const parsed = parseServerApiArgs(argv, io, LIST_HELP, { state: { type: 'string' }, limit: { type: 'string' } }, { count: 0, name: '' });
    if (!parsed) return EXIT.ok;
    const state = stringFlag(parsed.values, 'state');
    if (state !== undefined && !(STATES as readonly string[]).includes(state)) {
      throw new UsageError(`--state must be pending, delivered or dead, got "${state}"`);
    }
    const limit = stringFlag(parsed.values, 'limit');
    if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1_000)) {
      throw new UsageError(`--limit must be a whole number from 1 to 1000, got "${limit}"`);
    }
    const target = serverApiTarget(parsed.values, io.env);
    const query = new URLSearchParams({ ...(state ? { state } : {}), ...(limit ? { limit } : {}) }).toString();
    const answer = (await serverApiCall(target, 'GET', `/server/webhooks${query ? `?${query}` : ''}`)) as { deliveries: ListedDelivery[] };
    if (parsed.values.json === true) {
      io.stdout(formatJson(answer));
      return EXIT.ok;
    }
    const rows = answer.deliveries.map((d) => [d.id, d.type, d.state, d.attempts, d.nextAt ?? d.deliveredAt ?? d.deadAt, d.lastError]);
    io.stdout(rows.length === 0 ? 'no webhooks\n' : `${formatTable(['id', 'type', 'state', 'attempts', 'next/delivered/dead at', 'last error'], rows)}\n`);
    return EXIT.ok;
  },
};

const REPLAY_HELP = [
  'Usage: merchant-elements webhooks replay <id> [--url URL] [--json]',
  '',
  'Deliver a webhook again (a dead or delivered one), with the same webhook-id',
  '',
  'Options:',
  ...SERVER_API_FLAGS.map((line) => `  ${line}`),
  '',
  'The id is the webhook-id, as `webhooks list` shows it (payment:ORDER-123-1:COMPLETED).',
  ...SERVER_API_NOTES,
  '',
].join('\n');

/** `webhooks replay <id>`: re-queues one webhook for delivery, same `webhook-id`. */
export const webhooksReplayCommand: CliCommand = {
  name: 'webhooks replay',
  synopsis: '<id>',
  summary: 'Deliver a dead or delivered webhook again, with the same webhook-id',
  help: REPLAY_HELP,
  async run(argv, io) {
    const parsed = parseServerApiArgs(argv, io, REPLAY_HELP, {}, { count: 1, name: '<id>' });
    if (!parsed) return EXIT.ok;
    const id = parsed.positionals[0] ?? '';
    if (id.trim() === '') throw new UsageError('the webhook id must not be empty');
    const target = serverApiTarget(parsed.values, io.env);
    const answer = await serverApiCall(target, 'POST', `/server/webhooks/${encodeURIComponent(id)}/replay`, { notFound: `no webhook with id "${id}" (webhooks are kept 8 days)` });
    io.stdout(parsed.values.json === true ? formatJson(answer) : `queued ${id} for delivery again\n`);
    return EXIT.ok;
  },
};
