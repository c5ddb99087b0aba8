// What the consumer applications share: a folder of the workspace where the tarballs are installed, the
// provider sandbox and `merchant-elements serve` from the installed server package (the tarball's code, not
// the checkout's), commands run to their end, and a customer paying in Chromium.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { inject } from 'vitest';
import { type Child, SERVE_LISTENING, serveEnvironment, type SharedSecrets, startChild } from './child-process.js';
import { reachesState } from '../journeys/shop-browser.js';

/** The workspace of the installed tarballs (test/consumers/global-setup.ts). */
export const workspace = () => inject('consumers').workspace;

/** A new folder `name` of the workspace holding `files` (path to text); its path. */
export async function appFolder(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(workspace(), name);
  await mkdir(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** Runs `command args` in `cwd` to its end: its output, or an error that carries it. */
export function runCommand(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024, timeout: 400_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed (${error.code ?? error.signal}):\n${stdout}${stderr}`));
      else resolve(stdout + stderr);
    });
  });
}

/** Runs a bin of the workspace's node_modules (`vite`, `tsc`, `next`) with Node. */
export function runBin(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return runCommand(process.execPath, [join(workspace(), 'node_modules/.bin', name), ...args], cwd, env);
}

/** Where an installed package's specifier resolves, as an application's `import` would find it. */
export const resolveInstalled = (specifier: string) => createRequire(join(workspace(), 'package.json')).resolve(specifier);

/** The provider sandbox of the installed merchant-elements-server, in this process, 10 times faster than life. */
export async function startInstalledSandbox(): Promise<{ url: string; close(): Promise<void> }> {
  const module = (await import(pathToFileURL(resolveInstalled('merchant-elements/sandbox')).href)) as typeof import('../../src/sandbox/index.js');
  return module.startSandbox({ timeScale: 0.1 });
}

/**
 * `merchant-elements serve` of the installed server package, on the sandbox, until stopped; `url` is its
 * mount URL. `npx` is a guide's command line (`npx merchant-elements-server serve`), run as npx runs an
 * installed bin: the workspace's, by Node (no npm process between the test and the service to stop).
 */
export async function startServe(sandboxUrl: string, secrets: SharedSecrets, env: NodeJS.ProcessEnv, npx = 'npx merchant-elements-server serve'): Promise<Child & { url: string }> {
  const [, bin, args] = /^npx ([\w-]+)((?: [\w-]+)*)$/.exec(npx) ?? [];
  if (!bin) throw new Error(`not an npx command line: ${npx}`);
  const child = await startChild(
    process.execPath,
    [join(workspace(), 'node_modules/.bin', bin), ...args!.split(' ').filter(Boolean)],
    { ...serveEnvironment(sandboxUrl, secrets), ...env },
    SERVE_LISTENING,
    workspace(),
  );
  return { ...child, url: child.match[1]! };
}

/** Calls the server API of a proxy (its mount URL) with the server key; the answer's status and body. */
export async function serverApi(proxyUrl: string, serverKey: string, path: string, body?: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${proxyUrl}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${serverKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * A customer's new page at `url`, and the uncaught errors it has had so far (a test ends with none). A page
 * the server failed to render fails here, with what the server answered.
 */
export async function customerPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(url);
  if (!res?.ok()) throw new Error(`${url} answered ${res?.status()}: ${(await res?.text())?.slice(0, 2_000)}`);
  return { page, errors };
}

/** A customer pays on a single-page app served by SPA_BACKEND, whose page then says so: its uncaught errors. */
export async function paysOnSinglePageApp(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const visit = await customerPage(browser, url);
  await payFromTestNumber(visit.page.locator('pay-by-mobile'));
  await visit.page.getByRole('status').filter({ hasText: /^Paid: order SPA-\d+\.$/ }).waitFor();
  return visit;
}

/** A customer pays with <pay-by-mobile> (`element`) from 024 000 0001, which the sandbox approves: completed. */
export async function payFromTestNumber(element: Locator): Promise<void> {
  const input = element.getByLabel('Mobile money number', { exact: true });
  await input.pressSequentially('024 000 0001', { delay: 10 });
  await input.press('Enter');
  await reachesState(element, 'confirm');
  await element.getByRole('button', { name: /^Pay / }).click();
  await reachesState(element, 'completed', 30_000);
}

/**
 * The backend of a single-page app (React, Vue): its built files (`dist/`), the proxy on the same origin,
 * and the token its page asks for. A file of the application, run by Node from its folder.
 */
export const SPA_BACKEND = `// backend.mjs: the app's own server.
import express from 'express';
import { configFromEnv, createMerchantProxy } from 'merchant-elements/proxy';

const proxy = createMerchantProxy(configFromEnv(process.env));
const app = express();
app.use('/merchant-elements', proxy.router);
app.post('/api/payment-token', async (_req, res) => {
  const reference = 'SPA-' + Date.now();
  res.json({ reference, token: await proxy.tokens.payment({ amount: 12.5, referenceNo: reference, narration: 'Order ' + reference }) });
});
app.use(express.static('dist'));
const server = app.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

/** Starts an application's `backend.mjs` (SPA_BACKEND) on the sandbox: the child and its origin. */
export async function startBackend(dir: string, sandboxUrl: string, secrets: SharedSecrets): Promise<Child & { url: string }> {
  const env = { PROVIDER_ENV: 'sandbox', SANDBOX_URL: sandboxUrl, PROXY_TOKEN_SECRET: secrets.tokenSecret };
  const child = await startChild(process.execPath, ['backend.mjs'], env, /listening on (http:\/\/127\.0\.0\.1:\d+)/, dir);
  return { ...child, url: child.match[1]! };
}
