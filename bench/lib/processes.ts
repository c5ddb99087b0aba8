import { execFile, fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import type { MerchantSettings } from '../servers/merchant-process.js';
import type { RelaySettings } from '../servers/relay-process.js';
import type { ChildMessage } from './ipc.js';

/** A server the bench started in its own process (so its work and memory are its own). */
export interface BenchProcess {
  /** What the process reported when ready (its `url`, for one). */
  url: string;
  pid: number;
  /** Asks the process one of its named questions over IPC. */
  ask<T>(question: string): Promise<T>;
  /** Disconnects (the process exits by itself), then SIGKILL if it lingers. */
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Inside node_modules, so that the compiled servers resolve the project's packages as src does. */
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'merchant-elements-bench');
const SCRIPTS = {
  sandbox: join(OUT_DIR, 'bench', 'servers', 'sandbox-process.js'),
  merchant: join(OUT_DIR, 'bench', 'servers', 'merchant-process.js'),
  relay: join(OUT_DIR, 'bench', 'servers', 'relay-process.js'),
} as const;

let compiled: Promise<void> | undefined;

/**
 * Compiles the server processes and the src they import with tsc (tsconfig.bench.json: the settings
 * `npm run build` ships the proxy and sandbox with), once per bench run. The servers run that JavaScript,
 * not src through tsx: tsx compiles with esbuild's `keepNames`, which wraps every closure the code
 * creates in a `__name(fn, "name")` call at run time, a cost no merchant pays and one that falls unevenly
 * on the two sides of a comparison.
 */
export function compileServers(): Promise<void> {
  compiled ??= (async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.bench.json', '--noCheck', '--outDir', OUT_DIR], { cwd: ROOT }).catch(
      (err: { stdout?: string; stderr?: string }) => {
        throw new Error(`tsc -p tsconfig.bench.json failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
  })();
  return compiled;
}

/**
 * Forks `node --expose-gc <compiled>/bench/servers/<kind>-process.js` (see {@link compileServers}) with
 * `settings` in BENCH_SETTINGS (JSON) and resolves once it reports ready. Its stdout and stderr go to the
 * bench's stderr.
 */
export async function startProcess(kind: 'sandbox', settings: SandboxOptions): Promise<BenchProcess>;
export async function startProcess(kind: 'merchant', settings: MerchantSettings): Promise<BenchProcess>;
export async function startProcess(kind: 'relay', settings: RelaySettings): Promise<BenchProcess>;
export async function startProcess(kind: keyof typeof SCRIPTS, settings: object): Promise<BenchProcess> {
  const timeoutMs = 60_000;
  await compileServers();
  const child: ChildProcess = fork(SCRIPTS[kind], [], {
    // BENCH_NODE_ARGS adds node flags to the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where time goes.
    execArgv: ['--expose-gc', ...(process.env['BENCH_NODE_ARGS']?.split(/\s+/).filter(Boolean) ?? [])],
    env: { ...process.env, BENCH_SETTINGS: JSON.stringify(settings) },
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${kind} process did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${kind} process exited with ${code} before it was ready`));
    };
    child.once('exit', early);
    child.on('message', (message: ChildMessage) => {
      if ('ready' in message) {
        clearTimeout(timer);
        child.off('exit', early);
        resolve(message.ready);
        return;
      }
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if ('error' in message) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.answer);
    });
  });

  return {
    url: String(info['url']),
    pid: child.pid ?? -1,
    ask: <T>(question: string) =>
      new Promise<T>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, ask: question });
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
