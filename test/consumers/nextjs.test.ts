// The Next.js guide (docs/nextjs.md) followed as written: every file it shows, copied out of the page into a
// plain App Router app beside the packed packages, `next build` (Turbopack, TypeScript checked), the
// service started by the guide's own command, `next start`; then in Chromium a server component's page paid
// through the rewrite, a client page signed in with tokens from route handlers, and nothing under /server/
// forwarded. A recording relay between Next.js and the service shows what the rewrite sends.
import { readFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, freshSecrets, startChild, type Child } from './child-process.js';
import { launchChromium, reachesState } from '../journeys/shop-browser.js';
import { ROOT } from '../build/built-package.js';
import { appFolder, customerPage, payFromTestNumber, runBin, serverApi, startInstalledSandbox, startServe, workspace } from './consumer-world.js';
import { guideCommands, guideFiles } from './guide-snippets.js';

/** What a reader's project has before the guide: create-next-app's tsconfig, a root layout, and their order store. */
const READERS_OWN = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2017', lib: ['dom', 'dom.iterable', 'esnext'], allowJs: true, skipLibCheck: true, strict: true, noEmit: true,
      esModuleInterop: true, module: 'esnext', moduleResolution: 'bundler', resolveJsonModule: true, isolatedModules: true,
      jsx: 'react-jsx', incremental: true, plugins: [{ name: 'next' }], paths: { '@/*': ['./*'] },
    },
    include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts'],
    exclude: ['node_modules'],
  }),
  'app/layout.tsx': `import type { ReactNode } from 'react';
    export default function RootLayout({ children }: { children: ReactNode }) {
      return <html lang="en"><body>{children}</body></html>;
    }`,
  // A database in a real shop: here every order is GHS 12.50.
  'lib/orders.ts': 'export async function findOrder(reference: string) { return { reference, total: 12.5 }; }\n',
};

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** A relay to `target` that records every request it passes on (streams included, as they come). */
async function startRecorder(target: string): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method!, path: req.url!, headers: req.headers });
    // A connection of its own per request: a kept-alive one the service closes meanwhile would fail a call.
    const upstream = request(new URL(req.url!, target), { method: req.method, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  // Next.js keeps its connections to the rewrite's destination: idle ones live as long as the service's do.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const secrets = freshSecrets();
let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let service: Child & { url: string };
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let next: Child;
let site: string;
let browser: Browser;

beforeAll(async () => {
  const guide = await readFile(join(ROOT, 'docs/nextjs.md'), 'utf8');
  const files = guideFiles(guide);
  expect(Object.keys(files)).toEqual(expect.arrayContaining(['next.config.ts', 'lib/merchant.ts', 'app/orders/[reference]/page.tsx', 'app/sign-in/page.tsx']));
  const commands = guideCommands(guide);
  // The install is the suite's (the packed tarballs under these names); the service starts as the guide says.
  expect(commands).toEqual(['npm install merchant-elements merchant-elements-server', 'npx merchant-elements-server serve']);
  const app = await appFolder('nextjs', { ...READERS_OWN, ...files });

  const port = await freePort();
  site = `http://127.0.0.1:${port}`;
  [sandbox, browser] = await Promise.all([startInstalledSandbox(), launchChromium()]);
  service = await startServe(sandbox.url, secrets, { PROXY_ALLOWED_ORIGINS: site }, commands[1]);
  recorder = await startRecorder(new URL(service.url).origin);
  const env = { MERCHANT_PROXY_URL: recorder.url, PROXY_SERVER_KEY: secrets.serverKey, NEXT_TELEMETRY_DISABLED: '1' };
  await runBin('next', ['build'], app, env);
  next = await startChild(process.execPath, [join(workspace(), 'node_modules/.bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'], env, /Ready in/, app);
});

afterAll(async () => {
  await browser?.close();
  await next?.stop();
  if (recorder) await new Promise((resolve) => recorder.server.close(resolve));
  await service?.stop();
  await sandbox?.close();
});

/** A customer's page on the Next.js site. */
const visit = (path: string) => customerPage(browser, `${site}${path}`);

describe('the Next.js guide, built by next build and run by next start', () => {
  it('a server component renders <PayByMobile> with the token it minted; the customer pays through the rewrite', async () => {
    const html = await (await fetch(`${site}/orders/NEXT-1`)).text();
    expect(html).toContain('<pay-by-mobile');
    const { page, errors } = await visit('/orders/NEXT-2');
    await page.getByRole('heading', { name: 'Order NEXT-2' }).waitFor();
    await payFromTestNumber(page.locator('pay-by-mobile'));
    expect(await serverApi(service.url, secrets.serverKey, '/server/orders/NEXT-2/payment')).toMatchObject({ status: 200, body: { status: 'COMPLETED' } });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a client page takes its token from a route handler, signs in by SMS code, and the proof is redeemed once', async () => {
    const { page, errors } = await visit('/sign-in');
    const otp = page.locator('otp-verify');
    await otp.getByLabel('Phone number', { exact: true }).waitFor();
    // The proof the page hands its route handler, kept to try it again afterwards as an attacker would.
    const proof = page.evaluate(
      () => new Promise<string>((resolve) => document.querySelector('otp-verify')!.addEventListener('otp-verified', (e) => resolve(e.detail.proof))),
    );
    await otp.getByLabel('Phone number', { exact: true }).pressSequentially('024 000 0001', { delay: 10 });
    await otp.getByRole('button', { name: 'Send code' }).click();
    await reachesState(otp, 'sent');
    const outbox = await (await fetch(`${sandbox.url}/__sandbox/outbox?to=233240000001&kind=sms`)).json() as { entries: { message: string }[] };
    await otp.getByLabel('Code from the SMS').pressSequentially(/\b(\d{6})\b/.exec(outbox.entries[0]!.message)![1]!, { delay: 10 });
    await page.getByRole('status').filter({ hasText: 'Signed in as +233240000001.' }).waitFor();

    const again = await fetch(`${site}/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ proof: await proof }) });
    expect(again.status).toBe(400);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the rewrite forwards the elements’ calls and nothing under /server/, in any spelling', async () => {
    recorder.seen.length = 0;
    // An element's call, without its token: forwarded, and refused by the service itself.
    const lookup = await fetch(`${site}/merchant-elements/accounts/lookup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await lookup.json()).toMatchObject({ error: 'TOKEN_INVALID' });
    const body = JSON.stringify({ purpose: 'sign-in' });
    const headers = { authorization: `Bearer ${secrets.serverKey}`, 'content-type': 'application/json' };
    // The server API itself answers the key with a token, straight from the server.
    expect((await serverApi(service.url, secrets.serverKey, '/server/tokens/otp', { purpose: 'sign-in' })).status).toBe(201);
    for (const path of ['server/tokens/otp', 'SERVER/tokens/otp', 'Server/tokens/otp', '%73erver/tokens/otp', 'server%2Ftokens%2Fotp', 'server']) {
      const res = await fetch(`${site}/merchant-elements/${path}`, { method: 'POST', headers, body });
      expect(res.status, path).not.toBe(201);
      expect(await res.text(), path).not.toMatch(/"token"/);
    }
    const forwarded = recorder.seen.map((s) => `${s.method} ${s.path}`);
    expect(forwarded.filter((line) => /^\w+ \/merchant-elements\/server(\/|$)/i.test(line))).toEqual([]);
    expect(forwarded).toContain('POST /merchant-elements/accounts/lookup');
  });

  it('the rewrite names the site in X-Forwarded-Host and passes a balancer’s X-Forwarded-For on, adding none of its own', async () => {
    recorder.seen.length = 0;
    await fetch(`${site}/merchant-elements/health`);
    await fetch(`${site}/merchant-elements/health`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    const [plain, balanced] = recorder.seen;
    expect(plain?.headers['x-forwarded-host']).toBe(new URL(site).host);
    expect(plain?.headers['x-forwarded-for']).toBeUndefined();
    expect(balanced?.headers['x-forwarded-for']).toBe('203.0.113.7');
  });
});
