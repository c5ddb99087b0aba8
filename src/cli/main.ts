import { parseArgs } from 'node:util';
import { runSandboxCommand, UsageError } from './sandbox-command.js';

const USAGE = `Usage: merchant-elements <command> [options]

Commands:
  sandbox   Run the provider sandbox (messaging, payment gateway, checkout) locally
            --port N          port to listen on (default 4010; 0 picks a free one)
            --host H          address to bind (default 127.0.0.1)
            --time-scale N    multiply every delay and expiry by N (default 1; 0.01 is 100x faster)
            --faults SPEC     inject faults: RATE[:KIND,...], e.g. 0.2 or 0.1:503,hang
                              kinds: latency, 500, 502, 503, hang, reset, malformed
  help      Show this text
`;

/** Runs the CLI with `argv` (without node and script); resolves to the exit code, or never for servers. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'sandbox': {
        const { values } = parseArgs({
          args: rest,
          options: {
            port: { type: 'string', default: process.env.PORT ?? '4010' },
            host: { type: 'string', default: '127.0.0.1' },
            'time-scale': { type: 'string', default: '1' },
            faults: { type: 'string' },
          },
          strict: true,
        });
        const { sandbox, banner } = await runSandboxCommand({
          port: Number(values.port),
          host: values.host,
          timeScale: Number(values['time-scale']),
          ...(values.faults === undefined ? {} : { faults: values.faults }),
        });
        process.stdout.write(`${banner}\n`);
        const stop = () => void sandbox.close().then(() => process.exit(0));
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        return new Promise<number>(() => {});
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`merchant-elements: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') {
      process.stderr.write(`merchant-elements: the port is already in use (${e.message}); pick another with --port\n`);
      return 1;
    }
    process.stderr.write(`merchant-elements: ${e.message}\n`);
    return 1;
  }
}

// `tsx src/cli/main.ts …` (npm start) runs this file directly; the bin script imports it and calls main.
if (process.argv[1]?.endsWith('main.ts')) {
  process.exitCode = await main(process.argv.slice(2));
}
