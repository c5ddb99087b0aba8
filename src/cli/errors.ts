/** Exit codes of `merchant-elements`. */
export const EXIT = {
  ok: 0,
  /** The operation failed: the provider refused it or could not be reached. */
  failed: 1,
  /** A command-line mistake (bad or missing flag, unknown command) or bad input (a CSV row); nothing was sent. */
  usage: 2,
  /** The environment's configuration is wrong or incomplete (e.g. production without base URLs). */
  config: 3,
} as const;

/** A command-line mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Bad input other than flags (a CSV file, its rows): printed without the usage, exit code 2. */
export class InputError extends Error {
  override readonly name = 'InputError';
  /** One line per problem, printed under the message. */
  readonly problems: string[];
  constructor(message: string, problems: string[] = []) {
    super(message);
    this.problems = problems;
  }
}

/** The configuration from the environment is wrong or incomplete: exit code 3. */
export class CliConfigError extends Error {
  override readonly name = 'CliConfigError';
  /** One sentence per problem, naming the variable. */
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}
