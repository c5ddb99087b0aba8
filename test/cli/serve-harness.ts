// `merchant-elements serve` as a child process, and raw connections to it: what the serve suites share.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { eventually } from '../proxy/sse-client.js';

const ROOT = new URL('../..', import.meta.url).pathname;
export const SERVER_KEY = 'server-key-for-tests-0123456789-abcdefghij';
export const TOKEN_SECRET = 'token-secret-for-serve-tests-0123456789-abcdef';
export const SHOP = 'https://shop.example';

/** A `merchant-elements serve` child process and what it wrote. */
export interface Served {
  child: ChildProcessWithoutNullStreams;
  /** Its JSON log lines so far. */
  lines(): Record<string, unknown>[];
  stderr(): string;
  exit: Promise<number | null>;
}

/** Variables of the host that must not reach the child (a developer's own configuration). */
const HOST_VARIABLES = /^(PROVIDER_ENV|SANDBOX_URL|MESSAGING_|PAYMENT_|CHECKOUT_|PROXY_|REDIS_|WEBHOOK_|SERVER_API_|PORT$|HOST$|TRUST_PROXY$|LOG_LEVEL$|PRE_STOP_SECONDS$|PAYEE_NAME$|OTP_|DEFAULT_COUNTRY$)/;

function spawnServe(args: string[], env: NodeJS.ProcessEnv): Served {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !HOST_VARIABLES.test(name)));
  const child = spawn(process.execPath, ['bin/merchant-elements.js', 'serve', ...args], { cwd: ROOT, env: { ...base, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return {
    child,
    lines: () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr: () => err,
    exit: new Promise((resolve) => child.once('exit', resolve)),
  };
}

/**
 * Resolves with the URL of the service once it logs "listening"; rejects if it exits first. No clock of its
 * own: starting a child that compiles the CLI takes what the machine gives it (the test's timeout bounds it).
 */
export async function listening(s: Served): Promise<string> {
  for (;;) {
    const line = s.lines().find((l) => l.msg === 'listening');
    if (line) return String(line.url);
    if (s.child.exitCode !== null) throw new Error(`exited ${s.child.exitCode}: ${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A raw connection to the service, with everything it received and a promise of its close. */
export interface Raw {
  socket: Socket;
  text(): string;
  closed: Promise<number>;
}

/** Opens a raw connection to `port` on loopback. */
export function raw(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now())));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, text: () => text, closed }));
  });
}

/** Resolves once `r` has received text matching `pattern`. */
export function received(r: Raw, pattern: RegExp): Promise<void> {
  return eventually(() => (pattern.test(r.text()) ? true : undefined), 60_000, 10).then(() => undefined);
}

/** The port of a URL. */
export const portOf = (url: string) => Number(new URL(url).port);

/**
 * A front of the sandbox that forwards every request, except that those whose path starts with `held`
 * wait until `release()`: a request in flight upstream for exactly as long as the test wants.
 */
export async function gate(target: string, held: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let waiting = 0;
  const server = createServer((req, res) => {
    const forward = () => {
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.url?.startsWith(held)) {
      waiting += 1;
      void released.then(forward);
    } else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    waiting: () => waiting,
    release,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** What a serve suite gets: a sandbox for its whole run, its environment, and children killed after each test. */
export interface ServeSuite {
  sandbox(): StartedSandbox;
  /** The sandbox at SANDBOX_URL, the test token secret and server key, and the shop's origin allowed. */
  env(): NodeJS.ProcessEnv;
  /** Starts `merchant-elements serve` with `args` and exactly `env` (the host's own configuration left out). */
  serve(args: string[], env: NodeJS.ProcessEnv): Served;
}

/** Registers the suite's hooks: one sandbox for the file, every child still running killed after each test. */
export function serveSuite(): ServeSuite {
  let sandbox: StartedSandbox | undefined;
  const children: Served[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ timeScale: 0.01 });
  });
  afterAll(() => sandbox?.close());
  afterEach(() => {
    for (const s of children.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  });
  const started = () => {
    if (!sandbox) throw new Error('the sandbox is not started yet');
    return sandbox;
  };
  return {
    sandbox: started,
    env: () => ({ SANDBOX_URL: started().url, PROXY_TOKEN_SECRET: TOKEN_SECRET, PROXY_SERVER_KEY: SERVER_KEY, PROXY_ALLOWED_ORIGINS: SHOP }),
    serve(args, env) {
      const served = spawnServe(args, env);
      children.push(served);
      return served;
    },
  };
}
