import { parseArgs } from 'node:util';
import type { CliCommand } from './command.js';
import { program } from './program.js';
import { CliConfigError, EXIT, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { stringFlag, type OptionValues } from './operation.js';
import { formatJson, formatTable } from './output.js';

/** Why a call to the proxy's server API failed: printed as one line, exit code 1. */
export class ProxyCallError extends Error {
  override readonly name = 'ProxyCallError';
}

const STATES = ['pending', 'delivered', 'dead'] as const;

const SHARED_HELP = [
  '--url URL   the running proxy, mount path included (overrides PROXY_URL), e.g. http://127.0.0.1:8787/merchant-elements',
  '--json      print the server API\'s answer as JSON on stdout',
  '--help      show this text',
];
const NOTES = [
  'Calls the server API of a running proxy (merchant-elements serve, or one mounted with the server API)',
  'with Authorization: Bearer $PROXY_SERVER_KEY.',
];

/** The proxy's base URL and server key, from `--url` / PROXY_URL and PROXY_SERVER_KEY. */
function target(values: OptionValues, env: NodeJS.ProcessEnv): { base: string; key: string } {
  const flag = stringFlag(values, 'url');
  const raw = flag ?? env.PROXY_URL?.trim();
  const key = env.PROXY_SERVER_KEY?.trim();
  const problems: string[] = [];
  if (!raw) problems.push('PROXY_URL: is required (or --url), e.g. http://127.0.0.1:8787/merchant-elements');
  if (!key) problems.push("PROXY_SERVER_KEY: is required (the proxy's server API key)");
  if (raw && (!/^https?:\/\/[^/]/i.test(raw) || !URL.canParse(raw))) {
    if (flag !== undefined) throw new UsageError(`--url must be an http(s) URL, got "${raw}"`);
    problems.push('PROXY_URL: must be an http(s) URL');
  }
  if (problems.length > 0) throw new CliConfigError(problems);
  return { base: (raw as string).replace(/\/+$/, ''), key: key as string };
}

/** One call to the server API; the parsed JSON of a 2xx answer, else a ProxyCallError saying why. */
async function call(base: string, key: string, method: 'GET' | 'POST', path: string, notFound?: string): Promise<unknown> {
  let res: Response;
  try {
    // A POST carries `{}` as JSON: the proxy's router takes JSON bodies only (415 otherwise).
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (method === 'POST') headers['content-type'] = 'application/json';
    const init: RequestInit = { method, headers, signal: AbortSignal.timeout(15_000), redirect: 'manual' };
    if (method === 'POST') init.body = '{}';
    res = await fetch(`${base}${path}`, init);
  } catch {
    throw new ProxyCallError(`could not reach the proxy at ${base}; is it running (${program()} serve)?`);
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403) throw new ProxyCallError(`the proxy refused the server key (${res.status}); check PROXY_SERVER_KEY`);
  if (res.status === 404 && notFound) throw new ProxyCallError(notFound);
  if (res.status < 200 || res.status > 299) throw new ProxyCallError(`the proxy answered ${res.status}${messageOf(text)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProxyCallError(`the proxy answered ${res.status} with something other than JSON; is ${base} the proxy's mount path?`);
  }
}

function messageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? ` (${body.error.message})` : '';
  } catch {
    return '';
  }
}

/** Parses flags, answers `--help`, checks the positionals; null when help was printed. */
function parse(argv: string[], io: CliIo, help: string, options: Record<string, { type: 'string' | 'boolean' }>, positionals: number) {
  const parsed = parseArgs({
    args: argv,
    options: { ...options, url: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  const values = parsed.values as OptionValues;
  if (values.help === true) {
    io.stdout(help);
    return null;
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(`expected ${positionals === 0 ? 'no arguments' : '<id>'}, got ${parsed.positionals.length} argument(s)`);
  }
  return { values, positionals: parsed.positionals };
}

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
  ...SHARED_HELP.map((line) => `  ${line}`),
  '',
  ...NOTES,
  '',
].join('\n');

/** `webhooks list`: the proxy's webhook deliveries, by state. */
export const webhooksListCommand: CliCommand = {
  name: 'webhooks list',
  synopsis: '[--state pending|delivered|dead] [--limit N]',
  summary: 'List signed webhooks of a running proxy (pending, delivered, dead)',
  help: LIST_HELP,
  async run(argv, io) {
    const parsed = parse(argv, io, LIST_HELP, { state: { type: 'string' }, limit: { type: 'string' } }, 0);
    if (!parsed) return EXIT.ok;
    const state = stringFlag(parsed.values, 'state');
    if (state !== undefined && !(STATES as readonly string[]).includes(state)) {
      throw new UsageError(`--state must be pending, delivered or dead, got "${state}"`);
    }
    const limit = stringFlag(parsed.values, 'limit');
    if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1_000)) {
      throw new UsageError(`--limit must be a whole number from 1 to 1000, got "${limit}"`);
    }
    const { base, key } = target(parsed.values, io.env);
    const query = new URLSearchParams({ ...(state ? { state } : {}), ...(limit ? { limit } : {}) }).toString();
    const answer = (await call(base, key, 'GET', `/server/webhooks${query ? `?${query}` : ''}`)) as { deliveries: ListedDelivery[] };
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
  ...SHARED_HELP.map((line) => `  ${line}`),
  '',
  'The id is the webhook-id, as `webhooks list` shows it (payment:ORDER-123-1:COMPLETED).',
  ...NOTES,
  '',
].join('\n');

/** `webhooks replay <id>`: re-queues one webhook for delivery, same `webhook-id`. */
export const webhooksReplayCommand: CliCommand = {
  name: 'webhooks replay',
  synopsis: '<id>',
  summary: 'Deliver a dead or delivered webhook again, with the same webhook-id',
  help: REPLAY_HELP,
  async run(argv, io) {
    const parsed = parse(argv, io, REPLAY_HELP, {}, 1);
    if (!parsed) return EXIT.ok;
    const id = parsed.positionals[0] ?? '';
    if (id.trim() === '') throw new UsageError('the webhook id must not be empty');
    const { base, key } = target(parsed.values, io.env);
    const answer = await call(base, key, 'POST', `/server/webhooks/${encodeURIComponent(id)}/replay`, `no webhook with id "${id}" (webhooks are kept 8 days)`);
    io.stdout(parsed.values.json === true ? formatJson(answer) : `queued ${id} for delivery again\n`);
    return EXIT.ok;
  },
};
