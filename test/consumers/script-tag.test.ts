// A shop with no bundler and no Node framework: a page with one <script> tag (the package's CDN build,
// copied out of the installed tarball as a build step would) and `merchant-elements serve` on another
// origin, allowed by PROXY_ALLOWED_ORIGINS. The shop's own server (plain node:http here, PHP or Python in
// the examples) mints the token through the server API. A customer pays in Chromium.
import { copyFile, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, freshSecrets, type Child } from './child-process.js';
import { launchChromium } from '../journeys/shop-browser.js';
import { appFolder, customerPage, payFromTestNumber, resolveInstalled, serverApi, startInstalledSandbox, startServe } from './consumer-world.js';

const secrets = freshSecrets();
let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let proxy: Child & { url: string };
let shop: Server;
let shopUrl: string;
let browser: Browser;

beforeAll(async () => {
  const dir = await appFolder('script-tag', {});
  // The build step of a script-tag shop: copy the file the package exports for it.
  await copyFile(resolveInstalled('merchant-elements/cdn/merchant-elements.iife.js'), join(dir, 'merchant-elements.iife.js'));
  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  [sandbox, browser] = await Promise.all([startInstalledSandbox(), launchChromium()]);
  proxy = await startServe(sandbox.url, secrets, { PROXY_ALLOWED_ORIGINS: shopUrl });
  shop = createServer(async (req, res) => {
    if (req.url === '/merchant-elements.iife.js') {
      res.setHeader('content-type', 'text/javascript');
      res.end(await readFile(join(dir, 'merchant-elements.iife.js')));
      return;
    }
    const reference = `SCRIPT-${Date.now()}`;
    const minted = await serverApi(proxy.url, secrets.serverKey, '/server/tokens/payment', { amount: 12.5, referenceNo: reference, narration: `Order ${reference}` });
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><html lang="en"><head><link rel="icon" href="data:,">
      <script src="/merchant-elements.iife.js" defer></script></head>
      <body data-reference="${reference}"><pay-by-mobile proxy="${proxy.url}" token="${String(minted.body['token'])}" amount="12.50"></pay-by-mobile></body></html>`);
  });
  await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
});

afterAll(async () => {
  await browser?.close();
  if (shop) await new Promise((resolve) => shop.close(resolve));
  await proxy?.stop();
  await sandbox?.close();
});

it('a page with the CDN script pays through the proxy on another origin, and the server API reads the order paid', async () => {
  const { page, errors } = await customerPage(browser, shopUrl);
  await payFromTestNumber(page.locator('pay-by-mobile'));
  const reference = await page.locator('body').getAttribute('data-reference');
  const payment = await serverApi(proxy.url, secrets.serverKey, `/server/orders/${reference}/payment`);
  expect(payment).toMatchObject({ status: 200, body: { status: 'COMPLETED', orderReference: reference } });
  expect(errors).toEqual([]);
  await page.close();
});
