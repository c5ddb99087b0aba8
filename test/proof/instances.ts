import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { InstanceSettings } from './proxy-instance.js';

const SCRIPT = fileURLToPath(new URL('./proxy-instance.ts', import.meta.url));

/** A proxy instance running as its own process. */
export interface ProxyInstance {
  name: string;
  /** `http://127.0.0.1:port` (the proxy is mounted at /merchant-elements). */
  url: string;
  process: ChildProcess;
  /** The last of what it wrote to stderr (its warnings), for a failing test's message. */
  stderr(): string;
  /** SIGTERM (the instance finishes its hooks and closes), then SIGKILL if it has not exited in time. */
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx test/proof/proxy-instance.ts` with `settings` and resolves once it reports its
 * port; kills it and rejects when it exits or stays silent for `timeoutMs` (tsx compiles on start: slow
 * on busy cores).
 */
export async function startProxyInstance(settings: InstanceSettings, timeoutMs = 30_000): Promise<ProxyInstance> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, PROOF_INSTANCE: JSON.stringify(settings) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    errors = (errors + chunk).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const fail = (why: string) => {
      child.kill('SIGKILL');
      reject(new Error(`proxy instance ${settings.name} ${why}\n${errors}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs} ms`), timeoutMs);
    const early = (code: number | null) => {
      clearTimeout(timer);
      fail(`exited with ${code}`);
    };
    child.once('exit', early);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const ready = /\{"ready":(\d+)\}/.exec(out);
      if (!ready) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve(Number(ready[1]));
    });
  });

  return { name: settings.name, url: `http://127.0.0.1:${port}`, process: child, stderr: () => errors, stop };
}
