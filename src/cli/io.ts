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

/** Variables holding secrets; their values never reach the terminal. */
const SECRET_VARIABLES = ['MESSAGING_API_KEY', 'MESSAGING_API_SECRET', 'PAYMENT_PASSWORD', 'CHECKOUT_API_KEY', 'PROXY_TOKEN_SECRET', 'PROXY_SERVER_KEY'];

/**
 * Wraps `io` so that any secret from the environment written to stderr is replaced by `***` (a provider
 * message or an error could quote one back). Values shorter than 4 characters are left alone.
 */
export function redactingIo(io: CliIo): CliIo {
  const secrets = SECRET_VARIABLES.map((name) => io.env[name]?.trim() ?? '').filter((value) => value.length >= 4);
  if (secrets.length === 0) return io;
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('***'), text);
  return { ...io, stderr: (text) => io.stderr(redact(text)) };
}
