import { commandsOfGroup, findCommand, overviewOf, type CliCommand } from './command.js';
import { CHECKOUT_ONLY, COMMANDS } from './commands.js';
import { EXIT, UsageError } from './errors.js';
import { processIo, redactingIo, type CliIo } from './io.js';
import { program, programOfScript, setProgram, withProgram } from './program.js';

// Only what every run needs is imported above: each command's module (and the proxy, the provider client or
// Express behind it) is imported when that command runs or shows its help (commands.ts), and the error
// report, which knows the provider's errors, when something fails.

/** The overview printed by `merchant-elements help` and with an unknown command. */
export const USAGE = `Usage: merchant-elements <command> [options]

Commands:
${overviewOf(COMMANDS)}
  help [command]
      Show this text, or a command's (as does <command> --help)

Provider commands call the configured environment (PROVIDER_ENV: sandbox, staging or production; the
sandbox at SANDBOX_URL or http://127.0.0.1:4010 with its default credentials by default) and read
MESSAGING_BASE_URL, PAYMENT_BASE_URL, MESSAGING_API_KEY, MESSAGING_API_SECRET, PAYMENT_USERNAME,
PAYMENT_PASSWORD and CHECKOUT_API_KEY like the proxy. Each takes --json (the parsed provider response
on stdout), --sandbox-url URL and --help.

Exit codes: 0 ok; 1 the operation failed (provider error); 2 usage error or invalid input (nothing was
sent); 3 configuration error.
`;

/**
 * Runs the CLI with `argv` (without node and script); resolves to the exit code, or never for servers.
 * `io` is the process's environment and streams unless a test gives its own.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  setProgram(io.program ?? programOfScript(process.argv[1]));
  const redacted = redactingIo(io);
  // Usage lines name the command as it was run (merchant-elements-server where that is all there is).
  const out: CliIo = { ...redacted, stdout: (text) => redacted.stdout(withProgram(text)), stderr: (text) => redacted.stderr(withProgram(text)) };
  const [first, ...rest] = argv;
  const helpWanted = (word: string | undefined) => word === '--help' || word === '-h';
  if (first === undefined || first === 'help' || helpWanted(first)) {
    const wanted = first === 'help' ? rest : [];
    const match = findCommand(COMMANDS, wanted);
    const group = match ? undefined : groupHelp(wanted[0]);
    out.stdout(match ? (await match.command.load()).help : (group ?? USAGE));
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  // `orders --help`: the group's commands, as `help orders` shows them.
  const group = helpWanted(rest[0]) ? groupHelp(first) : undefined;
  if (group !== undefined) {
    out.stdout(group);
    return EXIT.ok;
  }
  const match = findCommand(COMMANDS, argv);
  let command: CliCommand | undefined;
  try {
    if (!match) throw unknownCommand(argv);
    command = await match.command.load();
    return await command.run(match.args, out);
  } catch (err) {
    const { reportError } = await import('./report-error.js');
    return reportError(command, err, out, USAGE);
  }
}

/** The help of a group of commands (`orders`, `webhooks`, `sms`…): each one's synopsis and summary; none for another word. */
function groupHelp(word: string | undefined): string | undefined {
  const group = commandsOfGroup(COMMANDS, word);
  if (group.length === 0) return undefined;
  return `Usage: merchant-elements ${word} <command> [options]\n\nCommands:\n${overviewOf(group)}\n\n` + `Each takes --help: ${program()} ${word} <command> --help\n`;
}

/** The usage error for arguments that name no command, listing a group's commands when one was named. */
function unknownCommand(argv: readonly string[]): UsageError {
  const checkoutOnly = CHECKOUT_ONLY();
  if (argv[0] !== undefined && Object.hasOwn(checkoutOnly, argv[0])) return new UsageError(checkoutOnly[argv[0]]!);
  const group = commandsOfGroup(COMMANDS, argv[0]);
  if (group.length === 0) return new UsageError(`unknown command "${argv[0]}"`);
  const names = group.map((command) => command.name).join(', ');
  return new UsageError(
    argv[1] === undefined ? `${argv[0]}: which one? ${names}` : `unknown command "${argv[0]} ${argv[1]}"; known: ${names}`,
  );
}

// `tsx src/cli/main.ts …` (npm start) runs this file directly; the bin script imports it and calls main.
if (process.argv[1]?.endsWith('main.ts')) {
  process.exitCode = await main(process.argv.slice(2));
}
