import type { CliIo } from './io.js';

/** One `merchant-elements` command; main.ts finds it by its name and runs it. */
export interface CliCommand {
  /** The words that name it on the command line, e.g. `sandbox` or `sms send`. */
  name: string;
  /** Its arguments and flags in one line, e.g. `<reference> [--json]`. */
  synopsis: string;
  /** What it does, in one line, for the overview. */
  summary: string;
  /** The full text of `merchant-elements <name> --help`. */
  help: string;
  /**
   * Runs it with the arguments after its name and resolves to the exit code (never, for a server).
   * Throws `UsageError`, `InputError`, `CliConfigError` or a provider error; main.ts reports them.
   */
  run(args: string[], io: CliIo): Promise<number>;
}

/**
 * A command as the overview lists it, and how to get the rest: its module is imported only when it runs
 * or its help is shown (commands.ts).
 */
export interface CommandEntry extends Pick<CliCommand, 'name' | 'synopsis' | 'summary'> {
  load(): Promise<CliCommand>;
}

/** What {@link findCommand} found: the command and the arguments after its name. */
export interface CommandMatch<C = CommandEntry> {
  command: C;
  args: string[];
}

/** The command whose name the arguments start with (the longest such name), if any. */
export function findCommand<C extends Pick<CliCommand, 'name'>>(commands: readonly C[], argv: readonly string[]): CommandMatch<C> | undefined {
  let best: CommandMatch<C> | undefined;
  for (const command of commands) {
    const words = command.name.split(' ');
    const matches = words.every((word, i) => argv[i] === word);
    if (matches && (!best || words.length > best.command.name.split(' ').length)) {
      best = { command, args: argv.slice(words.length) };
    }
  }
  return best;
}

/** The commands of a group (`sms` → `sms send`, `sms bulk`, …); empty when `word` names no group. */
export function commandsOfGroup<C extends Pick<CliCommand, 'name'>>(commands: readonly C[], word: string | undefined): C[] {
  return commands.filter((command) => command.name.includes(' ') && command.name.split(' ')[0] === word);
}

/** Lines of the overview: each command's name and synopsis, then its summary indented. */
export function overviewOf(commands: readonly Pick<CliCommand, 'name' | 'synopsis' | 'summary'>[]): string {
  return commands.map((command) => `  ${`${command.name} ${command.synopsis}`.trimEnd()}\n      ${command.summary}`).join('\n');
}
