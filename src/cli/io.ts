/** Where a command reads its environment and writes its output; tests capture both streams. */
export interface CliIo {
  /** The environment variables (DESIGN's configuration table). */
  env: NodeJS.ProcessEnv;
  /** Writes to standard output (results). */
  stdout(text: string): void;
  /** Writes to standard error (errors, progress, warnings). */
  stderr(text: string): void;
  /** The command's name as the user runs it (default: from the script that started the process). */
  program?: string;
}

/** The running process's environment and streams. */
export function processIo(): CliIo {
  return {
    env: process.env,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
  };
}

/** Variables holding a secret; their values never reach the terminal. */
const SECRET_VARIABLES = [
  'MESSAGING_API_KEY',
  'MESSAGING_API_SECRET',
  'PAYMENT_PASSWORD',
  'CHECKOUT_API_KEY',
  'PROXY_TOKEN_SECRET',
  'PROXY_SERVER_KEY',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
];
/** Variables holding several secrets, separated by whitespace (a rotation's old and new). */
const SECRET_LISTS = ['PROXY_TOKEN_ACCEPTED_SECRETS', 'PROXY_TOKEN_RETIRED_SECRETS', 'WEBHOOK_SECRET'];

/** Every secret `env` holds: each variable's, each of a list's, and the password in `REDIS_URL`. */
function secretsOf(env: NodeJS.ProcessEnv): string[] {
  const lists = SECRET_LISTS.flatMap((name) => env[name]?.split(/\s+/) ?? []);
  let urlPassword = '';
  try {
    urlPassword = decodeURIComponent(new URL(env['REDIS_URL'] ?? '').password);
  } catch {
    // Not a URL: the configuration's own check names it.
  }
  return [...SECRET_VARIABLES.map((name) => env[name]?.trim() ?? ''), ...lists, urlPassword];
}

/**
 * Wraps `io` so that any secret from the environment written to stderr is replaced by `***` (a provider
 * message or an error could quote one back). Values shorter than 4 characters are left alone.
 */
export function redactingIo(io: CliIo): CliIo {
  // The longest first: a secret that holds another is replaced whole.
  const secrets = [...new Set(secretsOf(io.env))].filter((value) => value.length >= 4).sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return io;
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('***'), text);
  return { ...io, stderr: (text) => io.stderr(redact(text)) };
}
