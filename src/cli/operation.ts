import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isProviderError, type ProviderClient, type ProviderUnavailableError } from '../provider/index.js';
import type { CliCommand } from './command.js';
import { program } from './program.js';
import { clientFromEnv } from './env.js';
import { EXIT, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { formatJson } from './output.js';
import { stringFlag, type OptionValues } from './option-values.js';

export { listFlag, stringFlag, type OptionValues } from './option-values.js';
import { withHint } from './report-error.js';

/** Option definitions as `node:util` parseArgs takes them. */
export type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** Parsed flags: a string, a list of strings (`multiple`) or a boolean. */

/** What an operation gets to do its work. */
export interface OperationInput {
  /** The provider client of the configured environment. */
  client: ProviderClient;
  /** The command's flags. */
  values: OptionValues;
  /** Its positional arguments, by the names given in the spec. */
  args: Record<string, string>;
  /** For progress and warnings on stderr. */
  io: CliIo;
}

/** A command that calls the provider: its flags, arguments, call and human rendering. */
export interface OperationSpec<T> {
  /** Words of the command, e.g. `payment status`. */
  name: string;
  summary: string;
  /** Names of its positional arguments, in order; each is required. */
  positionals?: string[];
  /** Its own flags (the shared `--json`, `--sandbox-url` and `--help` are added). */
  options?: OptionsConfig;
  /** Flags that must be given. */
  required?: string[];
  /** One line per flag for `--help`: `--to N      recipient number`. */
  optionHelp?: string[];
  /** Paragraph lines printed after the options in `--help`. */
  notes?: string[];
  /** Flags and arguments in one line for the overview; built from the spec when absent. */
  synopsis?: string;
  /** Calls the provider; resolves to what `render` shows. */
  call(input: OperationInput): Promise<T>;
  /** What `--json` prints: the parsed provider response; the whole result unless given. */
  json?(result: T): unknown;
  /** The human-readable output of the result (without the final newline). */
  render(result: T): string;
}

/** Flags every provider command takes. */
const SHARED_OPTIONS = {
  json: { type: 'boolean' },
  'sandbox-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies OptionsConfig;

const SHARED_HELP = [
  '--json              print the parsed provider response as JSON on stdout',
  '--sandbox-url URL   root URL of the sandbox (overrides SANDBOX_URL; default http://127.0.0.1:4010)',
  '--help              show this text',
];

/** Turns an operation spec into a command: parsing, `--help`, the client, the call and the output. */
export function operation<T>(spec: OperationSpec<T>): CliCommand {
  const positionals = spec.positionals ?? [];
  const synopsis =
    spec.synopsis ??
    [...positionals.map((p) => `<${p}>`), ...(spec.required ?? []).map((flag) => `--${flag} …`)].join(' ');
  const usageLine = ['Usage: merchant-elements', spec.name, synopsis, '[--json] [--sandbox-url URL]'].filter(Boolean);
  const help = [
    usageLine.join(' '),
    '',
    spec.summary,
    '',
    'Options:',
    ...[...(spec.optionHelp ?? []), ...SHARED_HELP].map((line) => `  ${line}`),
    ...(spec.notes ? ['', ...spec.notes] : []),
    '',
  ].join('\n');

  return {
    name: spec.name,
    synopsis,
    summary: spec.summary,
    help,
    async run(argv, io) {
      const parsed = parseArgs({
        args: argv,
        options: { ...spec.options, ...SHARED_OPTIONS },
        allowPositionals: true,
        strict: true,
      });
      const values = parsed.values as OptionValues;
      if (values.help === true) {
        io.stdout(help);
        return EXIT.ok;
      }
      if (parsed.positionals.length !== positionals.length) {
        const expected = positionals.length === 0 ? 'no arguments' : positionals.map((p) => `<${p}>`).join(' ');
        throw new UsageError(`expected ${expected}, got ${parsed.positionals.length} argument(s)`);
      }
      for (const flag of spec.required ?? []) {
        if (values[flag] === undefined) throw new UsageError(`--${flag} is required`);
      }
      const args = Object.fromEntries(positionals.map((name, i) => [name, parsed.positionals[i] ?? '']));
      const configured = clientFromEnv(io.env, stringFlag(values, 'sandbox-url'));
      const { client } = configured;
      try {
        const result = await spec.call({ client, values, args, io });
        io.stdout(values.json === true ? formatJson(spec.json ? spec.json(result) : result) : `${spec.render(result)}\n`);
        return EXIT.ok;
      } catch (err) {
        const unreachable = isProviderError(err) && (err as ProviderUnavailableError).reason === 'network';
        if (unreachable && configured.env === 'sandbox') {
          throw withHint(err, `is the sandbox running at ${configured.messagingBaseUrl}? Start it with: ${program()} sandbox`);
        }
        throw err;
      } finally {
        await client.close();
      }
    },
  };
}
