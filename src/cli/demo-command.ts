import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CliCommand } from './command.js';
import { EXIT, UsageError } from './errors.js';
import { portFlag, positiveNumberFlag } from './flags.js';
import { program } from './program.js';
import { serveUntilStopped } from './serve.js';

/** Options of `merchant-elements demo`, as parsed from the command line. */
export interface DemoCommandOptions {
  port: number;
  host: string;
  timeScale: number;
}

/** What the command needs of demo/server (typed here: the package build compiles src/ alone). */
interface DemoModule {
  startDemo(options: DemoCommandOptions): Promise<{ url: string; close(): Promise<void> }>;
  demoBanner(demo: { url: string }): string;
}

/** The demo's server module; it lives beside src/ in a checkout and is not published. */
const DEMO_MODULE = new URL('../../demo/server/index.ts', import.meta.url);

/** Checks the options; throws a UsageError naming the bad one. */
export function checkDemoOptions(options: DemoCommandOptions): DemoCommandOptions {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${options.port}"`);
  }
  if (!Number.isFinite(options.timeScale) || options.timeScale <= 0) {
    throw new UsageError(`--time-scale must be a positive number, got "${options.timeScale}"`);
  }
  return options;
}

const DEMO_SYNOPSIS = '[--port N] [--host H] [--time-scale N]';

const DEMO_HELP = `Usage: merchant-elements demo ${DEMO_SYNOPSIS}

Run the demo shop (Makola Market Goods) with the provider sandbox and a merchant proxy, all on one
port: sign in by SMS code, pay by mobile money or on the hosted checkout page, and read the codes and
approve the payments on the sandbox's phone page. Same as \`npm start\` in a checkout.

Options:
  --port N          port to listen on (default PORT or 5173; 0 picks a free one)
  --host H          address to bind (default 127.0.0.1)
  --time-scale N    multiply the sandbox's delays and expiries by N (default 1; 0.1 is 10x faster)
  --help            show this text
`;

/** `merchant-elements demo`: runs the demo until SIGINT or SIGTERM. */
export const demoCommand: CliCommand = {
  name: 'demo',
  synopsis: DEMO_SYNOPSIS,
  summary: 'Run the demo shop with the sandbox and a proxy on one port (npm start)',
  help: DEMO_HELP,
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        port: { type: 'string', default: io.env.PORT ?? '5173' },
        host: { type: 'string', default: '127.0.0.1' },
        'time-scale': { type: 'string', default: '1' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      io.stdout(DEMO_HELP);
      return EXIT.ok;
    }
    const options = checkDemoOptions({ port: portFlag(values.port), host: values.host, timeScale: positiveNumberFlag(values['time-scale'], '--time-scale') });
    if (!existsSync(DEMO_MODULE)) {
      io.stderr(`${program()}: demo: the demo runs from a checkout of merchant-elements (it is not published)\n`);
      return EXIT.failed;
    }
    const { startDemo, demoBanner } = (await import(DEMO_MODULE.href)) as DemoModule;
    return serveUntilStopped(io, 'demo', options.port, async () => {
      const demo = await startDemo(options);
      return { banner: demoBanner(demo), close: () => demo.close() };
    });
  },
};
