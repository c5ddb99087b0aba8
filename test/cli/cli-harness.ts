import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';

/** What one run of the CLI produced. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = new URL('../..', import.meta.url).pathname;

/** Variables of the host that must not leak into a run (a developer's real credentials, say). */
const PROVIDER_VARIABLES = [
  'PROVIDER_ENV',
  'SANDBOX_URL',
  'MESSAGING_BASE_URL',
  'PAYMENT_BASE_URL',
  'MESSAGING_API_KEY',
  'MESSAGING_API_SECRET',
  'PAYMENT_USERNAME',
  'PAYMENT_PASSWORD',
  'CHECKOUT_API_KEY',
];

/** Runs `main` in this process with its own environment, capturing both streams; `program` as the user typed it. */
export async function runMain(argv: string[], env: NodeJS.ProcessEnv, program?: string): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    env,
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    ...(program ? { program } : {}),
  });
  return { code, stdout, stderr };
}

/** Runs the real bin script (`node bin/merchant-elements.js …`) as a child process. */
export function runBin(argv: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const base = { ...process.env };
  for (const name of PROVIDER_VARIABLES) delete base[name];
  const child = spawn(process.execPath, ['bin/merchant-elements.js', ...argv], { cwd: ROOT, env: { ...base, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What {@link useCliSandbox} provides once its `beforeAll` ran. */
export interface CliSandbox {
  sandbox: StartedSandbox;
  /** The environment pointing the CLI at the sandbox. */
  env: NodeJS.ProcessEnv;
  /** Writes a CSV file (one string per line) to a temporary folder and resolves to its path. */
  csv(...lines: string[]): Promise<string>;
  /** The temporary folder, removed after the file's tests. */
  dir: string;
}

/**
 * Starts a sandbox (delays 100 times shorter) and a temporary folder before the file's tests and removes
 * both after them; the returned object is filled in by then.
 */
export function useCliSandbox(): CliSandbox {
  let files = 0;
  const context = {
    csv: async (...lines: string[]) => {
      const path = join(context.dir, `recipients-${++files}.csv`);
      await writeFile(path, `${lines.join('\n')}\n`);
      return path;
    },
  } as CliSandbox;
  beforeAll(async () => {
    context.sandbox = await startSandbox({ timeScale: 0.01 });
    context.env = { SANDBOX_URL: context.sandbox.url };
    context.dir = await mkdtemp(join(tmpdir(), 'merchant-elements-cli-'));
  });
  afterAll(async () => {
    await context.sandbox?.close();
    if (context.dir) await rm(context.dir, { recursive: true, force: true });
  });
  return context;
}

/** The sandbox's outbox entries (newest first), optionally for one recipient. */
export async function outbox(sandbox: StartedSandbox, to?: string): Promise<Record<string, unknown>[]> {
  const query = to === undefined ? '' : `?to=${encodeURIComponent(to)}`;
  const res = await fetch(`${sandbox.url}/__sandbox/outbox${query}`);
  return ((await res.json()) as { entries: Record<string, unknown>[] }).entries;
}
