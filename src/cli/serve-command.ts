import { parseArgs } from 'node:util';
import { DEFAULT_PROXY_PATH } from '../protocol/index.js';
import type { CliCommand } from './command.js';
import { CliConfigError, EXIT, UsageError } from './errors.js';
import { parseTrustProxy, serviceConfigProblems, startProxyService, type ServiceOptions } from './proxy-service.js';
import { serveUntilStopped } from './serve.js';

/** Default pre-stop window of `merchant-elements serve` (PRE_STOP_SECONDS): none. */
export const DEFAULT_PRE_STOP_SECONDS = 0;

/** Default port of `merchant-elements serve`. */
export const DEFAULT_SERVE_PORT = 8080;

/** A mount path: `/` then segments of URL-safe characters, no trailing slash (`/merchant-elements`, `/api/me`). */
export function pathFlag(raw: string): string {
  const problem = pathProblem(raw);
  if (problem) throw new UsageError(`--path (PROXY_PATH) ${problem}`);
  return raw.trim();
}

function pathProblem(raw: string): string | undefined {
  return /^(\/[A-Za-z0-9._~-]+)+$/.test(raw.trim())
    ? undefined
    : `must start with / and have no trailing slash, e.g. ${DEFAULT_PROXY_PATH}; got "${raw}"`;
}

function portProblem(raw: string): string | undefined {
  const port = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isInteger(port) && port >= 0 && port <= 65_535 ? undefined : `must be a whole number from 0 to 65535, got "${raw}"`;
}

const SERVE_SYNOPSIS = '[--port N] [--host H] [--path P] [--server-api-port N] [--server-api-host H]';

const SERVE_HELP = `Usage: merchant-elements serve ${SERVE_SYNOPSIS}

Run the merchant proxy as a service of its own, for shops whose server is not Express (PHP, Python,
Rails, Next.js): the elements' routes at the mount path, the server API under <path>/server/ for the
shop's backend, /health (liveness) and /ready (readiness) for probes, JSON logs on stdout. Configured by
the proxy's environment variables (PROVIDER_ENV, credentials, PROXY_TOKEN_SECRET, PROXY_SERVER_KEY,
PROXY_ALLOWED_ORIGINS, REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES, ...; see the README). Stops gracefully on SIGTERM or SIGINT.

Options (each also read from the variable named):
  --port N              port to listen on (PORT, default ${DEFAULT_SERVE_PORT}; 0 picks a free one)
  --host H              address to bind (HOST, default 127.0.0.1; 0.0.0.0 in a container)
  --path P              mount path of the proxy (PROXY_PATH, default ${DEFAULT_PROXY_PATH})
  --server-api-port N   serve the server API on this port instead, and no /server/ path on --port
                        (SERVER_API_PORT; default: none, the server API is under the mount path)
  --server-api-host H   address the server API's port binds (SERVER_API_HOST, default 127.0.0.1:
                        keep it off the public network)
  --help                show this text

Environment only:
  TRUST_PROXY       Express "trust proxy": true, a hop count, or addresses and subnets of the
                    reverse proxies in front (default: none trusted)
  LOG_LEVEL         fatal, error, warn, info (default), debug or silent
  PRE_STOP_SECONDS  on SIGTERM, answer /ready with 503 this long before connections close, so a
                    balancer probing readiness stops sending here first (default 0, at most 300)

Exit codes: 0 stopped; 1 failed to start (port in use, store unreachable or of a newer format); 2 bad option;
3 bad configuration (every problem of the environment listed, each under its variable).
`;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `merchant-elements serve`: the proxy as a process, until SIGTERM or SIGINT. */
export const serveCommand: CliCommand = {
  name: 'serve',
  synopsis: SERVE_SYNOPSIS,
  summary: 'Run the merchant proxy as a service (any backend: PHP, Python, Next.js), configured by the environment',
  help: SERVE_HELP,
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        path: { type: 'string' },
        'server-api-port': { type: 'string' },
        'server-api-host': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      io.stdout(SERVE_HELP);
      return EXIT.ok;
    }
    const options = serviceOptions(values, io.env);
    return serveUntilStopped(io, 'serve', options.port, async () => {
      const service = await startProxyService(options);
      // The "listening" line is a JSON log line like every other: nothing else is printed on stdout.
      return { banner: '', close: () => service.close() };
    });
  },
};

type ServeFlags = { port?: string; host?: string; path?: string; 'server-api-port'?: string; 'server-api-host'?: string };

/**
 * The service's options from its flags and the environment, checked in full before anything starts. A bad
 * flag is a usage error (exit 2); every problem of the environment, the proxy's variables included, is
 * reported at once, each under the variable that was set (exit 3).
 */
export function serviceOptions(flags: ServeFlags, env: NodeJS.ProcessEnv): ServiceOptions {
  const problems: string[] = [];
  /** A flag's value, checked as a usage error; else its variable's, checked as configuration; else the default. */
  const option = <T>(flag: string, variable: string, fallback: string, problemOf: (raw: string) => string | undefined, parse: (raw: string) => T): T => {
    const given = flags[flag as keyof ServeFlags];
    if (given !== undefined) {
      const problem = problemOf(given);
      if (problem) throw new UsageError(`--${flag} (${variable}) ${problem}`);
      return parse(given);
    }
    const raw = env[variable]?.trim() || fallback;
    const problem = problemOf(raw);
    if (problem) problems.push(`${variable}: ${problem}`);
    return parse(problem ? fallback : raw);
  };
  const anyHost = () => undefined;
  const port = option('port', 'PORT', String(DEFAULT_SERVE_PORT), portProblem, Number);
  const host = option('host', 'HOST', '127.0.0.1', anyHost, String);
  const path = option('path', 'PROXY_PATH', DEFAULT_PROXY_PATH, pathProblem, (raw) => raw.trim());
  const apiPort = option('server-api-port', 'SERVER_API_PORT', '', (raw) => (raw === '' ? undefined : portProblem(raw)), (raw) => (raw === '' ? undefined : Number(raw)));
  const apiHost = option('server-api-host', 'SERVER_API_HOST', '127.0.0.1', anyHost, String);
  if (apiPort === undefined && (flags['server-api-host'] !== undefined || env.SERVER_API_HOST?.trim())) {
    problems.push('SERVER_API_HOST: applies only with SERVER_API_PORT (the server API listens apart only on a port of its own)');
  }

  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  let trustProxy: ServiceOptions['trustProxy'] = false;
  try {
    trustProxy = parseTrustProxy(env.TRUST_PROXY);
  } catch (err) {
    problems.push(`TRUST_PROXY: ${(err as Error).message}`);
  }
  const preStop = env.PRE_STOP_SECONDS?.trim() || String(DEFAULT_PRE_STOP_SECONDS);
  const preStopSeconds = /^\d+$/.test(preStop) ? Number(preStop) : Number.NaN;
  if (!(preStopSeconds >= 0 && preStopSeconds <= 300)) problems.push(`PRE_STOP_SECONDS: must be a whole number of seconds from 0 to 300, got "${preStop}"`);
  problems.push(...serviceConfigProblems(env));
  if (problems.length > 0) throw new CliConfigError(problems);
  return { port, host, path, trustProxy, logLevel, preStopMs: preStopSeconds * 1000, env, ...(apiPort === undefined ? {} : { serverApi: { port: apiPort, host: apiHost } }) };
}
