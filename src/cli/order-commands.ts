import type { UnresolvedOrder } from '../protocol/index.js';
import type { CliCommand } from './command.js';
import { EXIT, UsageError } from './errors.js';
import { stringFlag, type OptionValues } from './option-values.js';
import { formatFields, formatJson, formatTable, type FieldValue } from './output.js';
import { program } from './program.js';
import { ProxyCallError, parseServerApiArgs, SERVER_API_FLAGS, SERVER_API_NOTES, serverApiCall, serverApiTarget } from './server-api-client.js';

const SHOW_HELP = () =>
  [
    `Usage: ${program()} orders show <reference> [--url URL] [--json]`,
    '',
    "Show an order's payment (its completed attempt, else its current one) and its checkout (its completed",
    'session, else its latest), as the proxy reads them: the same as the server API\'s order reads.',
    '',
    'Options:',
    ...SERVER_API_FLAGS.map((line) => `  ${line}`),
    '',
    ...SERVER_API_NOTES,
    '',
  ].join('\n');

/** `orders show <reference>`: an order's payment and checkout. */
export const ordersShowCommand: CliCommand = {
  name: 'orders show',
  synopsis: '<reference>',
  summary: "Show an order's payment and checkout as a running proxy reads them",
  get help() {
    return SHOW_HELP();
  },
  async run(argv, io) {
    const parsed = parseServerApiArgs(argv, io, SHOW_HELP(), {}, { count: 1, name: '<reference>' });
    if (!parsed) return EXIT.ok;
    const reference = parsed.positionals[0]!.trim();
    if (reference === '') throw new UsageError('the order reference must not be empty');
    const target = serverApiTarget(parsed.values, io.env);
    const read = (what: 'payment' | 'checkout') =>
      serverApiCall(target, 'GET', `/server/orders/${encodeURIComponent(reference)}/${what}`, { nullWhenNotFound: true }) as Promise<Record<string, FieldValue> | null>;
    const [payment, checkout] = await Promise.all([read('payment'), read('checkout')]);
    if (!payment && !checkout) throw new ProxyCallError(`no order "${reference}": no payment and no checkout (orders are kept 7 days)`);
    if (parsed.values.json === true) {
      io.stdout(formatJson({ payment, checkout }));
      return EXIT.ok;
    }
    const part = (title: string, snapshot: Record<string, FieldValue> | null) =>
      snapshot ? `${title}\n${formatFields(Object.entries(snapshot).filter(([, v]) => typeof v !== 'object' || v === null).map(([k, v]) => [`  ${k}`, v] as const))}\n` : '';
    io.stdout([part('payment', payment), part('checkout', checkout)].filter(Boolean).join('\n'));
    return EXIT.ok;
  },
};

const UNRESOLVED_HELP = () =>
  [
    `Usage: ${program()} orders unresolved [--limit N] [--url URL] [--json]`,
    '',
    'List orders whose money state is not final: a payment sent whose answer was lost and that no read can',
    'see, a checkout session whose creation was not confirmed, or anything still unread at the end of the',
    "reconcile window. Each is resolved with the provider's word (orders resolve).",
    '',
    'Options:',
    '  --limit N   at most N orders (100 by default, 1000 at most)',
    ...SERVER_API_FLAGS.map((line) => `  ${line}`),
    '',
    ...SERVER_API_NOTES,
    '',
  ].join('\n');

/** `orders unresolved`: the orders the operator has to look at. */
export const ordersUnresolvedCommand: CliCommand = {
  name: 'orders unresolved',
  synopsis: '[--limit N]',
  summary: 'List orders whose money state is not final (a running proxy)',
  get help() {
    return UNRESOLVED_HELP();
  },
  async run(argv, io) {
    const parsed = parseServerApiArgs(argv, io, UNRESOLVED_HELP(), { limit: { type: 'string' } }, { count: 0, name: '' });
    if (!parsed) return EXIT.ok;
    const limit = stringFlag(parsed.values, 'limit');
    if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1_000)) {
      throw new UsageError(`--limit must be a whole number from 1 to 1000, got "${limit}"`);
    }
    const target = serverApiTarget(parsed.values, io.env);
    const answer = (await serverApiCall(target, 'GET', `/server/orders/unresolved${limit ? `?limit=${limit}` : ''}`)) as { orders: UnresolvedOrder[] };
    if (parsed.values.json === true) {
      io.stdout(formatJson(answer));
      return EXIT.ok;
    }
    const rows = answer.orders.flatMap((o) => [
      ...o.tries.map((t) => [o.orderReference, t.reference, t.phase, t.status, t.msisdn, t.referenceId ?? '', t.sentAt ?? '']),
      ...o.sessions.map((s) => [o.orderReference, `session ${s.session}`, s.phase, s.status, '', s.checkoutId ?? '', s.startedAt]),
    ]);
    io.stdout(rows.length === 0 ? 'no unresolved orders\n' : `${formatTable(['order', 'attempt or session', 'phase', 'status', 'number', 'referenceId or checkoutId', 'since'], rows)}\n`);
    return EXIT.ok;
  },
};

const RESOLVE_HELP = () =>
  [
    `Usage: ${program()} orders resolve <order> (--attempt REF (--reference-id ID | --absent) | --session N (--checkout-id ID | --absent)) [--url URL] [--json]`,
    '',
    "Resolve an order's unknown payment attempt or checkout session with the provider's word, from its own",
    'records (its dashboard or support): the referenceId (or checkoutId) it has under this reference, which the',
    'proxy reads and takes only if it is this order\'s; or --absent when the provider has nothing (then the',
    'attempt or session is void, and the order can be paid again).',
    '',
    'Options:',
    '  --attempt REF       the attempt reference, as orders unresolved lists it (SHOP-A-ORDER-1042-1)',
    "  --reference-id ID   the provider's referenceId of that payment",
    '  --session N         the session number, as orders unresolved lists it',
    "  --checkout-id ID    the provider's checkoutId of that session",
    '  --absent            the provider has no such payment or session',
    ...SERVER_API_FLAGS.map((line) => `  ${line}`),
    '',
    ...SERVER_API_NOTES,
    '',
  ].join('\n');

/** `orders resolve <order>`: the provider's word on one unknown try or session. */
export const ordersResolveCommand: CliCommand = {
  name: 'orders resolve',
  synopsis: '<order> (--attempt REF (--reference-id ID | --absent) | --session N (--checkout-id ID | --absent))',
  summary: "Resolve an order's unknown payment or checkout with the provider's word",
  get help() {
    return RESOLVE_HELP();
  },
  async run(argv, io) {
    const flags = { attempt: { type: 'string' }, 'reference-id': { type: 'string' }, session: { type: 'string' }, 'checkout-id': { type: 'string' }, absent: { type: 'boolean' } } as const;
    const parsed = parseServerApiArgs(argv, io, RESOLVE_HELP(), flags, { count: 1, name: '<order>' });
    if (!parsed) return EXIT.ok;
    const order = parsed.positionals[0]!.trim();
    if (order === '') throw new UsageError('the order reference must not be empty');
    const body = resolution(parsed.values);
    const target = serverApiTarget(parsed.values, io.env);
    const answer = (await serverApiCall(target, 'POST', `/server/orders/${encodeURIComponent(order)}/resolve`, {
      body,
      notFound: `no order "${order}", or no such attempt or session in it`,
    })) as UnresolvedOrder;
    if (parsed.values.json === true) io.stdout(formatJson(answer));
    else io.stdout(answer.tries.length + answer.sessions.length === 0 ? `${order}: resolved\n` : `${order}: still open (${[...answer.tries.map((t) => `${t.reference} ${t.phase}`), ...answer.sessions.map((s) => `session ${s.session} ${s.phase}`)].join(', ')})\n`);
    return EXIT.ok;
  },
};

/** The server API's body from the flags, or a usage error saying which combination is missing. */
function resolution(values: OptionValues): Record<string, unknown> {
  const attempt = stringFlag(values, 'attempt');
  const session = stringFlag(values, 'session');
  const referenceId = stringFlag(values, 'reference-id');
  const checkoutId = stringFlag(values, 'checkout-id');
  const absent = values['absent'] === true;
  if ((attempt === undefined) === (session === undefined)) throw new UsageError('give one of --attempt REF or --session N');
  if (attempt !== undefined) {
    if (checkoutId !== undefined || (referenceId === undefined) === !absent) throw new UsageError('with --attempt, give one of --reference-id ID or --absent');
    return absent ? { reference: attempt, absent: true } : { reference: attempt, referenceId };
  }
  if (!/^[1-9]\d{0,3}$/.test(session as string)) throw new UsageError(`--session must be a session number, got "${session}"`);
  if (referenceId !== undefined || (checkoutId === undefined) === !absent) throw new UsageError('with --session, give one of --checkout-id ID or --absent');
  return absent ? { session: Number(session), absent: true } : { session: Number(session), checkoutId };
}
