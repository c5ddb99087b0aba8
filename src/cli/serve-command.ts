import { parseArgs } from 'node:util';
import { DEFAULT_PROXY_PATH } from '../protocol/index.js';
import type { CliCommand } from './command.js';
import { EXIT, UsageError } from './errors.js';
import { portFlag } from './flags.js';
import { parseTrustProxy, startProxyService } from './proxy-service.js';
import { serveUntilStopped } from './serve.js';

/** Default port of `merchant-elements serve`. */
export const DEFAULT_SERVE_PORT = 8080;

/** A mount path: `/` then segments of URL-safe characters, no trailing slash (`/merchant-elements`, `/api/me`). */
export function pathFlag(raw: string): string {
  const path = raw.trim();
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) {
    throw new UsageError(`--path (PROXY_PATH) must start with / and have no trailing slash, e.g. ${DEFAULT_PROXY_PATH}; got "${raw}"`);
  }
  return path;
}

const SERVE_SYNOPSIS = '[--port N] [--host H] [--path P]';

const SERVE_HELP = `Usage: merchant-elements serve ${SERVE_SYNOPSIS}

Run the merchant proxy as a service of its own, for shops whose server is not Express (PHP, Python,
Rails, Next.js): the elements' routes at the mount path, the server API under <path>/server/ for the
shop's backend, /health for probes, JSON logs on stdout. Configured by the proxy's environment
variables (PROVIDER_ENV, credentials, PROXY_TOKEN_SECRET, PROXY_SERVER_KEY, PROXY_ALLOWED_ORIGINS,
REDIS_URL, ...; see the README). Stops gracefully on SIGTERM or SIGINT.

Options:
  --port N          port to listen on (default PORT or ${DEFAULT_SERVE_PORT}; 0 picks a free one)
  --host H          address to bind (default HOST or 127.0.0.1; 0.0.0.0 in a container)
  --path P          mount path of the proxy (default PROXY_PATH or ${DEFAULT_PROXY_PATH})
  --help            show this text

Environment only:
  TRUST_PROXY       Express "trust proxy": true, a hop count, or addresses and subnets of the
                    reverse proxies in front (default: none trusted)
  LOG_LEVEL         fatal, error, warn, info (default), debug or silent

Exit codes: 0 stopped; 1 failed to start (port in use, store unreachable); 2 bad option; 3 bad configuration.
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
        port: { type: 'string', default: io.env.PORT?.trim() || String(DEFAULT_SERVE_PORT) },
        host: { type: 'string', default: io.env.HOST?.trim() || '127.0.0.1' },
        path: { type: 'string', default: io.env.PROXY_PATH?.trim() || DEFAULT_PROXY_PATH },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      io.stdout(SERVE_HELP);
      return EXIT.ok;
    }
    const port = portFlag(values.port);
    const path = pathFlag(values.path);
    const logLevel = io.env.LOG_LEVEL?.trim() || 'info';
    if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
    const trustProxy = parseTrustProxy(io.env.TRUST_PROXY);
    return serveUntilStopped(io, 'serve', port, async () => {
      const service = await startProxyService({ port, host: values.host, path, trustProxy, logLevel, env: io.env });
      // The "listening" line is a JSON log line like every other: nothing else is printed on stdout.
      return { banner: '', close: () => service.close() };
    });
  },
};
