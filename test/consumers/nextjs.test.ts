// The Next.js guide (docs/nextjs.md) followed as written, from an empty folder: every file it shows (the
// tsconfig with its alias, the root layout, the order store, the token and webhook route handlers, the
// pages) copied out of the page into a folder of the workspace where the packed packages are installed;
// its secrets made by its own script, the sandbox and the service started by its own commands, then its
// `next build` (Turbopack, TypeScript checked) and `next start`. In Chromium a server component's page is
// paid through the rewrite and marked paid by the signed webhook, a client page signs in with tokens from
// route handlers, and nothing under /server/ is forwarded. A recording relay between Next.js and the
// service shows what the rewrite sends.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './child-process.js';
import { launchChromium, reachesState } from '../journeys/shop-browser.js';
import { ROOT } from '../build/built-package.js';
import { appFolder, customerPage, payFromTestNumber, serverApi, workspace } from './consumer-world.js';
import { guideFiles, guidePackages, guideScripts, listening, remapPorts, startTerminal, type Terminal } from './guide-snippets.js';

const DOC = 'docs/nextjs.md';

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

let ports: Record<number, number>;
let secrets: { serverKey: string };
let service: { url: string };
let sandboxUrl: string;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
const terminals: Terminal[] = [];
let site: string;
let browser: Browser;

beforeAll(async () => {
  const guide = await readFile(join(ROOT, DOC), 'utf8');
  // What the guide installs is what the suite installed in the workspace, from the tarballs and the registry.
  const installed = Object.keys((JSON.parse(await readFile(join(workspace(), 'package.json'), 'utf8')) as { dependencies: object }).dependencies);
  const packages = guidePackages(guide, DOC);
  expect(packages).toEqual(expect.arrayContaining(['next', 'merchant-elements', 'merchant-elements-server', 'standardwebhooks']));
  expect(packages.filter((name) => !installed.includes(name))).toEqual([]);
  const { once, terminals: scripts } = guideScripts(guide, DOC);
  expect(Object.keys(scripts).sort()).toEqual(['next', 'proxy', 'sandbox']);
  ports = { 4010: await freePort(), 8080: await freePort(), 3000: await freePort() };
  site = `http://127.0.0.1:${ports[3000]}`;
  const app = await appFolder('nextjs', guideFiles(guide, DOC));
  for (const script of once) await promisify(execFile)('bash', ['-c', remapPorts(script, ports)], { cwd: app });
  const env = Object.fromEntries([...(await readFile(join(app, '.env.local'), 'utf8')).matchAll(/^(\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  secrets = { serverKey: env['PROXY_SERVER_KEY']! };

  const start = async (name: string, port: number, extra: NodeJS.ProcessEnv, timeoutMs: number) => {
    const terminal = startTerminal(remapPorts(scripts[name]!, ports), app, { LOG_LEVEL: 'info', NEXT_TELEMETRY_DISABLED: '1', ...extra });
    terminals.push(terminal);
    await listening(ports[port]!, terminal, `the guide's ${name} terminal`, timeoutMs);
  };
  browser = await launchChromium();
  await start('sandbox', 4010, {}, 60_000);
  sandboxUrl = `http://127.0.0.1:${ports[4010]}`;
  await start('proxy', 8080, {}, 60_000);
  service = { url: `http://127.0.0.1:${ports[8080]}/merchant-elements` };
  recorder = await startRecorder(`http://127.0.0.1:${ports[8080]}`);
  // Next.js's calls go through the recorder; the guide's reader leaves MERCHANT_PROXY_URL unset.
  await start('next', 3000, { MERCHANT_PROXY_URL: recorder.url }, 420_000);
});

afterAll(async () => {
  await browser?.close();
  for (const terminal of terminals.reverse()) await terminal.stop();
  if (recorder) await new Promise((resolve) => recorder.server.close(resolve));
});

/** A customer's page on the Next.js site. */
const visit = (path: string) => customerPage(browser, `${site}${path}`);

describe('the Next.js guide, built by next build and run by next start', () => {
  it('a server component renders <PayByMobile> with the token it minted; the customer pays through the rewrite', async () => {
    const html = await (await fetch(`${site}/orders/NEXT-1`)).text();
    expect(html, `next start printed:\n${terminals.at(-1)?.output()}`).toContain('<pay-by-mobile');
    const { page, errors } = await visit('/orders/NEXT-2');
    await page.getByRole('heading', { name: 'Order NEXT-2' }).waitFor();
    await payFromTestNumber(page.locator('pay-by-mobile'));
    expect(await serverApi(service.url, secrets.serverKey, '/server/orders/NEXT-2/payment')).toMatchObject({ status: 200, body: { status: 'COMPLETED' } });
    // The signed webhook, verified by the guide's route handler with standardwebhooks, marks the order paid.
    await expect
      .poll(async () => (await fetch(`${site}/orders/NEXT-2`)).text(), { timeout: 60_000, interval: 500 })
      .toContain('Paid: GHS 12.50 received')
      .catch(async (e: Error) => {
        const [, proxy, next] = terminals;
        const webhooks = await serverApi(service.url, secrets.serverKey, '/server/webhooks?limit=20');
        throw new Error(`${e.message}\nthe proxy's webhooks: ${JSON.stringify(webhooks.body)}\nthe proxy printed:\n${proxy?.output().slice(-6_000)}\nnext start printed:\n${next?.output().slice(-3_000)}`);
      });
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Paid: GHS 12.50 received. Thank you!' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the webhook route refuses a delivery the proxy did not sign', async () => {
    const forged = JSON.stringify({ type: 'payment.completed', data: { orderReference: 'NEXT-3', snapshot: { amount: 12.5 } } });
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,Zm9yZ2Vk' };
    expect((await fetch(`${site}/api/webhooks`, { method: 'POST', headers, body: forged })).status).toBe(400);
    expect(await (await fetch(`${site}/orders/NEXT-3`)).text()).not.toContain('Paid:');
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
    const outbox = await (await fetch(`${sandboxUrl}/__sandbox/outbox?to=233240000001&kind=sms`)).json() as { entries: { message: string }[] };
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
