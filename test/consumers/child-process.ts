// What the consumer apps run on: child processes (the proxy as a service of its own, `next start`, a shop)
// started and stopped cleanly, free ports, and the secrets a shop and its proxy share. Everything listens on
// 127.0.0.1.
export { freePort } from '../support/free-port.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const ROOT = new URL('../..', import.meta.url).pathname;

/** A child process that printed the line we waited for, and how to end it. */
export interface Child {
  process: ChildProcess;
  /** Everything it printed so far (stdout and stderr), for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `command`, resolves once its output matches `ready` (or rejects with what it printed). */
export function startChild(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp, cwd = ROOT): Promise<Child & { match: RegExpExecArray }> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await stopped;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} ${args.join(' ')} did not become ready within 60 s:\n${printed}`));
    }, 60_000);
    const look = (chunk: Buffer) => {
      printed += chunk.toString();
      const match = ready.exec(printed);
      if (match) {
        clearTimeout(timer);
        resolve({ process: child, output: () => printed, stop, match });
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited with ${code} before it was ready:\n${printed}`));
    });
  });
}


/** The secrets a shop and its proxy share, fresh for each run. */
export interface SharedSecrets {
  tokenSecret: string;
  serverKey: string;
  webhookSecret: string;
}

export function freshSecrets(): SharedSecrets {
  return {
    tokenSecret: randomBytes(32).toString('base64url'),
    serverKey: `sk_test_${randomBytes(24).toString('base64url')}`,
    webhookSecret: `whsec_${randomBytes(24).toString('base64')}`,
  };
}

/** The CDN build of the elements in a temporary file, for the shops to serve; and its clean-up. */
export const serveEnvironment = (sandboxUrl: string, secrets: SharedSecrets): NodeJS.ProcessEnv => ({
  PORT: '0',
  HOST: '127.0.0.1',
  PROVIDER_ENV: 'sandbox',
  SANDBOX_URL: sandboxUrl,
  PROXY_TOKEN_SECRET: secrets.tokenSecret,
  PROXY_SERVER_KEY: secrets.serverKey,
  LOG_LEVEL: 'info',
});

/** serve logs JSON lines; the "listening" one names the proxy's mount URL (the match's first group). */
export const SERVE_LISTENING = /"proxy":"(http:\/\/127\.0\.0\.1:\d+\/merchant-elements)"[^\n]*"msg":"listening"/;

/** Where one shop and its proxy listen. */
