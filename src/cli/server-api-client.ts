import { parseArgs } from 'node:util';
import { CliConfigError, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { stringFlag, type OptionValues } from './option-values.js';
import { program } from './program.js';

/** Why a call to the proxy's server API failed: printed as one line, exit code 1. */
export class ProxyCallError extends Error {
  override readonly name = 'ProxyCallError';
}

/** The flags every server API command takes, for its help. */
export const SERVER_API_FLAGS = [
  '--url URL   the running proxy, mount path included (overrides PROXY_URL), e.g. http://127.0.0.1:8787/merchant-elements',
  '--json      print the server API\'s answer as JSON on stdout',
  '--help      show this text',
];

export const SERVER_API_NOTES = [
  'Calls the server API of a running proxy (merchant-elements serve, or one mounted with the server API)',
  'with Authorization: Bearer $PROXY_SERVER_KEY.',
];

/** The proxy's base URL and server key, from `--url` / PROXY_URL and PROXY_SERVER_KEY. */
export function serverApiTarget(values: OptionValues, env: NodeJS.ProcessEnv): { base: string; key: string } {
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

/**
 * One call to the server API; the parsed JSON of a 2xx answer, else a ProxyCallError saying why (the proxy's
 * code and sentence when it gave them; null for a 404 with `nullWhenNotFound`). A POST carries `body` (`{}` by default) as JSON: the proxy's router
 * takes JSON bodies only (415 otherwise).
 */
export async function serverApiCall(
  target: { base: string; key: string },
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; notFound?: string; nullWhenNotFound?: boolean } = {},
): Promise<unknown> {
  const { base, key } = target;
  let res: Response;
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (method === 'POST') headers['content-type'] = 'application/json';
    const init: RequestInit = { method, headers, signal: AbortSignal.timeout(15_000), redirect: 'manual' };
    if (method === 'POST') init.body = JSON.stringify(options.body ?? {});
    res = await fetch(`${base}${path}`, init);
  } catch {
    throw new ProxyCallError(`could not reach the proxy at ${base}; is it running (${program()} serve)?`);
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403) throw new ProxyCallError(`the proxy refused the server key (${res.status}); check PROXY_SERVER_KEY`);
  if (res.status === 404 && options.nullWhenNotFound) return null;
  if (res.status === 404 && options.notFound) throw new ProxyCallError(options.notFound);
  if (res.status < 200 || res.status > 299) throw new ProxyCallError(`the proxy answered ${res.status}${messageOf(text)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProxyCallError(`the proxy answered ${res.status} with something other than JSON; is ${base} the proxy's mount path?`);
  }
}

/** ` (CODE: its sentence)` of the proxy's error body, or nothing. */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error !== 'string') return '';
    return typeof body.message === 'string' ? ` (${body.error}: ${body.message})` : ` (${body.error})`;
  } catch {
    return '';
  }
}

/** Parses flags, answers `--help`, checks the positionals' count; null when help was printed. */
export function parseServerApiArgs(
  argv: string[],
  io: CliIo,
  help: string,
  options: Record<string, { type: 'string' | 'boolean' }>,
  positionals: { count: number; name: string },
) {
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
  if (parsed.positionals.length !== positionals.count) {
    throw new UsageError(`expected ${positionals.count === 0 ? 'no arguments' : positionals.name}, got ${parsed.positionals.length} argument(s)`);
  }
  return { values, positionals: parsed.positionals };
}
